// What may go into an HTTP header, checked both when the config is loaded
// (sinks[i].headers) and when a request is built, so a header the config
// accepted can never fail a request later.
#pragma once

#include <string_view>

namespace rayagg {

// RFC 9110 field-name: a non-empty token.
bool IsValidHeaderName(std::string_view name);

// No CR, LF or NUL (header injection / request smuggling).
bool IsValidHeaderValue(std::string_view value);

// Content-Length and Transfer-Encoding: always derived from the body.
bool IsFramingHeader(std::string_view name);

}  // namespace rayagg
