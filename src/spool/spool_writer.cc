#include "spool/spool_writer.h"

#include <algorithm>
#include <chrono>

#include "common/text.h"
#include "rayagg/clock.h"
#include "spool/format.h"

namespace rayagg::spool {

SpoolWriter::SpoolWriter(FileSystem& fs, Clock& clock, SegmentSet& segments, RecordSource& source,
                         WriterOptions options, uint64_t next_segment, uint64_t next_entry,
                         uint64_t stream_start)
    : fs_(fs),
      clock_(clock),
      segments_(segments),
      source_(source),
      options_(options),
      next_segment_(next_segment),
      next_entry_(next_entry),
      written_(stream_start),
      synced_(stream_start) {}

SpoolWriter::~SpoolWriter() = default;

absl::Status SpoolWriter::OpenSegment() {
  const uint64_t number = next_segment_++;  // never reused, even after a failure
  const std::string path = segments_.PathOf(number);
  absl::StatusOr<std::unique_ptr<File>> file = fs_.Open(path, OpenMode::kCreateNew);
  if (!file.ok()) return file.status();
  const uint64_t created = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(clock_.WallNow().time_since_epoch())
          .count());
  const std::string header = EncodeSegmentHeader(SegmentHeader{.version = kFormatVersion,
                                                               .number = number,
                                                               .sequence_floor = next_entry_,
                                                               .created_unix_ms = created});
  const std::string_view pieces[] = {header};
  if (absl::Status written = AppendFully(**file, pieces); !written.ok()) {
    fs_.Remove(path).IgnoreError();  // recovery would drop a headerless file anyway
    return written;
  }
  file_ = *std::move(file);
  segment_number_ = number;
  segment_written_ = header.size();
  segment_synced_ = 0;
  directory_dirty_ = true;
  SegmentInfo info;
  info.number = number;
  info.sequence_floor = next_entry_;
  info.created_unix_ms = created;
  info.file_bytes = segment_written_;
  info.readable_end = segment_written_;
  segments_.Add(std::move(info));
  return absl::OkStatus();
}

void SpoolWriter::SealCurrent(uint64_t readable_end) {
  segments_.SetSize(segment_number_, segment_written_, readable_end);
  segments_.Seal(segment_number_, readable_end);
  file_.reset();
}

absl::Status SpoolWriter::Rotate() {
  if (options_.sync != SyncMode::kNever) {
    // The interval fsync only ever covers the open segment: sync this one
    // now, or its tail would never be.
    if (absl::Status synced = Sync(); !synced.ok()) return synced;
  }
  SealCurrent(segment_written_);
  return OpenSegment();
}

absl::Status SpoolWriter::WriteThrough(uint64_t target) {
  while (written_ < target) {
    if (!file_) {
      if (absl::Status opened = OpenSegment(); !opened.ok()) return opened;
    } else if (segment_written_ >= options_.segment_bytes &&
               segment_written_ > kSegmentHeaderBytes) {
      if (absl::Status rotated = Rotate(); !rotated.ok()) return rotated;
    }
    pieces_.clear();
    const uint64_t begin =
        source_.CollectRecords(written_, target, options_.max_write_bytes, pieces_);
    if (begin > written_) {
      // Memory dropped these bytes while the spool was down: they cannot be
      // written any more, and there is nothing to keep durable for them.
      if (synced_ == written_) synced_ = std::min(begin, target);
      written_ = std::min(begin, target);
    }
    uint64_t bytes = 0;
    for (const std::string_view piece : pieces_) bytes += piece.size();
    if (bytes == 0) break;
    if (absl::Status appended = AppendFully(*file_, pieces_); !appended.ok()) return appended;
    segments_.NoteRecords(segment_number_, segment_written_, pieces_);
    segment_written_ += bytes;
    segments_.SetSize(segment_number_, segment_written_, segment_written_);
    written_ += bytes;
    if (const std::optional<uint64_t> newest = segments_.NewestEntry()) {
      next_entry_ = std::max(next_entry_, *newest + 1);
    }
  }
  return absl::OkStatus();
}

absl::Status SpoolWriter::Sync() {
  // Nothing open: everything written is in sealed segments, synced when
  // they were sealed.
  if (!file_) return absl::OkStatus();
  if (segment_synced_ < segment_written_) {
    if (absl::Status synced = file_->Sync(); !synced.ok()) return synced;
  }
  if (directory_dirty_) {
    if (absl::Status synced = fs_.SyncDirectory(segments_.directory()); !synced.ok()) {
      return synced;
    }
    directory_dirty_ = false;
  }
  segment_synced_ = segment_written_;
  synced_ = written_;
  return absl::OkStatus();
}

absl::Status SpoolWriter::Reopen() {
  if (file_) {
    // Readers keep to what is known to be on disk; the rest is written
    // again, from memory, into the next segment.
    SealCurrent(options_.sync == SyncMode::kNever ? segment_written_ : segment_synced_);
  }
  written_ = durable();
  return OpenSegment();
}

absl::Status SpoolWriter::Close() {
  if (!file_) return absl::OkStatus();
  absl::Status synced = absl::OkStatus();
  if (options_.sync != SyncMode::kNever) synced = Sync();
  SealCurrent(synced.ok() ? segment_written_ : segment_synced_);
  return synced;
}

}  // namespace rayagg::spool
