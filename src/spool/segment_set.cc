#include "spool/segment_set.h"

#include <algorithm>

namespace rayagg::spool {

std::string SegmentSet::PathOf(uint64_t number) const {
  return directory_ + "/" + SegmentFileName(number);
}

void SegmentSet::Add(SegmentInfo info) {
  MutexLock lock(mutex_);
  total_bytes_ += info.file_bytes;
  const uint64_t number = info.number;
  segments_[number] = std::move(info);
}

void SegmentSet::NoteLocked(SegmentInfo& segment, uint64_t offset, const RecordHeader& header) {
  ++segment.records;
  if (header.part == 0) {
    if (any_entry_ && header.sequence <= newest_entry_) return;  // a copy
    any_entry_ = true;
    newest_entry_ = header.sequence;
    if (!segment.has_entries) {
      segment.has_entries = true;
      segment.first_entry = header.sequence;
      segment.sparse.emplace_back(header.sequence, static_cast<uint32_t>(offset));
    } else if ((header.sequence - segment.first_entry) / kSparseEvery >= segment.sparse.size()) {
      segment.sparse.emplace_back(header.sequence, static_cast<uint32_t>(offset));
    }
    segment.last_entry = header.sequence;
  } else {
    auto& parts = parts_[header.sequence];
    for (const PartLocation& known : parts) {
      if (known.part == header.part) return;  // a copy
    }
    parts.push_back(PartLocation{.segment = segment.number,
                                 .offset = static_cast<uint32_t>(offset),
                                 .length = header.length,
                                 .part = header.part});
    ++part_count_;
  }
  segment.max_sequence =
      segment.any_record ? std::max(segment.max_sequence, header.sequence) : header.sequence;
  segment.any_record = true;
  segment.type_mask |= TypeBit(header.event_type);
}

void SegmentSet::NoteRecords(uint64_t number, uint64_t offset,
                             std::span<const std::string_view> pieces) {
  MutexLock lock(mutex_);
  auto it = segments_.find(number);
  if (it == segments_.end()) return;
  for (std::string_view piece : pieces) {
    while (piece.size() >= kRecordHeaderBytes) {
      RecordHeader header;
      ParseRecordHeader(piece, header);
      NoteLocked(it->second, offset, header);
      const size_t record_bytes = kRecordHeaderBytes + header.length;
      offset += record_bytes;
      piece.remove_prefix(std::min(record_bytes, piece.size()));
    }
  }
}

void SegmentSet::NoteRecord(uint64_t number, uint64_t offset, const RecordHeader& header) {
  MutexLock lock(mutex_);
  auto it = segments_.find(number);
  if (it != segments_.end()) NoteLocked(it->second, offset, header);
}

void SegmentSet::SetSize(uint64_t number, uint64_t file_bytes, uint64_t readable_end) {
  MutexLock lock(mutex_);
  auto it = segments_.find(number);
  if (it == segments_.end()) return;
  total_bytes_ = total_bytes_ - it->second.file_bytes + file_bytes;
  it->second.file_bytes = file_bytes;
  it->second.readable_end = readable_end;
}

void SegmentSet::Seal(uint64_t number, uint64_t readable_end) {
  MutexLock lock(mutex_);
  auto it = segments_.find(number);
  if (it == segments_.end()) return;
  it->second.sealed = true;
  it->second.readable_end = std::min(it->second.readable_end, readable_end);
}

void SegmentSet::Remove(uint64_t number) {
  MutexLock lock(mutex_);
  auto it = segments_.find(number);
  if (it == segments_.end()) return;
  total_bytes_ -= it->second.file_bytes;
  if (it->second.has_entries) {
    // A segment goes once every sink released it, or its events were
    // dropped (evicted, lost): the parts of its entries are no longer read.
    const auto end = parts_.upper_bound(it->second.last_entry);
    for (auto part = parts_.begin(); part != end; ++part) part_count_ -= part->second.size();
    parts_.erase(parts_.begin(), end);
  }
  segments_.erase(it);
  moved_aside_.erase(moved_aside_.begin(), moved_aside_.lower_bound(number));
}

void SegmentSet::NoteMovedAside(uint64_t number, uint64_t end_bound) {
  MutexLock lock(mutex_);
  MovedAside aside{.number = number, .begin = 0, .end = end_bound};
  for (const auto& [other, info] : segments_) {
    if (!info.has_entries) continue;
    if (other < number) {
      aside.begin = std::max(aside.begin, info.last_entry + 1);
    } else if (other > number) {
      aside.end = info.first_entry;
      break;
    }
  }
  aside.end = std::max(aside.begin, aside.end);
  moved_aside_[number] = aside;
}

std::vector<SegmentSet::MovedAside> SegmentSet::MovedAsideWithin(uint64_t from,
                                                                 uint64_t until) const {
  MutexLock lock(mutex_);
  std::vector<MovedAside> within;
  for (const auto& [number, aside] : moved_aside_) {
    if (aside.begin < until && from < aside.end) within.push_back(aside);
  }
  return within;
}

std::optional<SegmentInfo> SegmentSet::Get(uint64_t number) const {
  MutexLock lock(mutex_);
  auto it = segments_.find(number);
  if (it == segments_.end()) return std::nullopt;
  return it->second;
}

std::vector<SegmentInfo> SegmentSet::Snapshot() const {
  MutexLock lock(mutex_);
  std::vector<SegmentInfo> all;
  all.reserve(segments_.size());
  for (const auto& [number, info] : segments_) all.push_back(info);
  return all;
}

std::optional<SegmentInfo> SegmentSet::Oldest() const {
  MutexLock lock(mutex_);
  if (segments_.empty()) return std::nullopt;
  return segments_.begin()->second;
}

std::optional<SegmentInfo> SegmentSet::Next(uint64_t number) const {
  MutexLock lock(mutex_);
  auto it = segments_.upper_bound(number);
  if (it == segments_.end()) return std::nullopt;
  return it->second;
}

std::optional<SegmentSet::Location> SegmentSet::Locate(uint64_t sequence) const {
  MutexLock lock(mutex_);
  for (const auto& [number, info] : segments_) {
    if (!info.has_entries || info.last_entry < sequence) continue;
    uint64_t offset = kSegmentHeaderBytes;
    // The last sparse point at or before `sequence`.
    auto point = std::upper_bound(
        info.sparse.begin(), info.sparse.end(), sequence,
        [](uint64_t wanted, const std::pair<uint64_t, uint32_t>& p) { return wanted < p.first; });
    if (point != info.sparse.begin()) offset = std::prev(point)->second;
    return Location{number, offset};
  }
  return std::nullopt;
}

absl::InlinedVector<PartLocation, 2> SegmentSet::PartsOf(uint64_t sequence) const {
  MutexLock lock(mutex_);
  auto it = parts_.find(sequence);
  if (it == parts_.end()) return {};
  return it->second;
}

uint64_t SegmentSet::total_bytes() const {
  MutexLock lock(mutex_);
  return total_bytes_;
}

size_t SegmentSet::segment_count() const {
  MutexLock lock(mutex_);
  return segments_.size();
}

size_t SegmentSet::part_count() const {
  MutexLock lock(mutex_);
  return part_count_;
}

std::optional<uint64_t> SegmentSet::FirstEntry() const {
  MutexLock lock(mutex_);
  for (const auto& [number, info] : segments_) {
    if (info.has_entries) return info.first_entry;
  }
  return std::nullopt;
}

std::optional<uint64_t> SegmentSet::NewestEntry() const {
  MutexLock lock(mutex_);
  if (!any_entry_) return std::nullopt;
  return newest_entry_;
}

void SegmentSet::Adopt(SegmentSet& other) {
  if (&other == this) return;
  MutexLock lock(mutex_);
  MutexLock other_lock(other.mutex_);
  for (auto& [number, info] : other.segments_) {
    total_bytes_ += info.file_bytes;
    segments_[number] = std::move(info);
  }
  for (auto& [sequence, parts] : other.parts_) {
    auto& mine = parts_[sequence];
    for (const PartLocation& part : parts) mine.push_back(part);
  }
  part_count_ += other.part_count_;
  moved_aside_.merge(other.moved_aside_);
  if (other.any_entry_ && !any_entry_) {
    any_entry_ = true;
    newest_entry_ = other.newest_entry_;
  }
  other.segments_.clear();
  other.parts_.clear();
  other.moved_aside_.clear();
  other.part_count_ = 0;
  other.total_bytes_ = 0;
}

}  // namespace rayagg::spool
