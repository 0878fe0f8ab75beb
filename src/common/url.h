// Parsing of a sink's configured endpoint URL. The URL is POSTed to verbatim,
// as Ray's agent does with EVENTS_EXPORT_ADDR: nothing is appended to the path.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rayagg {

struct Url {
  std::string scheme;  // "http" or "https", lowercase
  // What to connect to: a hostname, an IPv4 address, or an IPv6 address
  // without brackets ("::1").
  std::string host;
  uint16_t port = 0;
  std::string target;       // path and query, "/" if the URL has no path
  std::string host_header;  // host[:port] for the Host header; the port only when not the default
};

// Accepts http://host[:port][/path][?query] (default port 80) and https://
// (default port 443; the client then speaks TLS, see http/tls_context.h). Hosts are
// hostnames, IPv4 addresses or bracketed IPv6 literals ("[::1]"). A fragment is
// dropped (it is never sent). Errors: other or missing schemes, user info,
// missing host, empty/non-numeric/out-of-range port, and characters that
// cannot appear in a request line.
absl::StatusOr<Url> ParseUrl(std::string_view text);

// The URL with any "user:password@" replaced by "***@", for log lines and
// error messages.
std::string RedactUrl(std::string_view url);

}  // namespace rayagg
