#include "rayagg/event_batch.h"

namespace rayagg {

void EventBatch::AddParts(uint64_t position, int32_t event_type,
                          std::span<const std::string_view> parts) {
  if (parts.size() == 1) {
    Add(position, event_type, parts[0]);
    return;
  }
  const auto count = static_cast<uint32_t>(parts.size());
  Span span{event_type, count, count, position, data_.size(), 0, part_sizes_.size()};
  for (const std::string_view part : parts) {
    data_.append(part);
    part_sizes_.push_back(part.size());
    span.size += part.size();
  }
  spans_.push_back(span);
}

size_t EventBatch::MergeParts(size_t first, EventMerger& merger) {
  size_t first_multi = first;
  while (first_multi < spans_.size() && spans_[first_multi].parts_count == 0) ++first_multi;
  if (first_multi == spans_.size()) return 0;

  // Rebuild from the first multi-part event on (not in place: a merge result
  // may be larger than the part it would overwrite before the next parts are
  // read). The bytes move to the scratch buffer by a swap, not a copy; only
  // the prefix left as it is gets copied back. Both buffers keep their
  // capacity, so a sink's steady state allocates nothing here.
  const size_t keep_bytes = spans_[first_multi].offset;
  scratch_data_.swap(data_);
  data_.assign(scratch_data_, 0, keep_bytes);
  scratch_spans_.assign(spans_.begin() + static_cast<ptrdiff_t>(first_multi), spans_.end());
  spans_.resize(first_multi);
  // Parts of multi-part events before `first` (left to the caller) come
  // before those of the first one merged here.
  scratch_part_sizes_.swap(part_sizes_);
  part_sizes_.assign(
      scratch_part_sizes_.begin(),
      scratch_part_sizes_.begin() + static_cast<ptrdiff_t>(scratch_spans_.front().parts_begin));
  size_t failed = 0;
  for (const Span& span : scratch_spans_) {
    const std::string_view bytes = std::string_view(scratch_data_).substr(span.offset, span.size);
    if (span.parts_count == 0) {
      Add(span.position, span.event_type, bytes, span.received);
      continue;
    }
    parts_.clear();
    size_t offset = 0;
    for (size_t p = 0; p < span.parts_count; ++p) {
      const size_t size = scratch_part_sizes_[span.parts_begin + p];
      parts_.push_back(bytes.substr(offset, size));
      offset += size;
    }
    if (merger.Merge(parts_, merged_)) {
      Add(span.position, span.event_type, merged_, span.received);
    } else {
      ++failed;
      for (const std::string_view part : parts_) Add(span.position, span.event_type, part);
    }
  }
  return failed;
}

}  // namespace rayagg
