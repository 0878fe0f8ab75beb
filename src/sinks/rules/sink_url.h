// The destinations a sink URL may name, checked at load time so a sink
// never starts with an address it cannot use. http:// URLs are parsed by
// common/url.h (ParseUrl) and the result is what the HTTP sink connects to.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/url.h"

namespace rayagg {

struct SinkUrl {
  enum class Kind { kHttp, kFile };  // kHttp covers https (see http.scheme)
  Kind kind = Kind::kHttp;
  // kHttp: the parsed endpoint, ready for the HTTP client.
  Url http;
  // kFile: absolute path, e.g. "/dev/stdout".
  std::string path;
};

// Accepts http(s)://host[:port][/path][?query] (scheme in any case) and
// file:///absolute/path. User info ("user:pass@") is refused: credentials do not belong in a
// URL that is logged.
absl::StatusOr<SinkUrl> ParseSinkUrl(std::string_view url);

}  // namespace rayagg
