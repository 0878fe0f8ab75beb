// A spool::FileSystem in memory that models what a disk keeps, for the
// spool's fault tests and fuzzers: every byte written is kept until a
// simulated crash; fsync marks bytes durable; a power loss keeps only the
// durable bytes (and drops files whose directory entry was never synced).
// Faults are injected per operation and path: failed calls (ENOSPC, EIO,
// ...), short writes, torn writes (part written, then an error), failed
// fsyncs — after which, as Linux does, the unsynced pages count as written
// back: a later fsync succeeds, but those bytes are lost at a power loss.
// Thread-safe.
#pragma once

#include <cerrno>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "rayagg/mutex.h"
#include "spool/file_system.h"

namespace rayagg::test {

class SimulatedFileSystem final : public spool::FileSystem {
 public:
  enum class Op {
    kOpen,
    kAppend,
    kWriteAt,
    kRead,
    kSync,
    kSyncDirectory,
    kTruncate,
    kRemove,
    kRename
  };

  struct Fault {
    Op op = Op::kAppend;
    std::string path_contains = {};  // empty: every path
    int skip = 0;                    // matching calls let through first
    int times = 1;                   // matching calls affected then; -1: all
    int error = EIO;
    // kAppend only: instead of failing, write at most this many bytes and
    // report them (a short write)...
    size_t short_bytes = 0;
    bool short_write = false;
    // ...or write half of what was asked, then fail (a torn write).
    bool torn = false;
  };

  void Inject(Fault fault);
  void ClearFaults();
  // Calls of `op` that failed because of an injected fault.
  int injected(Op op) const;
  // Calls of `op` on paths containing `path_part` (faulty or not).
  int calls(Op op, std::string_view path_part = "") const;

  // The process died: data stays as written, locks are released (the lock
  // objects of the dead process must not be used any more).
  void CrashProcess();
  // The machine lost power: see above. `keep_unsynced_prefix` keeps the
  // first half of every file's unsynced bytes (a torn write-back).
  void LosePower(bool keep_unsynced_prefix = false);

  // Test access to the bytes.
  bool Exists(const std::string& path) const;
  std::string Contents(const std::string& path) const;
  void SetContents(const std::string& path, std::string bytes);
  std::vector<std::string> Paths() const;

  absl::StatusOr<std::unique_ptr<spool::File>> Open(const std::string& path,
                                                    spool::OpenMode mode) override;
  absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& path) override;
  absl::Status CreateDirectories(const std::string& path) override;
  absl::Status Rename(const std::string& from, const std::string& to) override;
  absl::Status Remove(const std::string& path) override;
  absl::Status SyncDirectory(const std::string& path) override;
  absl::StatusOr<std::unique_ptr<spool::DirectoryLock>> Lock(const std::string& path,
                                                             std::string_view owner) override;

 private:
  friend class SimulatedFile;
  friend class SimulatedLock;
  struct Node {
    std::string data;
    uint64_t synced = 0;  // bytes known on disk
    // Byte ranges a failed fsync left behind: gone at a power loss.
    std::vector<std::pair<uint64_t, uint64_t>> doomed;
    bool entry_durable = false;  // its directory was synced since it was created
  };
  struct ActiveFault {
    Fault fault;
    int seen = 0;
    int used = 0;
  };

  // The fault to apply to this call, if any.
  const Fault* Match(Op op, const std::string& path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  static std::string Parent(const std::string& path);

  // Also guards every Node's contents.
  mutable Mutex mutex_;
  std::map<std::string, std::shared_ptr<Node>> files_ ABSL_GUARDED_BY(mutex_);
  std::set<std::string> directories_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, uint64_t> locks_ ABSL_GUARDED_BY(mutex_);  // path -> holder id
  uint64_t next_lock_ ABSL_GUARDED_BY(mutex_) = 1;
  // Bumped by CrashProcess: older locks are void.
  uint64_t lock_epoch_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<ActiveFault> faults_ ABSL_GUARDED_BY(mutex_);
  std::map<Op, int> injected_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::pair<Op, std::string>> calls_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace rayagg::test
