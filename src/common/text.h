// Small string helpers for messages. This machine's Abseil is built with its
// own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0), so absl::StrCat
// and friends reject std::string_view; these take the std types directly.
#pragma once

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"

namespace rayagg::strings {

inline void AppendPart(std::string& out, std::string_view part) { out.append(part); }
inline void AppendPart(std::string& out, const char* part) { out.append(part); }
inline void AppendPart(std::string& out, const std::string& part) { out.append(part); }
// absl::Status::message() returns absl::string_view.
inline void AppendPart(std::string& out, absl::string_view part) {
  out.append(part.data(), part.size());
}
inline void AppendPart(std::string& out, char part) { out.push_back(part); }
template <std::integral T>
requires(!std::same_as<T, char> && !std::same_as<T, bool>) void AppendPart(std::string& out,
                                                                           T part) {
  out.append(std::to_string(part));
}
// Shortest text that reads back as the same double: 0.1, not 0.100000.
inline void AppendPart(std::string& out, double part) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), part);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

// absl::Status::message() as a std::string_view.
inline std::string_view View(absl::string_view text) { return {text.data(), text.size()}; }

template <typename... Parts>
std::string Cat(const Parts&... parts) {
  std::string out;
  (AppendPart(out, parts), ...);
  return out;
}

template <typename... Parts>
void Append(std::string& out, const Parts&... parts) {
  (AppendPart(out, parts), ...);
}

template <typename Range>
std::string Join(const Range& items, std::string_view separator) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(separator);
    AppendPart(out, item);
    first = false;
  }
  return out;
}

// Views into `text`, one per `separator`-delimited piece (empty pieces kept).
std::vector<std::string_view> Split(std::string_view text, char separator);

// Without leading and trailing blanks (space, \t, \n, \r, \f, \v).
std::string_view StripBlanks(std::string_view text);
// Without leading and trailing characters from `blanks`, for rules narrower
// than the default (HTTP's optional whitespace is only space and tab).
std::string_view StripBlanks(std::string_view text, std::string_view blanks);

// '0' to '9' only, whatever the locale (std::isdigit depends on it).
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string ToLower(std::string_view text);
std::string ToUpper(std::string_view text);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace rayagg::strings
