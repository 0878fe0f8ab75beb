#include "sinks/outgoing_batch.h"

namespace rayagg {

OutgoingBatch OutgoingBatch::Slice(size_t first, size_t last) const {
  OutgoingBatch slice;
  const size_t from = begins[first];
  const size_t to = ends[last - 1];
  slice.body.reserve(to - from + 2);
  slice.body.push_back('[');
  slice.body.append(body, from, to - from);
  slice.body.push_back(']');
  for (size_t i = first; i < last; ++i) {
    slice.begins.push_back(begins[i] - from + 1);
    slice.ends.push_back(ends[i] - from + 1);
    slice.types.push_back(types[i]);
    slice.received.push_back(received[i]);
    slice.positions.push_back(positions[i]);
  }
  slice.range.begin = first == 0 ? range.begin : positions[first];
  slice.range.end = last == size() ? range.end : positions[last];
  return slice;
}

void OutgoingBatch::Clear() {
  body.clear();
  begins.clear();
  ends.clear();
  types.clear();
  received.clear();
  positions.clear();
  range = {};
}

}  // namespace rayagg
