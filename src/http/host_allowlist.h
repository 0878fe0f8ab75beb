// Which Host header values a listener answers (HttpServerOptions::
// allowed_hosts): the defence against DNS rebinding, where a web page
// reaches a loopback listener through a name of its own that resolves to
// 127.0.0.1 — the browser then sends that name as Host, and the listener
// refuses it (421) instead of serving the page's script.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rayagg {

class HostAllowlist {
 public:
  // Entries are names or address literals ("localhost", "127.0.0.1",
  // "[::1]" or "::1"), a port after them is ignored; "*" allows any host.
  // An entry that is not a host is never matched (the config layer rejects
  // it first, naming the key: see NormalizeHost).
  explicit HostAllowlist(const std::vector<std::string>& hosts);

  // True when the list is empty (any Host, none required) or holds "*".
  bool any() const { return any_; }
  // Whether a request whose Host header is `host` (nullopt: none) may be
  // served.
  bool Allows(std::optional<std::string_view> host) const;

 private:
  bool any_ = false;
  std::vector<std::string> hosts_;  // normalized
};

// The host part of a Host header value or an allowlist entry, for
// comparison: lowercase, without the port and a trailing dot, an IPv6
// literal in brackets ("::1" and "[::1]:8090" both give "[::1]"). nullopt
// when it cannot be a host: empty, a bad port, spaces or other characters a
// host never holds.
std::optional<std::string> NormalizeHost(std::string_view host);

// Whether a listen address only takes connections from this host: an IPv4
// address in 127.0.0.0/8, ::1 or ::ffff:127.x.x.x. "0.0.0.0", "::", any
// other address and anything unparsable are not.
bool IsLoopbackAddress(std::string_view address);

}  // namespace rayagg
