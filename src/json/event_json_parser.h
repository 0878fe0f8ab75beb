// proto3 JSON -> serialized RayEvents: what HTTP ingest does with the JSON
// arrays Ray's agent POSTs (docs/CONFIG.md "http_ingest"), and what the task
// history's indexer does with JSON Lines. The JSON is transcoded straight to
// the protobuf wire bytes the event log stores, without building messages:
// simdjson's On Demand iterator walks the text, field names and enum names
// are found in tables built once from the descriptors (json/wire_schema.h),
// and values are written as they are read (docs/JSON.md, "Parsing").
//
// Accepted, as protobuf's own parser accepts them: lowerCamelCase or
// snake_case keys; unknown keys ignored (their values must still be valid
// JSON); null = the field's default; 64-bit integers as strings or numbers;
// integers written as 1.0 or 1e3; NaN/Infinity/-Infinity as strings; bytes in
// standard or URL-safe base64, padding optional; enums by name or number (an
// unknown number is kept, an unknown name is an error); Timestamp as RFC 3339;
// maps with string, integer or bool keys. A key given twice is applied twice,
// in order (the last scalar wins, messages merge, repeated fields append),
// exactly as if the message had been filled field by field. Refused: the
// well-known types other than Timestamp (Ray's events use none), and JSON
// nested deeper than kMaxJsonDepth.
//
// An element that does not map to a RayEvent is rejected on its own, with a
// reason naming the field path ("taskLifecycleEvent.stateTransitions[0].state:
// unknown TaskStatus value \"HIBERNATING\"") and never the event's contents;
// the other elements are still parsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace rayagg {

// Deepest nesting of arrays and objects accepted in a body.
inline constexpr size_t kMaxJsonDepth = 1024;

// Spare capacity past the end of a body that lets ParseArray(std::string&)
// read it in place (HttpServerOptions::body_spare_bytes).
inline constexpr size_t kJsonSpareBytes = 64;

// The outcome of parsing: every element that maps to a RayEvent, as its
// serialized bytes (back to back in one buffer), and every other element as a
// rejection. Kept and reused across parses so that parsing allocates nothing
// per event once the buffers have grown.
class EventJsonBatch {
 public:
  struct Event {
    size_t index = 0;  // position of the element in the array (or the caller's index)
    size_t offset = 0;
    size_t size = 0;
  };
  struct Rejection {
    size_t index = 0;
    // The event type the element names (its "eventType"/"event_type" value)
    // when this build knows it, else 0. For counting drops per type.
    int32_t claimed_type = 0;
    std::string reason;
  };

  // Serialized ray.rpc.events.RayEvent; valid until the batch is changed.
  std::string_view bytes(const Event& event) const {
    return std::string_view(wire_.data() + event.offset, event.size);
  }
  std::span<const Event> events() const { return events_; }
  std::span<const Rejection> rejections() const { return rejections_; }
  size_t elements() const { return events_.size() + rejections_.size(); }
  void Clear();

 private:
  friend class EventJsonParser;
  std::string wire_;  // only the first wire_size_ bytes are used
  size_t wire_size_ = 0;
  std::vector<Event> events_;
  std::vector<Rejection> rejections_;
};

class WireSchema;

// One parser per thread; cheap to keep, it reuses its buffers.
class EventJsonParser {
 public:
  // For ray.rpc.events.RayEvent. The schema may be shared by parsers on
  // several threads; without one, the parser builds its own.
  EventJsonParser();
  explicit EventJsonParser(std::shared_ptr<const WireSchema> schema);
  ~EventJsonParser();
  EventJsonParser(const EventJsonParser&) = delete;
  EventJsonParser& operator=(const EventJsonParser&) = delete;

  // The RayEvent schema, to share between parsers.
  static std::shared_ptr<const WireSchema> RayEventSchema();

  // A body that must be a JSON array of RayEvents. Clears `out`, then fills
  // it in array order. InvalidArgument ("body is not valid JSON", "body is
  // not a JSON array of events") leaves `out` cleared: a body is accepted or
  // refused whole.
  absl::Status ParseArray(std::string_view body, EventJsonBatch& out);
  // The same without copying the body, which is padded in place when its
  // spare capacity is too small (simdjson reads a little past the end).
  absl::Status ParseArray(std::string& body, EventJsonBatch& out);

  // One JSON value (a line of JSON Lines), added to `out` as element `index`:
  // an event, or a rejection when it does not map to a RayEvent (also when
  // it is not an object). InvalidArgument ("not valid JSON") leaves `out`
  // as it was.
  absl::Status ParseOne(std::string_view json, size_t index, EventJsonBatch& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rayagg
