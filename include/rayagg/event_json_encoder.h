// RayEvent -> JSON, the form Ray's agent posts (proto3 JSON with fields
// without presence printed, enum names, lowerCamelCase keys unless names are
// preserved). The interface takes the serialized event so that an encoder may
// work straight from the wire bytes without building a message.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace rayagg {

struct JsonOptions {
  // snake_case proto field names (Ray's ..._PRESERVE_PROTO_FIELD_NAME=1).
  bool preserve_proto_field_names = false;
};

class EventJsonEncoder {
 public:
  virtual ~EventJsonEncoder() = default;

  // Appends the JSON object for one serialized ray.rpc.events.RayEvent to
  // `out`; on error `out` is left as it was. Not thread-safe: one per sink.
  virtual absl::Status AppendEvent(std::string_view serialized_event, std::string& out) = 0;
};

// protobuf's own printer (MessageToJsonString). Correct and slow; the oracle
// for faster encoders.
std::unique_ptr<EventJsonEncoder> MakeProtobufJsonEncoder(JsonOptions options);

// Our own encoder (json/fast_json_encoder.h, docs/JSON.md): same JSON values,
// about an order of magnitude faster. The daemon's default.
std::unique_ptr<EventJsonEncoder> MakeFastJsonEncoder(JsonOptions options);

}  // namespace rayagg
