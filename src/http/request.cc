#include "http/request.h"

#include "absl/status/status.h"
#include "http/rules/http_header_rules.h"

#ifndef RAYAGG_VERSION
#error "RAYAGG_VERSION must be defined by the build (src/http/CMakeLists.txt)"
#endif

namespace rayagg {

const std::string_view kUserAgent = "ray-event-aggregator/" RAYAGG_VERSION;

absl::StatusOr<OutgoingHttpRequest> BuildPostRequest(const Url& url, std::string_view body,
                                                     const HttpHeaders& extra_headers) {
  OutgoingHttpRequest request{http::verb::post, url.target, 11};
  request.set(http::field::host, url.host_header);
  request.set(http::field::user_agent, ToBeast(kUserAgent));
  request.set(http::field::accept, "*/*");
  request.set(http::field::content_type, "application/json");
  for (const auto& [name, value] : extra_headers) {
    if (!IsValidHeaderName(name)) {
      return absl::InvalidArgumentError("invalid HTTP header name '" + name + "'");
    }
    if (!IsValidHeaderValue(value)) {
      return absl::InvalidArgumentError("HTTP header '" + name +
                                        "' has CR, LF or NUL in its value");
    }
    if (IsFramingHeader(name)) continue;
    request.set(name, value);
  }
  request.body() = {body.data(), body.size()};
  request.prepare_payload();
  return request;
}

OutgoingHttpRequest BuildGetRequest(const Url& url) {
  OutgoingHttpRequest request{http::verb::get, url.target, 11};
  request.set(http::field::host, url.host_header);
  request.set(http::field::user_agent, ToBeast(kUserAgent));
  request.set(http::field::accept, "*/*");
  return request;
}

}  // namespace rayagg
