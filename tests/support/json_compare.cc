#include "support/json_compare.h"

#include <google/protobuf/util/json_util.h>

#include <string>

namespace rayagg::test {
namespace {

constexpr size_t kQuoteLimit = 300;  // keeps failure messages readable

std::string Excerpt(std::string_view text) {
  if (text.size() <= kQuoteLimit) return std::string(text);
  return std::string(text.substr(0, kQuoteLimit)) + "... (" + std::to_string(text.size()) +
         " bytes)";
}

// A parse that reports instead of throwing, so each caller decides how to fail.
bool TryParse(std::string_view text, nlohmann::json& out, std::string& error) {
  try {
    out = nlohmann::json::parse(text.begin(), text.end());
    return true;
  } catch (const nlohmann::json::parse_error& e) {
    error = e.what();
    return false;
  }
}

}  // namespace

nlohmann::json ParseJson(std::string_view text) {
  nlohmann::json value;
  std::string error;
  if (!TryParse(text, value, error)) {
    ADD_FAILURE() << "not valid JSON: " << error << "\n  text: " << Excerpt(text);
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  return value;
}

::testing::AssertionResult JsonEquivalent(const nlohmann::json& actual,
                                          const nlohmann::json& expected) {
  // nlohmann's operator== compares objects as maps (key order is irrelevant)
  // and integers with floating-point numbers by value.
  if (actual == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "JSON differs; patch from expected to actual: "
                                       << Excerpt(nlohmann::json::diff(expected, actual).dump())
                                       << "\n  expected: " << Excerpt(expected.dump())
                                       << "\n  actual:   " << Excerpt(actual.dump());
}

::testing::AssertionResult JsonEquivalent(std::string_view actual, std::string_view expected) {
  nlohmann::json actual_value;
  nlohmann::json expected_value;
  std::string error;
  if (!TryParse(actual, actual_value, error)) {
    return ::testing::AssertionFailure()
           << "actual is not valid JSON: " << error << "\n  text: " << Excerpt(actual);
  }
  if (!TryParse(expected, expected_value, error)) {
    return ::testing::AssertionFailure()
           << "expected is not valid JSON: " << error << "\n  text: " << Excerpt(expected);
  }
  return JsonEquivalent(actual_value, expected_value);
}

std::string ProtobufPrinterJson(const google::protobuf::Message& message,
                                bool preserve_proto_field_names) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.always_print_enums_as_ints = false;
  options.preserve_proto_field_names = preserve_proto_field_names;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok())
    ADD_FAILURE() << "MessageToJsonString failed: " << std::string(status.message());
  return json;
}

std::vector<nlohmann::json> JsonArrayElements(std::string_view body) {
  nlohmann::json value = ParseJson(body);
  if (value.is_discarded()) return {};
  if (!value.is_array()) {
    ADD_FAILURE() << "body is not a JSON array: " << Excerpt(body);
    return {};
  }
  std::vector<nlohmann::json> elements;
  elements.reserve(value.size());
  for (auto& element : value) elements.push_back(std::move(element));
  return elements;
}

}  // namespace rayagg::test
