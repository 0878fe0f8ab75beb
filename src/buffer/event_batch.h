// Events copied out of the event log for one sink: one contiguous byte buffer
// plus a span per event, so reading a batch costs two allocations at most,
// not one per event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rayagg {

class EventBatch {
 public:
  void Add(int32_t event_type, std::string_view bytes) {
    spans_.push_back({event_type, data_.size(), bytes.size()});
    data_.append(bytes);
  }
  size_t size() const { return spans_.size(); }
  bool empty() const { return spans_.empty(); }
  int32_t event_type(size_t index) const { return spans_[index].event_type; }
  std::string_view bytes(size_t index) const {
    return std::string_view(data_).substr(spans_[index].offset, spans_[index].size);
  }
  size_t byte_size() const { return data_.size(); }
  void Clear() {
    spans_.clear();
    data_.clear();
  }

 private:
  struct Span {
    int32_t event_type;
    size_t offset;
    size_t size;
  };
  std::string data_;
  std::vector<Span> spans_;
};

}  // namespace rayagg
