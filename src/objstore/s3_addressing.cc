#include "objstore/s3_addressing.h"

#include <boost/asio/ip/address.hpp>

#include "common/text.h"
#include "common/url.h"
#include "objstore/sigv4.h"

namespace rayagg::s3 {
namespace {

bool IsAddressLiteral(std::string_view host) {
  boost::system::error_code error;
  boost::asio::ip::make_address(std::string(host), error);
  return !error;
}

bool IsValidRegion(std::string_view region) {
  if (region.empty() || region.size() > 64) return false;
  for (char c : region) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  }
  return true;
}

absl::StatusOr<std::pair<std::string, uint16_t>> ParseHostPort(std::string_view text) {
  const auto bad = [&] {
    return absl::InvalidArgumentError(
        strings::Cat("s3.connect_address: '", text, "' is not host:port (or [v6]:port)"));
  };
  std::string_view host;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad();
    }
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad();
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  if (host.empty() || port_text.empty() || port_text.size() > 5) return bad();
  uint32_t port = 0;
  for (char c : port_text) {
    if (c < '0' || c > '9') return bad();
    port = port * 10 + static_cast<uint32_t>(c - '0');
  }
  if (port == 0 || port > 65535) return bad();
  return std::pair<std::string, uint16_t>{std::string(host), static_cast<uint16_t>(port)};
}

}  // namespace

std::string Addressing::FullKey(std::string_view key) const {
  if (prefix.empty()) return std::string(key);
  return strings::Cat(prefix, "/", key);
}

std::string Addressing::ObjectPath(std::string_view full_key) const {
  if (path_style) return strings::Cat("/", bucket, "/", sigv4::UriEncodePath(full_key));
  return strings::Cat("/", sigv4::UriEncodePath(full_key));
}

std::string Addressing::BucketPath() const {
  return path_style ? strings::Cat("/", bucket) : std::string("/");
}

absl::StatusOr<Addressing> ResolveAddressing(const StoreUrl& url, const S3Config& config) {
  Addressing out;
  out.bucket = url.bucket;
  out.prefix = url.prefix;
  out.region = config.region;
  out.path_style = config.addressing == S3Config::Addressing::kPath;
  if (!IsValidRegion(config.region)) {
    return absl::InvalidArgumentError(strings::Cat(
        "s3.region: '", config.region, "' is not a region id (e.g. us-east-1, cn-hangzhou)"));
  }
  out.endpoint_url = config.endpoint.empty()
                         ? strings::Cat("https://s3.", config.region, ".amazonaws.com")
                         : config.endpoint;
  absl::StatusOr<Url> endpoint = ParseUrl(out.endpoint_url);
  if (!endpoint.ok()) {
    return absl::InvalidArgumentError(strings::Cat("s3.endpoint: ", endpoint.status().message()));
  }
  if (endpoint->target != "/") {
    return absl::InvalidArgumentError(strings::Cat(
        "s3.endpoint: '", out.endpoint_url,
        "' has a path; give scheme and host[:port] only (the bucket goes in the sink URL)"));
  }
  out.endpoint.https = endpoint->scheme == "https";
  if (out.path_style) {
    out.endpoint.connect_host = endpoint->host;
    out.endpoint.host_header = endpoint->host_header;
    out.endpoint.tls_name = endpoint->host;
  } else {
    if (IsAddressLiteral(endpoint->host)) {
      return absl::InvalidArgumentError(strings::Cat(
          "s3.endpoint: '", out.endpoint_url,
          "' is an IP address, which cannot carry a bucket name: set s3.addressing: path"));
    }
    if (out.endpoint.https && url.bucket.find('.') != std::string::npos) {
      return absl::InvalidArgumentError(strings::Cat(
          "bucket '", url.bucket,
          "' has dots, which no wildcard certificate covers in virtual-hosted style over https: "
          "use a bucket name without dots, or s3.addressing: path where the server allows it"));
    }
    const std::string host = strings::Cat(url.bucket, ".", endpoint->host);
    out.endpoint.connect_host = host;
    out.endpoint.host_header = strings::Cat(url.bucket, ".", endpoint->host_header);
    out.endpoint.tls_name = host;
  }
  out.endpoint.connect_port = endpoint->port;
  if (!config.connect_address.empty()) {
    absl::StatusOr<std::pair<std::string, uint16_t>> target = ParseHostPort(config.connect_address);
    if (!target.ok()) return target.status();
    out.endpoint.connect_host = target->first;
    out.endpoint.connect_port = target->second;
  }
  return out;
}

}  // namespace rayagg::s3
