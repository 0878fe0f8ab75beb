// Counts the top-level elements of a JSON array without parsing it: the
// benchmark sink must stay much faster than the daemon it measures.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rayagg::bench {

struct JsonArrayScan {
  bool is_array = false;  // the body starts with '[' and the scan reached its ']'
  uint64_t elements = 0;
  // The oldest RFC 3339 "timestamp" member of the top-level objects, in
  // nanoseconds since the Unix epoch; empty when no element has one.
  std::optional<int64_t> oldest_timestamp_ns;
};

// String-aware (escaped quotes, brackets inside strings) but not validating:
// malformed input gives some count, never a crash or an out-of-range read.
JsonArrayScan ScanJsonArray(std::string_view body);

// "2025-01-15T10:23:45.123456789Z" or with a "+01:00" offset; nanoseconds
// since the Unix epoch, empty if `text` is not in that form.
std::optional<int64_t> ParseRfc3339(std::string_view text);

}  // namespace rayagg::bench
