#include "spool/record_scanner.h"

#include <algorithm>
#include <cstring>

namespace rayagg::spool {

RecordScanner::RecordScanner(File& file, uint64_t begin, uint64_t end, size_t block_bytes)
    : file_(file),
      end_(std::max(begin, end)),
      block_bytes_(std::max<size_t>(block_bytes, 4 * kRecordHeaderBytes)),
      position_(begin),
      window_offset_(begin) {}

bool RecordScanner::Ensure(uint64_t offset, size_t size) {
  if (!status_.ok() || offset > end_ || size > end_ - offset) return false;
  const uint64_t window_end = window_offset_ + window_.size();
  if (offset >= window_offset_ && offset + size <= window_end) return true;
  if (offset >= window_offset_ && offset <= window_end) {
    window_.erase(0, offset - window_offset_);  // keep what is still ahead
  } else {
    window_.clear();
  }
  window_offset_ = offset;
  const uint64_t have = window_offset_ + window_.size();
  const uint64_t want = std::min<uint64_t>(end_, offset + std::max<uint64_t>(size, block_bytes_));
  const size_t old_size = window_.size();
  window_.resize(old_size + (want - have));
  absl::StatusOr<size_t> got = file_.ReadAt(have, window_.data() + old_size, want - have);
  if (!got.ok()) {
    status_ = got.status();
    window_.resize(old_size);
    return false;
  }
  window_.resize(old_size + *got);
  // The file may be shorter than the range (truncated by someone else).
  return window_.size() >= size;
}

bool RecordScanner::IntactAt(uint64_t offset, RecordHeader& header) {
  if (!Ensure(offset, kRecordHeaderBytes)) return false;
  if (!ParseRecordHeader(View(offset, kRecordHeaderBytes), header)) return false;
  if (!Ensure(offset, kRecordHeaderBytes + header.length)) return false;
  return RecordChecksumMatches(View(offset, kRecordHeaderBytes),
                               View(offset + kRecordHeaderBytes, header.length));
}

uint64_t RecordScanner::Resync(uint64_t offset) {
  constexpr size_t kMarkerAt = 21;
  uint64_t candidate = offset + 1;
  while (status_.ok() && candidate <= end_ && end_ - candidate >= kRecordHeaderBytes) {
    if (!Ensure(candidate, kRecordHeaderBytes)) break;
    // Jump to the next byte that could be a header's marker.
    const uint64_t window_end = window_offset_ + window_.size();
    const uint64_t search_from = candidate + kMarkerAt;
    const void* hit = std::memchr(window_.data() + (search_from - window_offset_), kRecordMarker,
                                  window_end - search_from);
    if (hit == nullptr) {
      // None in the window: continue where its last header could start.
      candidate = window_end - kMarkerAt;
      continue;
    }
    candidate = window_offset_ +
                static_cast<uint64_t>(static_cast<const char*>(hit) - window_.data()) - kMarkerAt;
    RecordHeader header;
    if (IntactAt(candidate, header)) return candidate;
    ++candidate;
  }
  return end_;
}

RecordScanner::Step RecordScanner::Next(ScannedRecord& record, DamagedRegion& damage) {
  if (!status_.ok() || position_ >= end_) return Step::kEnd;
  RecordHeader header;
  if (IntactAt(position_, header)) {
    record.offset = position_;
    record.header = header;
    record.payload = View(position_ + kRecordHeaderBytes, header.length);
    position_ += kRecordHeaderBytes + header.length;
    return Step::kRecord;
  }
  if (!status_.ok()) return Step::kEnd;
  const uint64_t start = position_;
  const uint64_t next = Resync(start);
  if (!status_.ok()) return Step::kEnd;
  damage =
      DamagedRegion{.offset = start, .bytes = next - start, .torn = false, .tail = next >= end_};
  if (damage.tail) {
    // Torn unless it starts with a whole record that fails its checksum.
    RecordHeader first;
    const bool whole_record = Ensure(start, kRecordHeaderBytes) &&
                              ParseRecordHeader(View(start, kRecordHeaderBytes), first) &&
                              first.length <= end_ - start - kRecordHeaderBytes;
    damage.torn = !whole_record;
  }
  position_ = next;
  return Step::kDamaged;
}

}  // namespace rayagg::spool
