#include "common/url.h"

#include <cctype>

#include "absl/status/status.h"
#include "common/text.h"

namespace rayagg {
namespace {

// Quotes the URL with any credentials masked: URLs end up in logs.
absl::Status UrlError(std::string_view text, std::string_view what) {
  return absl::InvalidArgumentError(std::string(what) + ": '" + RedactUrl(text) + "'");
}

bool IsHostnameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_' ||
         c == '~';
}

bool IsIpv6LiteralChar(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':' || c == '.';
}

// Spaces and control characters would break the request line.
bool IsTargetChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u != 0x7f;
}

}  // namespace

std::string RedactUrl(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const size_t authority_begin = scheme_end + 3;
  const size_t authority_end = url.find_first_of("/?#", authority_begin);
  const std::string_view authority = url.substr(authority_begin, authority_end - authority_begin);
  const size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, authority_begin)) + "***@" +
         std::string(url.substr(authority_begin + at + 1));
}

absl::StatusOr<Url> ParseUrl(std::string_view text) {
  const size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) {
    return UrlError(text, "URL must start with http:// or https://");
  }
  Url url;
  url.scheme = strings::ToLower(text.substr(0, scheme_end));
  if (url.scheme == "http") {
    url.port = 80;
  } else if (url.scheme == "https") {
    url.port = 443;
  } else {
    return UrlError(text, "unsupported URL scheme '" + url.scheme + "' (want http or https)");
  }
  const uint16_t default_port = url.port;

  const std::string_view rest = text.substr(scheme_end + 3);
  const size_t authority_end = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, authority_end);
  std::string_view path_and_query =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (const size_t hash = path_and_query.find('#'); hash != std::string_view::npos) {
    path_and_query = path_and_query.substr(0, hash);
  }
  if (authority.find('@') != std::string_view::npos) {
    return UrlError(text, "user info in URLs is not supported");
  }

  std::string_view host;
  std::string_view after_host;  // ":port" or empty
  const bool ipv6 = !authority.empty() && authority.front() == '[';
  if (ipv6) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return UrlError(text, "unterminated IPv6 literal in URL");
    host = authority.substr(1, close - 1);
    after_host = authority.substr(close + 1);
    if (host.find(':') == std::string_view::npos) {
      return UrlError(text, "bracketed host must be an IPv6 address");
    }
    for (char c : host) {
      if (!IsIpv6LiteralChar(c)) return UrlError(text, "invalid IPv6 literal in URL");
    }
  } else {
    const size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    after_host = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
    for (char c : host) {
      if (!IsHostnameChar(c)) return UrlError(text, "invalid character in URL host");
    }
  }
  if (host.empty()) {
    return UrlError(text, "http URL needs a host, e.g. http://collector:8080/events");
  }
  url.host = std::string(host);

  if (!after_host.empty()) {
    if (after_host.front() != ':') return UrlError(text, "unexpected characters after URL host");
    const std::string_view port_text = after_host.substr(1);
    if (port_text.empty() || port_text.size() > 5) return UrlError(text, "bad port in URL");
    uint32_t port = 0;
    for (char c : port_text) {
      if (std::isdigit(static_cast<unsigned char>(c)) == 0)
        return UrlError(text, "bad port in URL");
      port = port * 10 + static_cast<uint32_t>(c - '0');
    }
    if (port == 0 || port > 65535) return UrlError(text, "bad port in URL");
    url.port = static_cast<uint16_t>(port);
  }

  for (char c : path_and_query) {
    if (!IsTargetChar(c)) return UrlError(text, "URL path contains a space or control character");
  }
  // Built by appending: g++ 12 -O3 warns falsely (-Wrestrict) on
  // "literal" + std::string concatenations here.
  if (path_and_query.empty() || path_and_query.front() == '?') url.target.push_back('/');
  url.target.append(path_and_query);

  if (ipv6) url.host_header.push_back('[');
  url.host_header.append(url.host);
  if (ipv6) url.host_header.push_back(']');
  if (url.port != default_port) url.host_header.append(":").append(std::to_string(url.port));
  return url;
}

}  // namespace rayagg
