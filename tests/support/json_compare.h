// Semantic JSON comparison for tests: two texts are equal when they parse to
// the same value, whatever the key order, whitespace or number spelling
// (1 == 1.0 == 1e0), which protobuf's printer and an encoder of our own may
// legitimately choose differently.
#pragma once

#include <google/protobuf/message.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace rayagg::test {

// Parses `text`; a parse error fails the calling test with the error and the
// start of the text, and yields a discarded value (never equal to anything).
nlohmann::json ParseJson(std::string_view text);

// Success when `actual` and `expected` parse to equal values. On failure the
// message holds both texts' parse errors or a JSON patch from expected to
// actual, so the differing key paths are visible.
::testing::AssertionResult JsonEquivalent(std::string_view actual, std::string_view expected);
::testing::AssertionResult JsonEquivalent(const nlohmann::json& actual,
                                          const nlohmann::json& expected);

// What Ray's agent posts for `message`: protobuf's MessageToJsonString with
// always_print_primitive_fields, enum names (numbers for values unknown to
// the schema) and lowerCamelCase keys unless `preserve_proto_field_names`.
// Fails the calling test if the printer fails.
std::string ProtobufPrinterJson(const google::protobuf::Message& message,
                                bool preserve_proto_field_names = false);

// The elements of a POST body that must be a JSON array. Anything else fails
// the calling test and yields an empty vector.
std::vector<nlohmann::json> JsonArrayElements(std::string_view body);

}  // namespace rayagg::test
