// The destinations a sink URL may name, checked at load time so a sink
// never starts with an address it cannot use. The http:// rules match
// common/url.h (ParseUrl), which the HTTP sink uses at run time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/url.h"

namespace rayagg {

struct SinkUrl {
  enum class Kind { kHttp, kFile };
  Kind kind = Kind::kHttp;
  // kHttp: host without brackets ("::1" for "[::1]"), port (80 when absent)
  // and the request target ("/" when the URL has no path), query included.
  std::string host;
  uint16_t port = 80;
  std::string target;
  // kFile: absolute path, e.g. "/dev/stdout".
  std::string path;
};

// Accepts http://host[:port][/path][?query] (scheme in any case) and
// file:///absolute/path. https:// is refused until TLS lands; the error says
// so. User info ("user:pass@") is refused: credentials do not belong in a
// URL that is logged.
absl::StatusOr<SinkUrl> ParseSinkUrl(std::string_view url);

}  // namespace rayagg
