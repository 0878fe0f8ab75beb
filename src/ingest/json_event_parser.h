// proto3 JSON -> protobuf message, straight from a parsed nlohmann::json
// value through reflection: the reverse of the form Ray's agent posts
// (docs/CONFIG.md "http_ingest", behaviour reference §7).
//
// Why not protobuf's JsonStringToMessage: with ignore_unknown_fields it also
// silently turns an unknown enum *name* into the default value, so an event
// from a newer Ray would enter the buffer with a wrong type or state instead
// of being reported; and it is slower (bench/json_ingest_bench.cc).
//
// Accepted, as protobuf's parser accepts them: lowerCamelCase or snake_case
// keys; unknown keys ignored; null = the field's default; 64-bit integers as
// strings or numbers; NaN/Infinity as strings; bytes in standard or URL-safe
// base64, padding optional; enums by name or number (an unknown number is
// kept, an unknown name is an error); Timestamp as RFC 3339; maps with
// string, integer or bool keys. Other well-known types go through protobuf's
// own parser.
#pragma once

#include <google/protobuf/message.h>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"

namespace rayagg {

// Fills `message` (which should be empty) from the JSON object `value`. On
// error the message is partly filled and the status names the field path
// (e.g. "taskDefinitionEvent.taskType: unknown enum value name"), never the
// event's contents.
absl::Status JsonToMessage(const nlohmann::json& value, google::protobuf::Message& message);

}  // namespace rayagg
