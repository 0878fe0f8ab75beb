// Where the spool writer gets the bytes it writes: the event log's memory,
// which holds every record as it will be on disk (header and payload) in
// one stream, in the order the log accepted them. Positions are byte
// offsets in that stream since the log started.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace rayagg::spool {

class RecordSource {
 public:
  virtual ~RecordSource() = default;

  // Appends to `pieces` views of the stream's bytes from `from` towards
  // `to`, stopping once at least `max_bytes` are collected; each view
  // starts and ends at a record boundary. Returns the position of the first
  // byte collected: `from`, or later when memory no longer holds the bytes
  // before it (they were dropped while the spool was down). The views stay
  // valid until the spool reports the bytes durable. Thread-safe.
  virtual uint64_t CollectRecords(uint64_t from, uint64_t to, uint64_t max_bytes,
                                  std::vector<std::string_view>& pieces) = 0;
};

}  // namespace rayagg::spool
