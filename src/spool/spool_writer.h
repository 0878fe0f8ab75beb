// Appends the record stream to segment files: the synchronous core of the
// spool's writer thread (spool.h drives it), so its handling of every disk
// error can be tested step by step under a fault-injecting file system.
//
// Positions: `written` is how far the stream is in the current files;
// `synced` how far it is on disk for sure (fsync returned). What is durable
// for the sync mode is `synced`, or `written` with sync: never.
//
// Errors: any failed write or fsync leaves the positions where they were.
// The caller then calls Reopen(): the current segment is closed for good —
// never synced again, since after a failed fsync Linux may have dropped its
// dirty pages and a second fsync would report success for data that is
// gone — and a new segment is opened; the next WriteThrough() writes again,
// from memory, everything after the durable position.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "spool/file_system.h"
#include "spool/record_source.h"
#include "spool/segment_set.h"

namespace rayagg {
class Clock;
}

namespace rayagg::spool {

enum class SyncMode {
  kInterval,  // fsync at an interval (spool.sync: <duration>)
  kAlways,    // fsync before acknowledging
  kNever,     // the OS decides
};

struct WriterOptions {
  SyncMode sync = SyncMode::kInterval;
  uint64_t segment_bytes = 64ull << 20;
  // Largest single write: a long backlog is written in steps of this.
  uint64_t max_write_bytes = 4ull << 20;
};

class SpoolWriter {
 public:
  // `next_segment` and `next_entry` come from OpenSpoolDirectory;
  // `stream_start` is the source's first position. `clock` (the spool's)
  // dates each new segment's header; it outlives the writer.
  SpoolWriter(FileSystem& fs, Clock& clock, SegmentSet& segments, RecordSource& source,
              WriterOptions options, uint64_t next_segment, uint64_t next_entry,
              uint64_t stream_start);
  ~SpoolWriter();

  // Writes the stream up to `target`, opening or rotating segments as needed.
  absl::Status WriteThrough(uint64_t target);
  // fsync of the open segment (and of the directory after a new segment).
  absl::Status Sync();
  // Closes the current segment for good and opens a new one; see above.
  absl::Status Reopen();
  // Seals the open segment (syncing it unless sync: never) without opening
  // another: the last step of a clean stop.
  absl::Status Close();

  uint64_t written() const { return written_; }
  uint64_t synced() const { return synced_; }
  uint64_t durable() const { return options_.sync == SyncMode::kNever ? written_ : synced_; }
  bool needs_sync() const { return written_ > synced_ || directory_dirty_; }
  // The segment being appended to; 0 when none is open.
  uint64_t open_segment() const { return file_ ? segment_number_ : 0; }
  const WriterOptions& options() const { return options_; }

 private:
  absl::Status OpenSegment();
  // Seals the open segment before the next one (synced unless sync: never).
  absl::Status Rotate();
  void SealCurrent(uint64_t readable_end);

  FileSystem& fs_;
  Clock& clock_;
  SegmentSet& segments_;
  RecordSource& source_;
  const WriterOptions options_;
  uint64_t next_segment_;
  uint64_t next_entry_;  // the floor of the next segment opened

  std::unique_ptr<File> file_;
  uint64_t segment_number_ = 0;
  uint64_t segment_written_ = 0;  // bytes in the open segment
  uint64_t segment_synced_ = 0;
  bool directory_dirty_ = false;  // a segment was created since the last directory fsync

  uint64_t written_;
  uint64_t synced_;
  std::vector<std::string_view> pieces_;
};

}  // namespace rayagg::spool
