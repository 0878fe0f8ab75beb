#include "http/rules/http_header_rules.h"

#include <algorithm>
#include <cctype>

#include "common/text.h"

namespace rayagg {
namespace {

// RFC 9110 tchar.
bool IsTokenChar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c)) != 0) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

}  // namespace

bool IsValidHeaderName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), IsTokenChar);
}

bool IsValidHeaderValue(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

bool IsFramingHeader(std::string_view name) {
  const std::string lower = strings::ToLower(name);
  return lower == "content-length" || lower == "transfer-encoding";
}

}  // namespace rayagg
