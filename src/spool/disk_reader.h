// Reads entries back from the segment files for one sink: after a restart,
// and whenever the event log's memory let go of entries the sink has not
// read yet. Sequential, through a RecordScanner per segment; an entry's
// coalesced parts (stored later in the stream) are fetched by location
// from the SegmentSet. Damage is skipped and reported to the caller, which
// counts it for its sink (drop reason `corrupt`). Not thread-safe: one per
// sink, used by that sink's reader.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rayagg/event_type_filter.h"
#include "spool/file_system.h"
#include "spool/record_scanner.h"
#include "spool/segment_set.h"

namespace rayagg::spool {

struct DiskEntry {
  uint64_t sequence = 0;
  int32_t event_type = 0;
  // The first event, then the coalesced ones in the order received.
  std::span<const std::string_view> parts;
  std::span<const uint8_t> part_numbers;  // parts[i] is part part_numbers[i]
};

struct DiskReadResult {
  uint64_t next = 0;          // where the next read starts
  size_t entries = 0;         // entries emitted
  uint64_t lost_entries = 0;  // in damaged regions (at least one per region)
  uint64_t lost_parts = 0;    // coalesced parts that could not be read back
  // Segments recovery moved aside whose entries this reader had not all
  // read: one lost entry each (how many it held is what the disk would not
  // give back), counted once per reader.
  uint64_t lost_segments = 0;
};

class DiskReader {
 public:
  DiskReader(FileSystem& fs, const SegmentSet& segments) : fs_(fs), segments_(segments) {}

  // Emits, in order, the entries with sequences in [from, until) that
  // `accepts` takes, at most `max_entries` of them. `next` is the sequence
  // after the last entry looked at, or `until` when the disk holds nothing
  // more before it. Views passed to `emit` are valid during the call.
  DiskReadResult Read(uint64_t from, uint64_t until, size_t max_entries,
                      const EventTypeFilter& accepts,
                      const std::function<void(const DiskEntry&)>& emit);

 private:
  // Positions the scanner at the segment and offset where `sequence` is,
  // or returns false when the disk has no entry at or after it.
  bool Seek(uint64_t sequence);
  // Moves on to the segment after the current one (or to the part of the
  // current one written since the scanner was made). False at the end.
  bool Advance();
  void FetchParts(uint64_t sequence, DiskReadResult& result);

  FileSystem& fs_;
  const SegmentSet& segments_;
  uint64_t segment_ = 0;
  std::unique_ptr<File> file_;
  std::optional<RecordScanner> scanner_;
  uint64_t scanner_end_ = 0;
  // The sequence the scanner continues at; a Read from elsewhere seeks.
  std::optional<uint64_t> expected_;
  std::optional<uint64_t> last_entry_;  // in the current segment, for loss estimates
  std::vector<std::string_view> parts_;
  std::vector<uint8_t> part_numbers_;
  std::vector<std::string> part_bytes_;
  // Moved-aside segments already counted in lost_segments (a few at most).
  std::vector<uint64_t> counted_moved_aside_;
};

}  // namespace rayagg::spool
