#include "config/sink_url.h"

#include <charconv>

#include "config/text.h"

namespace rayagg {

namespace {

absl::Status Invalid(std::string_view url, std::string_view why) {
  return absl::InvalidArgumentError(strings::Cat(why, "; got \"", RedactUrl(url), "\""));
}

bool IsHostnameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

bool IsIpv6Char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' ||
         c == '.';
}

// Spaces and control characters would break the HTTP request line.
bool IsTargetChar(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte > 0x20 && byte != 0x7f;
}

absl::StatusOr<SinkUrl> ParseHttp(std::string_view url, std::string_view rest) {
  const size_t authority_end = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, authority_end);
  std::string_view target =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  target = target.substr(0, target.find('#'));  // a fragment is never sent

  if (authority.find('@') != std::string_view::npos) {
    return Invalid(url, "user info (user:password@) in sink URLs is not supported");
  }
  SinkUrl parsed;
  std::string_view after_host;  // ":port" or empty
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Invalid(url, "unterminated IPv6 address in URL");
    const std::string_view host = authority.substr(1, close - 1);
    if (host.find(':') == std::string_view::npos)
      return Invalid(url, "a bracketed host must be an IPv6 address");
    for (char c : host) {
      if (!IsIpv6Char(c)) return Invalid(url, "invalid IPv6 address in URL");
    }
    parsed.host = std::string(host);
    after_host = authority.substr(close + 1);
  } else {
    const size_t colon = authority.find(':');
    const std::string_view host = authority.substr(0, colon);
    for (char c : host) {
      if (!IsHostnameChar(c)) return Invalid(url, "invalid character in URL host");
    }
    parsed.host = std::string(host);
    after_host = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
  }
  if (parsed.host.empty())
    return Invalid(url, "http URL needs a host, e.g. http://collector:8080/events");
  if (!after_host.empty()) {
    if (after_host.front() != ':') return Invalid(url, "unexpected characters after the URL host");
    const std::string_view port_text = after_host.substr(1);
    unsigned port = 0;
    auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (port_text.empty() || ec != std::errc() || ptr != port_text.data() + port_text.size() ||
        port == 0 || port > 65535) {
      return Invalid(url, "URL port must be a number from 1 to 65535");
    }
    parsed.port = static_cast<uint16_t>(port);
  }
  for (char c : target) {
    if (!IsTargetChar(c)) return Invalid(url, "URL path contains a space or control character");
  }
  parsed.kind = SinkUrl::Kind::kHttp;
  parsed.target =
      target.empty() || target.front() == '?' ? strings::Cat("/", target) : std::string(target);
  return parsed;
}

absl::StatusOr<SinkUrl> ParseFile(std::string_view url, std::string_view rest) {
  // Only the empty authority is accepted: file://host/path names another
  // machine, and file://relative/path is a common typo for a relative path.
  if (!rest.starts_with('/') || rest.size() < 2) {
    return Invalid(url,
                   "file URL needs an absolute path, e.g. file:///var/log/ray-events.jsonl or "
                   "file:///dev/stdout");
  }
  SinkUrl parsed;
  parsed.kind = SinkUrl::Kind::kFile;
  parsed.path = std::string(rest);
  return parsed;
}

}  // namespace

absl::StatusOr<SinkUrl> ParseSinkUrl(std::string_view url) {
  if (url.empty()) {
    return absl::InvalidArgumentError(
        "must not be empty; use http://host:port/path or file:///path");
  }
  const size_t scheme_end = url.find("://");
  const std::string scheme =
      scheme_end == std::string_view::npos ? "" : strings::ToLower(url.substr(0, scheme_end));
  const std::string_view rest =
      scheme_end == std::string_view::npos ? "" : url.substr(scheme_end + 3);
  if (scheme == "http") return ParseHttp(url, rest);
  // The file sink matches "file://" exactly, so only the lowercase scheme works.
  if (url.starts_with("file://")) return ParseFile(url, rest);
  if (scheme == "https") {
    return Invalid(url, "https is not supported yet; use http:// (TLS comes in a later release)");
  }
  return Invalid(url, "URL must start with http:// or file://");
}

std::string RedactUrl(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const size_t authority_begin = scheme_end + 3;
  const size_t authority_end = url.find_first_of("/?#", authority_begin);
  const std::string_view authority = url.substr(authority_begin, authority_end - authority_begin);
  const size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  return strings::Cat(url.substr(0, authority_begin), "***@", url.substr(authority_begin + at + 1));
}

}  // namespace rayagg
