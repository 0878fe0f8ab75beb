// Splits one stored event object into the JSON texts of its events, without
// holding more than the object and a window of its decompressed text:
//   - gzip or not by the content's magic bytes (the layout's `.gz` says the
//     same; a mislabelled object still reads);
//   - JSON Lines (our sink, KubeRay's collector): one event per non-blank line;
//   - a legacy JSON array (KubeRay's collector before v1.7): one event per
//     top-level element, found by scanning brackets and strings, so a huge
//     array is never parsed as one document.
// Which one: an object whose first non-blank byte is '[' opens with an
// array, whose elements are events. When only blanks follow the array's
// end, that was the object (a legacy array); when anything else follows,
// the object goes on as JSON Lines from the byte after the ']' (the rest
// of that line is one more text), so a JSON Lines object whose first line
// happens to be an array loses none of its other lines
// (docs/HISTORY.md, "Indexing").
// A line or element longer than `max_event_bytes` is skipped and counted; a
// gzip stream that breaks off keeps what came before it and reports why.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace rayagg::history {

struct DecodeResult {
  uint64_t texts = 0;      // JSON texts handed on
  uint64_t oversized = 0;  // lines/elements above max_event_bytes, skipped
  uint64_t decompressed_bytes = 0;
  std::string error;  // "" when the whole object was read
};

using JsonTextCallback = std::function<void(std::string_view json)>;

DecodeResult ForEachEventJson(std::string_view object_bytes, uint64_t max_event_bytes,
                              const JsonTextCallback& on_text);

}  // namespace rayagg::history
