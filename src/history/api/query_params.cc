#include "history/api/query_params.h"

namespace rayagg::history {
namespace {

absl::StatusOr<std::string> Decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%') {
      const int high = i + 1 < text.size() ? hex(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? hex(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return absl::InvalidArgumentError("query string has a bad percent escape");
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string_view TargetPath(std::string_view target) { return target.substr(0, target.find('?')); }

absl::StatusOr<QueryParams> QueryParams::FromTarget(std::string_view target) {
  QueryParams params;
  const size_t question = target.find('?');
  if (question == std::string_view::npos) return params;
  std::string_view query = target.substr(question + 1);
  const size_t fragment = query.find('#');
  if (fragment != std::string_view::npos) query = query.substr(0, fragment);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    absl::StatusOr<std::string> key = Decode(pair.substr(0, eq));
    absl::StatusOr<std::string> value =
        Decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
    if (!key.ok()) return key.status();
    if (!value.ok()) return value.status();
    params.items_.emplace_back(std::move(*key), std::move(*value));
  }
  return params;
}

std::optional<std::string> QueryParams::Get(std::string_view key) const {
  for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
    if (it->first == key) return it->second;
  }
  return std::nullopt;
}

void QueryParams::Remove(std::string_view key) {
  std::erase_if(items_, [&](const auto& item) { return item.first == key; });
}

void QueryParams::Set(std::string_view key, std::string value) {
  Remove(key);
  items_.emplace_back(std::string(key), std::move(value));
}

std::vector<std::string> QueryParams::All(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : items_) {
    if (k == key) out.push_back(v);
  }
  return out;
}

}  // namespace rayagg::history
