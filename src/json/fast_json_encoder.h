// Our own proto3 -> JSON encoder (see docs/JSON.md): reflection over a parsed
// message, driven by per-descriptor "field plans" built once, writing straight
// into the caller's buffer. Output is semantically identical to protobuf's
// MessageToJsonString with always_print_primitive_fields (the differential
// tests in tests/unit/json check it).
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "rayagg/event_json_encoder.h"

namespace google::protobuf {
class Descriptor;
class Message;
}  // namespace google::protobuf

namespace rayagg {

// Knobs for benchmarks; the defaults are what the daemon uses.
struct FastJsonEncoderTuning {
  // Parse each event on an arena (64 KiB first block, kept) reset per event;
  // false: Clear() and re-parse one reused message. The arena measured ~10%
  // faster on the benchmark mix (map nodes are not malloc'ed and freed).
  bool parse_on_arena = true;
  // Hand-specialized encoders over the generated classes for the hottest
  // messages (RayEvent, task definition/lifecycle); false: reflection only.
  bool specialized = true;
};

std::unique_ptr<EventJsonEncoder> MakeFastJsonEncoder(JsonOptions options,
                                                      FastJsonEncoderTuning tuning);

// Encodes any message whose type is supported (proto3 messages, Timestamp as
// the only well-known type) without parsing: the generic entry point the
// tests and fuzzer also use. Plans are built on first use per descriptor; one
// instance is not thread-safe.
class MessageJsonWriter {
 public:
  // `specialize`: use the hand-specialized encoders for generated messages
  // (specialized_encoders.inc) where they apply.
  explicit MessageJsonWriter(JsonOptions options, bool specialize = true);
  ~MessageJsonWriter();
  MessageJsonWriter(const MessageJsonWriter&) = delete;
  MessageJsonWriter& operator=(const MessageJsonWriter&) = delete;

  // False if the type (or one reachable from it) uses a well-known type the
  // writer does not implement (Any, Struct, Duration, wrappers, ...).
  bool Supports(const google::protobuf::Descriptor* descriptor);

  // Appends the JSON object of `message` to `out`; on error (a Timestamp out
  // of RFC 3339 range, like protobuf's printer) `out` is left as it was.
  // Takes a mutable message only because protobuf's map iterators need one;
  // the message is not modified.
  absl::Status Append(google::protobuf::Message& message, std::string& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rayagg
