// The HTTP ingest parser before issue 17 (nlohmann_json SAX events driving
// protobuf reflection), kept unchanged as the baseline of
// rayagg-json-ingest-bench and as the oracle of the differential tests of
// json/event_json_parser.h, which must answer exactly as it did.
//
// proto3 JSON -> protobuf messages through reflection. ParseEventArray parses
// a whole body in one SAX pass; JsonToMessage converts one already parsed
// value (DOM), and the two agree element for element.
//
// Accepted, as protobuf's parser accepts them: lowerCamelCase or snake_case
// keys; unknown keys ignored; null = the field's default; 64-bit integers as
// strings or numbers; NaN/Infinity as strings; bytes in standard or URL-safe
// base64, padding optional; enums by name or number (an unknown number is
// kept, an unknown name is an error); Timestamp as RFC 3339; maps with
// string, integer or bool keys. Other well-known types go through protobuf's
// own parser in JsonToMessage and are refused by ParseEventArray.
#pragma once

#include <google/protobuf/message.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace ray::rpc::events {
class RayEvent;
}

namespace rayagg::legacy {

// What ParseEventArray reports, element by element, in array order.
struct EventArrayCallbacks {
  // Element `index` parsed; `event` is reused for the next element.
  std::function<void(size_t index, ray::rpc::events::RayEvent& event)> on_event;
  // Element `index` does not map to a RayEvent: `claimed_type` is the event
  // type it names when this build knows it, else 0; `reason` as JsonToMessage
  // words it.
  std::function<void(size_t index, int32_t claimed_type, std::string reason)> on_error;
};

// Parses a body that must be a JSON array of RayEvents in one pass, without
// building a DOM (nlohmann_json's SAX interface), with JsonToMessage's rules
// for each element. Returns InvalidArgument when the body is not valid JSON
// or not an array; callbacks made before such an error must then be
// disregarded (a truncated body is noticed only at its end).
absl::Status ParseEventArray(std::string_view body, const EventArrayCallbacks& callbacks);

// Fills `message` (which should be empty) from the JSON object `value`. On
// error the message is partly filled and the status names the field path
// (e.g. "taskDefinitionEvent.taskType: unknown enum value name"), never the
// event's contents.
absl::Status JsonToMessage(const nlohmann::json& value, google::protobuf::Message& message);

}  // namespace rayagg::legacy
