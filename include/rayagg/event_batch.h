// Events copied out of the event log for one sink: one contiguous byte buffer
// plus a span per event, so reading a batch costs two allocations at most,
// not one per event. Each event keeps its log position (the sequence of the
// log entry it came from), so a sink can release exactly what it delivered
// (rayagg/event_reader.h).
//
// An event the log has coalesced but nobody has merged yet arrives as its
// parts (AddParts); MergeParts turns those into single events outside the
// log's lock. Only bytes() of a single-part event may be read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rayagg/event_merger.h"

namespace rayagg {

class EventBatch {
 public:
  // `received` is how many received events this one stands for (more than
  // one once coalesced), so that a drop counts them all.
  void Add(uint64_t position, int32_t event_type, std::string_view bytes, uint32_t received = 1) {
    spans_.push_back({event_type, 0, received, position, data_.size(), bytes.size()});
    data_.append(bytes);
  }

  // Adds one event made of `parts` (received in that order) still to be
  // merged; it stands for parts.size() received events.
  void AddParts(uint64_t position, int32_t event_type, std::span<const std::string_view> parts);

  // Replaces every multi-part event from `first` on by its merge. Parts the
  // merger refuses stay separate events, in order, so nothing is lost; they
  // keep the entry's position (positions are then not unique).
  // Returns how many merges failed that way.
  size_t MergeParts(size_t first, EventMerger& merger);

  size_t size() const { return spans_.size(); }
  bool empty() const { return spans_.empty(); }
  int32_t event_type(size_t index) const { return spans_[index].event_type; }
  uint32_t received_count(size_t index) const { return spans_[index].received; }
  uint64_t position(size_t index) const { return spans_[index].position; }
  // Parts of the event (1 unless it awaits MergeParts).
  size_t part_count(size_t index) const {
    return spans_[index].parts_count == 0 ? 1 : spans_[index].parts_count;
  }
  std::string_view bytes(size_t index) const {
    return std::string_view(data_).substr(spans_[index].offset, spans_[index].size);
  }
  size_t byte_size() const { return data_.size(); }
  void Clear() {
    spans_.clear();
    part_sizes_.clear();
    data_.clear();
  }

 private:
  struct Span {
    int32_t event_type;
    // 0: a single event. Otherwise the event is `parts_count` parts stored
    // back to back from `offset`, their sizes in part_sizes_ from
    // `parts_begin`.
    uint32_t parts_count;
    uint32_t received;
    uint64_t position;
    size_t offset;
    size_t size;
    size_t parts_begin = 0;
  };
  std::string data_;
  std::vector<Span> spans_;
  std::vector<size_t> part_sizes_;
  // MergeParts' scratch, kept for its capacity.
  std::string scratch_data_;
  std::vector<Span> scratch_spans_;
  std::vector<size_t> scratch_part_sizes_;
  std::vector<std::string_view> parts_;
  std::string merged_;
};

}  // namespace rayagg
