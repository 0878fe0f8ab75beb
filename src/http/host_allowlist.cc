#include "http/host_allowlist.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "common/text.h"

namespace rayagg {
namespace {

// Letters, digits and what names (RFC 3986 reg-name, minus percent-encoding
// and sub-delims nobody uses in Host) and IPv4 literals hold.
bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || strings::IsDigit(c) || c == '-' || c == '.' || c == '_';
}

bool IsIpv6Char(char c) {
  return strings::IsDigit(c) || (c >= 'a' && c <= 'f') || c == ':' || c == '.';
}

bool IsPort(std::string_view port) {
  return !port.empty() && port.size() <= 5 &&
         std::all_of(port.begin(), port.end(), strings::IsDigit);
}

}  // namespace

std::optional<std::string> NormalizeHost(std::string_view host) {
  const std::string lower = strings::ToLower(host);
  std::string_view rest = lower;
  if (rest.empty()) return std::nullopt;
  if (rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos || close < 3) return std::nullopt;
    const std::string_view inside = rest.substr(1, close - 1);
    if (!std::all_of(inside.begin(), inside.end(), IsIpv6Char)) return std::nullopt;
    const std::string_view after = rest.substr(close + 1);
    if (!after.empty() && (after.front() != ':' || !IsPort(after.substr(1)))) return std::nullopt;
    return std::string(rest.substr(0, close + 1));
  }
  const size_t colons = static_cast<size_t>(std::count(rest.begin(), rest.end(), ':'));
  if (colons > 1) {
    // A bare IPv6 literal: allowed in a list entry ("::1"), never valid in a
    // Host header, whose callers pass it with its brackets.
    if (!std::all_of(rest.begin(), rest.end(), IsIpv6Char)) return std::nullopt;
    return strings::Cat("[", rest, "]");
  }
  if (colons == 1) {
    const size_t colon = rest.find(':');
    if (!IsPort(rest.substr(colon + 1))) return std::nullopt;
    rest = rest.substr(0, colon);
  }
  if (!rest.empty() && rest.back() == '.') rest.remove_suffix(1);
  if (rest.empty() || !std::all_of(rest.begin(), rest.end(), IsNameChar)) return std::nullopt;
  return std::string(rest);
}

bool IsLoopbackAddress(std::string_view address) {
  const std::string text(address);
  std::array<unsigned char, 16> bytes{};
  if (inet_pton(AF_INET, text.c_str(), bytes.data()) == 1) return bytes[0] == 127;
  if (inet_pton(AF_INET6, text.c_str(), bytes.data()) != 1) return false;
  static constexpr std::array<unsigned char, 16> kLoopback6{0, 0, 0, 0, 0, 0, 0, 0,
                                                            0, 0, 0, 0, 0, 0, 0, 1};
  if (bytes == kLoopback6) return true;
  // IPv4-mapped: ::ffff:127.x.x.x
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(bytes.data(), kMapped, sizeof kMapped) == 0 && bytes[12] == 127;
}

HostAllowlist::HostAllowlist(const std::vector<std::string>& hosts) {
  any_ = hosts.empty();
  for (const std::string& entry : hosts) {
    if (entry == "*") {
      any_ = true;
    } else if (std::optional<std::string> host = NormalizeHost(entry)) {
      hosts_.push_back(*std::move(host));
    }
  }
}

bool HostAllowlist::Allows(std::optional<std::string_view> host) const {
  if (any_) return true;
  if (!host) return false;
  // A Host header never holds a bare IPv6 literal (RFC 9110: brackets).
  if (std::count(host->begin(), host->end(), ':') > 1 && host->front() != '[') return false;
  const std::optional<std::string> normalized = NormalizeHost(*host);
  return normalized && std::find(hosts_.begin(), hosts_.end(), *normalized) != hosts_.end();
}

}  // namespace rayagg
