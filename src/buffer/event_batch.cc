#include "buffer/event_batch.h"

#include <utility>

namespace rayagg {

void EventBatch::AddParts(int32_t event_type, std::span<const std::string_view> parts) {
  if (parts.size() == 1) {
    Add(event_type, parts[0]);
    return;
  }
  Span span{event_type, static_cast<uint32_t>(parts.size()), data_.size(), 0, part_sizes_.size()};
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

  // Rebuild from `first` on: merged events are smaller than their parts, but
  // not in place (a later part may sit where the merge result would go).
  EventBatch rebuilt;
  rebuilt.data_.reserve(data_.size());
  rebuilt.data_.append(data_, 0, first < spans_.size() ? spans_[first].offset : data_.size());
  rebuilt.spans_.assign(spans_.begin(), spans_.begin() + static_cast<ptrdiff_t>(first));
  // Parts of multi-part events before `first` (left to the caller) come
  // before those of the first one merged here.
  rebuilt.part_sizes_.assign(part_sizes_.begin(),
                             part_sizes_.begin() +
                                 static_cast<ptrdiff_t>(spans_[first_multi].parts_begin));
  std::vector<std::string_view> parts;
  std::string merged;
  size_t failed = 0;
  for (size_t i = first; i < spans_.size(); ++i) {
    const Span& span = spans_[i];
    if (span.parts_count == 0) {
      rebuilt.Add(span.event_type, bytes(i));
      continue;
    }
    parts.clear();
    size_t offset = span.offset;
    for (size_t p = 0; p < span.parts_count; ++p) {
      const size_t size = part_sizes_[span.parts_begin + p];
      parts.emplace_back(std::string_view(data_).substr(offset, size));
      offset += size;
    }
    if (merger.Merge(parts, merged)) {
      rebuilt.Add(span.event_type, merged);
    } else {
      ++failed;
      for (const std::string_view part : parts) rebuilt.Add(span.event_type, part);
    }
  }
  *this = std::move(rebuilt);
  return failed;
}

}  // namespace rayagg
