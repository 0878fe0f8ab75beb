#include "history/index/read_failures.h"

#include <nlohmann/json.hpp>

namespace rayagg::history {

std::optional<AbandonReason> FinalReadFailure(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      return AbandonReason::kNotFound;
    case absl::StatusCode::kResourceExhausted:  // the store's own max_bytes check
      return AbandonReason::kTooLarge;
    case absl::StatusCode::kInvalidArgument:
      return AbandonReason::kInvalidKey;
    default:
      return std::nullopt;
  }
}

bool PrefixOnlyListFailure(const absl::Status& status) {
  const absl::StatusCode code = status.code();
  return code == absl::StatusCode::kInvalidArgument ||
         code == absl::StatusCode::kPermissionDenied || code == absl::StatusCode::kNotFound;
}

std::string Escaped(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '\\') {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
  return out;
}

RetryCounts DecodeRetryCounts(std::string_view text) {
  RetryCounts counts;
  if (text.empty()) return counts;
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return counts;
  for (const auto& [key, value] : parsed.items()) {
    if (value.is_number_unsigned()) counts[key] = value.get<uint32_t>();
  }
  return counts;
}

std::string EncodeRetryCounts(const RetryCounts& counts) {
  if (counts.empty()) return "";
  nlohmann::json out = nlohmann::json::object();
  // Keys are store keys: any bytes. Invalid UTF-8 is replaced, not thrown.
  for (const auto& [key, tries] : counts) out[key] = tries;
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace rayagg::history
