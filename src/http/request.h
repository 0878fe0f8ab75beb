// The POST request a sink sends: pure construction, no I/O, so header rules
// are unit-testable without sockets.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/url.h"
#include "rayagg/asio.h"

namespace rayagg {

// "ray-event-aggregator/<project version>".
extern const std::string_view kUserAgent;

// Beast 1.74 uses boost::string_view, which does not convert from std::string_view.
inline beast::string_view ToBeast(std::string_view text) { return {text.data(), text.size()}; }

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// A request whose body is a view of the caller's bytes: a sink's batch body
// (hundreds of KiB) is sent from where it was encoded, never copied.
using OutgoingHttpRequest = http::request<http::span_body<const char>>;

// POST url.target HTTP/1.1 with Host, User-Agent, Accept: */*,
// Content-Type: application/json and Content-Length. `extra_headers` are
// applied afterwards and replace a default of the same name (e.g. another
// Content-Type); Content-Length and Transfer-Encoding are always derived from
// the body, which must outlive the request. A header name that is not an HTTP token, or a value
// containing CR, LF or NUL (header injection), is an InvalidArgument error.
absl::StatusOr<OutgoingHttpRequest> BuildPostRequest(const Url& url, std::string_view body,
                                                     const HttpHeaders& extra_headers);

// GET url.target HTTP/1.1 with Host, User-Agent and Accept: */* (probe mode).
OutgoingHttpRequest BuildGetRequest(const Url& url);

}  // namespace rayagg
