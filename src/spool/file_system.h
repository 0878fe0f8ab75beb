// The spool's only way to the disk: a small file-system interface, so that
// tests can put a fault-injecting layer (short writes, failed fsync, ENOSPC,
// EIO, torn writes, power loss) under the real spool code, and recovery can
// run on an in-memory directory (fuzzing). Production uses PosixFileSystem.
//
// Errors are absl::Status values whose message names the operation, the
// path and strerror; the code follows errno: ENOSPC/EDQUOT ->
// RESOURCE_EXHAUSTED, EIO -> DATA_LOSS, ENOENT -> NOT_FOUND, EEXIST ->
// ALREADY_EXISTS, EACCES/EPERM/EROFS -> PERMISSION_DENIED, EWOULDBLOCK on a
// lock -> UNAVAILABLE, others -> INTERNAL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rayagg::spool {

class File {
 public:
  virtual ~File() = default;

  // Appends the pieces, in order, at the end of the file with one system
  // call. May write fewer bytes than given (a short write): returns how many
  // were written. See AppendFully.
  virtual absl::StatusOr<size_t> Append(std::span<const std::string_view> pieces) = 0;
  // Reads up to `size` bytes at `offset`; fewer only at the end of the file.
  virtual absl::StatusOr<size_t> ReadAt(uint64_t offset, char* out, size_t size) = 0;
  // Writes all of `bytes` at `offset` (the ledger's slots).
  virtual absl::Status WriteAt(uint64_t offset, std::string_view bytes) = 0;
  // fdatasync: what was written reaches the disk. After a failure the
  // written data may be lost even though a later Sync succeeds (Linux drops
  // the dirty pages of a failed writeback): callers must never retry it.
  virtual absl::Status Sync() = 0;
  virtual absl::Status Truncate(uint64_t size) = 0;
  virtual absl::StatusOr<uint64_t> Size() = 0;
};

enum class OpenMode {
  kRead,       // an existing file, read only
  kReadWrite,  // read and write, created (empty) if missing
  kCreateNew,  // a new file for appending; fails if it exists
};

// Held while a directory is in use by this process; released when
// destroyed or when the process dies (an flock).
class DirectoryLock {
 public:
  virtual ~DirectoryLock() = default;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual absl::StatusOr<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode) = 0;
  // Names (not paths) of the entries of a directory, "." and ".." excluded.
  virtual absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& path) = 0;
  // Creates the directory (and its parents); fine if it exists.
  virtual absl::Status CreateDirectories(const std::string& path) = 0;
  virtual absl::Status Rename(const std::string& from, const std::string& to) = 0;
  virtual absl::Status Remove(const std::string& path) = 0;
  // fsync of a directory: created, renamed and removed entries persist.
  virtual absl::Status SyncDirectory(const std::string& path) = 0;
  // An exclusive lock on `path` (created if missing), without waiting:
  // UNAVAILABLE when another process holds it. `owner` (e.g. "pid 12")
  // is written into the file for the message a second process gets, which
  // quotes what the holder wrote.
  virtual absl::StatusOr<std::unique_ptr<DirectoryLock>> Lock(const std::string& path,
                                                              std::string_view owner) = 0;
};

// Appends all of `pieces`, continuing after short writes. On an error some
// prefix of the pieces may have been written.
absl::Status AppendFully(File& file, std::span<const std::string_view> pieces);

// Reads exactly `size` bytes at `offset`, or fails (OUT_OF_RANGE when the
// file ends first).
absl::Status ReadFully(File& file, uint64_t offset, char* out, size_t size);

// The real thing: POSIX calls on the local file system.
class PosixFileSystem final : public FileSystem {
 public:
  absl::StatusOr<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode) override;
  absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& path) override;
  absl::Status CreateDirectories(const std::string& path) override;
  absl::Status Rename(const std::string& from, const std::string& to) override;
  absl::Status Remove(const std::string& path) override;
  absl::Status SyncDirectory(const std::string& path) override;
  absl::StatusOr<std::unique_ptr<DirectoryLock>> Lock(const std::string& path,
                                                      std::string_view owner) override;
};

// An errno as a status naming `operation` and `path` (codes as above).
absl::Status ErrnoStatus(int error, std::string_view operation, std::string_view path);

}  // namespace rayagg::spool
