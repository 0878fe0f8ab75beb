#include "history/api/param_parsing.h"

#include <algorithm>
#include <charconv>

#include "common/text.h"
#include "history/index/index_writer.h"

namespace rayagg::history {
std::string PrintableText(std::string_view text, size_t max_chars) {
  std::string out;
  for (const char c : text.substr(0, max_chars)) {
    out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  }
  return out;
}

absl::StatusOr<int64_t> ParseIntParam(std::string_view name, std::string_view text, int64_t min,
                                      int64_t max) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return BadParameter(strings::Cat(name, ": expected an integer from ", min, " to ", max));
  }
  return value;
}

absl::StatusOr<int64_t> IntParam(const QueryParams& params, std::string_view name, int64_t fallback,
                                 int64_t min, int64_t max) {
  std::optional<std::string> text = params.Get(name);
  if (!text) return fallback;
  return ParseIntParam(name, *text, min, max);
}

absl::StatusOr<double> ParseMillisParam(std::string_view name, std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  // At most what int64 nanoseconds hold (about 292 years), as the value is
  // compared with them.
  if (ec != std::errc() || end != text.data() + text.size() || !(value >= 0) || value > 9e12) {
    return BadParameter(strings::Cat(name, ": expected a non-negative number of milliseconds"));
  }
  return value;
}

absl::StatusOr<bool> BoolParam(const QueryParams& params, std::string_view name, bool fallback) {
  std::optional<std::string> value = params.Get(name);
  if (!value) return fallback;
  const std::string lower = strings::ToLower(*value);
  if (lower == "1" || lower == "true") return true;
  if (lower == "0" || lower == "false") return false;
  return BadParameter(strings::Cat(name, ": expected true or false"));
}

absl::StatusOr<std::string> HexIdParam(const QueryParams& params, std::string_view name) {
  std::optional<std::string> value = params.Get(name);
  if (!value || value->empty()) return BadParameter(strings::Cat(name, ": required"));
  if (!BytesFromHex(*value)) return BadParameter(strings::Cat(name, ": expected a hex id"));
  return strings::ToLower(*value);
}

std::vector<std::string> CommaListParam(const QueryParams& params, std::string_view name) {
  std::vector<std::string> out;
  for (const std::string& value : params.All(name)) {
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      if (comma > start) out.push_back(value.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

absl::Status RequireKnownParams(const QueryParams& params,
                                const std::vector<std::string_view>& known) {
  for (const auto& [key, value] : params.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return BadParameter(strings::Cat("unknown parameter ", PrintableText(key)));
    }
  }
  return absl::OkStatus();
}

absl::Status RequireKnownParams(const QueryParams& params,
                                std::initializer_list<std::string_view> known) {
  return RequireKnownParams(params, std::vector<std::string_view>(known));
}

}  // namespace rayagg::history
