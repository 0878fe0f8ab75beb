// The differential check shared by the unit tests and the fuzzer: encode one
// serialized RayEvent with our encoder and with protobuf's printer, parse both
// and compare. No gtest, so the fuzz target can use it. Compiled once in
// rayagg_json_test_support at the preset's optimisation level: test files are
// compiled at -O0 (cmake/TestCode.cmake), and nlohmann's parser at -O0 made
// json_differential_test spend most of its time parsing.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "rayagg/event_json_encoder.h"

namespace rayagg::testing {

struct EncoderPair {
  explicit EncoderPair(JsonOptions options);
  std::unique_ptr<EventJsonEncoder> ours;                  // the default
  std::unique_ptr<EventJsonEncoder> ours_reflection_only;  // no specializations, no arena
  std::unique_ptr<EventJsonEncoder> oracle;
};

// Returns a description of the difference, or nullopt when both encoders
// agree: both fail, or both succeed with JSON values that compare equal
// (nlohmann::json: object key order ignored, numbers compared by value —
// doubles exactly; 64-bit integers are strings on both sides).
std::optional<std::string> DiffEncoder(EventJsonEncoder& encoder, EventJsonEncoder& oracle_encoder,
                                       std::string_view bytes);

// DiffEncoder for both of our encoders against the oracle.
std::optional<std::string> DiffEncoders(EncoderPair& pair, std::string_view bytes);

}  // namespace rayagg::testing
