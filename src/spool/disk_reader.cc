#include "spool/disk_reader.h"

#include <algorithm>

namespace rayagg::spool {

bool DiskReader::Seek(uint64_t sequence) {
  scanner_.reset();
  file_.reset();
  last_entry_.reset();
  const std::optional<SegmentSet::Location> location = segments_.Locate(sequence);
  if (!location) return false;
  const std::optional<SegmentInfo> info = segments_.Get(location->segment);
  if (!info) return false;
  absl::StatusOr<std::unique_ptr<File>> file =
      fs_.Open(segments_.PathOf(location->segment), OpenMode::kRead);
  if (!file.ok()) {
    // Gone (deleted or moved aside meanwhile): try from the next one.
    segment_ = location->segment;
    return Advance();
  }
  file_ = *std::move(file);
  segment_ = location->segment;
  scanner_end_ = info->readable_end;
  scanner_.emplace(*file_, std::min(location->offset, scanner_end_), scanner_end_);
  return true;
}

bool DiskReader::Advance() {
  // The open segment may have grown since the scanner was made.
  if (scanner_ && file_) {
    const std::optional<SegmentInfo> info = segments_.Get(segment_);
    if (info && info->readable_end > scanner_end_ && scanner_->status().ok()) {
      const uint64_t resume = scanner_->position();
      scanner_end_ = info->readable_end;
      scanner_.emplace(*file_, resume, scanner_end_);
      return true;
    }
  }
  for (;;) {
    scanner_.reset();
    file_.reset();
    last_entry_.reset();
    const std::optional<SegmentInfo> next = segments_.Next(segment_);
    if (!next) return false;
    segment_ = next->number;
    absl::StatusOr<std::unique_ptr<File>> file =
        fs_.Open(segments_.PathOf(next->number), OpenMode::kRead);
    if (!file.ok()) continue;
    file_ = *std::move(file);
    scanner_end_ = next->readable_end;
    scanner_.emplace(*file_, kSegmentHeaderBytes, scanner_end_);
    return true;
  }
}

void DiskReader::FetchParts(uint64_t sequence, DiskReadResult& result) {
  const absl::InlinedVector<PartLocation, 2> locations = segments_.PartsOf(sequence);
  if (locations.empty()) return;
  part_bytes_.resize(std::max(part_bytes_.size(), locations.size()));
  std::vector<PartLocation> ordered(locations.begin(), locations.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const PartLocation& a, const PartLocation& b) { return a.part < b.part; });
  size_t slot = 0;
  std::unique_ptr<File> other;
  for (const PartLocation& location : ordered) {
    File* file = nullptr;
    if (location.segment == segment_ && file_) {
      file = file_.get();
    } else {
      absl::StatusOr<std::unique_ptr<File>> opened =
          fs_.Open(segments_.PathOf(location.segment), OpenMode::kRead);
      if (opened.ok()) {
        other = *std::move(opened);
        file = other.get();
      }
    }
    std::string& bytes = part_bytes_[slot];
    bytes.resize(kRecordHeaderBytes + location.length);
    RecordHeader header;
    const bool intact = file != nullptr &&
                        ReadFully(*file, location.offset, bytes.data(), bytes.size()).ok() &&
                        ParseRecordHeader(bytes, header) && header.sequence == sequence &&
                        header.part == location.part && header.length == location.length &&
                        RecordChecksumMatches(std::string_view(bytes).substr(0, kRecordHeaderBytes),
                                              std::string_view(bytes).substr(kRecordHeaderBytes));
    if (!intact) {
      ++result.lost_parts;
      continue;
    }
    parts_.push_back(std::string_view(bytes).substr(kRecordHeaderBytes));
    part_numbers_.push_back(location.part);
    ++slot;
  }
}

DiskReadResult DiskReader::Read(uint64_t from, uint64_t until, size_t max_entries,
                                const EventTypeFilter& accepts,
                                const std::function<void(const DiskEntry&)>& emit) {
  DiskReadResult result{.next = from};
  if (from >= until || max_entries == 0) return result;
  for (const SegmentSet::MovedAside& aside : segments_.MovedAsideWithin(from, until)) {
    if (std::find(counted_moved_aside_.begin(), counted_moved_aside_.end(), aside.number) ==
        counted_moved_aside_.end()) {
      counted_moved_aside_.push_back(aside.number);
      ++result.lost_segments;
    }
  }
  if (!scanner_ || expected_ != from) {
    if (!Seek(from)) {
      result.next = until;
      expected_.reset();
      return result;
    }
  }
  ScannedRecord record;
  DamagedRegion damage;
  while (result.entries < max_entries) {
    const RecordScanner::Step step = scanner_->Next(record, damage);
    if (step == RecordScanner::Step::kEnd) {
      if (!scanner_->status().ok()) {
        // The disk refused this segment's rest: count it lost, go on after it.
        ++result.lost_entries;
      }
      if (!Advance()) {
        result.next = until;
        break;
      }
      continue;
    }
    if (step == RecordScanner::Step::kDamaged) {
      if (!damage.torn) ++result.lost_entries;
      continue;
    }
    const RecordHeader& header = record.header;
    if (header.part != 0 || header.sequence < result.next) continue;  // parts come with their entry
    if (header.sequence >= until) {
      // Memory holds the rest; a later read from here seeks again.
      result.next = until;
      scanner_.reset();
      break;
    }
    last_entry_ = header.sequence;
    result.next = header.sequence + 1;
    if (!accepts.Accepts(header.event_type)) continue;
    const std::string_view payload = record.payload;
    parts_.assign(1, payload);
    part_numbers_.assign(1, 0);
    FetchParts(header.sequence, result);
    emit(DiskEntry{.sequence = header.sequence,
                   .event_type = header.event_type,
                   .parts = parts_,
                   .part_numbers = part_numbers_});
    ++result.entries;
  }
  expected_ = scanner_ ? std::optional<uint64_t>(result.next) : std::nullopt;
  return result;
}

}  // namespace rayagg::spool
