// Request bodies sent with Content-Encoding: gzip or deflate, decoded with a
// bound on the decoded size (a small compressed body can expand enormously).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rayagg {

// `encoding` is the Content-Encoding header value (case-insensitive; empty or
// "identity" = as is). Returns the decoded body, or:
//   InvalidArgument    the body is not valid data of that encoding;
//   ResourceExhausted  the decoded body would exceed `max_decoded_bytes`;
//   Unimplemented      an encoding other than gzip, x-gzip, deflate, identity.
// "deflate" accepts the zlib format (RFC 9110) and, as browsers do, raw deflate.
absl::StatusOr<std::string> DecodeContentEncoding(std::string_view encoding, std::string body,
                                                  uint64_t max_decoded_bytes);

}  // namespace rayagg
