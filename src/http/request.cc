#include "http/request.h"

#include <algorithm>
#include <cctype>

#include "absl/status/status.h"

#ifndef RAYAGG_VERSION
#error "RAYAGG_VERSION must be defined by the build (src/http/CMakeLists.txt)"
#endif

namespace rayagg {

const std::string_view kUserAgent = "ray-event-aggregator/" RAYAGG_VERSION;

namespace {

// RFC 9110 tchar.
bool IsTokenChar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c)) != 0) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsValidName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), IsTokenChar);
}

bool IsValidValue(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// Beast 1.74 uses boost::string_view, which does not convert from std::string_view.
beast::string_view ToBeast(std::string_view text) { return {text.data(), text.size()}; }

bool IsFramingHeader(std::string_view name) {
  return beast::iequals(ToBeast(name), "content-length") ||
         beast::iequals(ToBeast(name), "transfer-encoding");
}

}  // namespace

absl::StatusOr<http::request<http::string_body>> BuildPostRequest(
    const Url& url, std::string body, const HttpHeaders& extra_headers) {
  http::request<http::string_body> request{http::verb::post, url.target, 11};
  request.set(http::field::host, url.host_header);
  request.set(http::field::user_agent, ToBeast(kUserAgent));
  request.set(http::field::accept, "*/*");
  request.set(http::field::content_type, "application/json");
  for (const auto& [name, value] : extra_headers) {
    if (!IsValidName(name)) {
      return absl::InvalidArgumentError("invalid HTTP header name '" + name + "'");
    }
    if (!IsValidValue(value)) {
      return absl::InvalidArgumentError("HTTP header '" + name +
                                        "' has CR, LF or NUL in its value");
    }
    if (IsFramingHeader(name)) continue;
    request.set(name, value);
  }
  request.body() = std::move(body);
  request.prepare_payload();
  return request;
}

}  // namespace rayagg
