#include "support/encoder_diff.h"

#include <nlohmann/json.hpp>

#include "json/fast_json_encoder.h"

namespace rayagg::testing {

EncoderPair::EncoderPair(JsonOptions options)
    : ours(MakeFastJsonEncoder(options)),
      ours_reflection_only(
          MakeFastJsonEncoder(options, {.parse_on_arena = false, .specialized = false})),
      oracle(MakeProtobufJsonEncoder(options)) {}

std::optional<std::string> DiffEncoder(EventJsonEncoder& encoder, EventJsonEncoder& oracle_encoder,
                                       std::string_view bytes) {
  // A non-empty prefix checks that each encoder appends and, on error,
  // leaves the buffer as it was.
  const std::string prefix = "[{\"x\":1},";
  std::string ours = prefix;
  std::string oracle;
  const absl::Status ours_status = encoder.AppendEvent(bytes, ours);
  const absl::Status oracle_status = oracle_encoder.AppendEvent(bytes, oracle);
  if (ours.compare(0, prefix.size(), prefix) != 0) return "our encoder clobbered the prefix";
  if (ours_status.ok() != oracle_status.ok()) {
    return "status differs: ours=" + ours_status.ToString() +
           " protobuf=" + oracle_status.ToString() + "\nours: " + ours.substr(prefix.size()) +
           "\nprotobuf: " + oracle;
  }
  if (!ours_status.ok()) {
    if (ours != prefix) return "our encoder failed but left output behind";
    return std::nullopt;
  }
  const std::string_view ours_json = std::string_view(ours).substr(prefix.size());
  nlohmann::json a = nlohmann::json::parse(ours_json, nullptr, /*allow_exceptions=*/false);
  nlohmann::json b = nlohmann::json::parse(oracle, nullptr, /*allow_exceptions=*/false);
  if (a.is_discarded()) return "our output is not valid JSON: " + std::string(ours_json);
  if (b.is_discarded()) return "protobuf's output is not valid JSON: " + oracle;
  if (a != b) {
    return "JSON differs\nours:     " + std::string(ours_json) + "\nprotobuf: " + oracle +
           "\npatch (protobuf -> ours): " + nlohmann::json::diff(b, a).dump();
  }
  return std::nullopt;
}

std::optional<std::string> DiffEncoders(EncoderPair& pair, std::string_view bytes) {
  if (auto diff = DiffEncoder(*pair.ours, *pair.oracle, bytes)) return "[specialized] " + *diff;
  if (auto diff = DiffEncoder(*pair.ours_reflection_only, *pair.oracle, bytes)) {
    return "[reflection only] " + *diff;
  }
  return std::nullopt;
}

}  // namespace rayagg::testing
