// Reading a request's Accept-Encoding (RFC 9110 §12.5.3) for the one coding
// the server sends: gzip.
#pragma once

#include <string_view>

namespace rayagg {

// Whether a response may be gzip'd for a request with this Accept-Encoding
// value: "gzip" (or "x-gzip") listed with a weight above 0, or "*" above 0
// without gzip listed. Empty or absent: no (identity is always safe).
bool AcceptsGzip(std::string_view accept_encoding);

}  // namespace rayagg
