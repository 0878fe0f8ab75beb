// Where an S3 request goes and what it is called there: virtual-hosted
// style (https://<bucket>.<endpoint host>/<key>; AWS's default and the only
// style Alibaba OSS accepts) or path style (https://<endpoint host>/<bucket>/<key>;
// Ceph RGW or MinIO on an IP), with s3.connect_address as the TCP target.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "http/http_endpoint.h"
#include "objstore/rules/store_url.h"
#include "rayagg/config.h"

namespace rayagg::s3 {

struct Addressing {
  HttpEndpoint endpoint;
  std::string bucket;
  std::string prefix;  // the URL's key prefix; "" or "a/b" (no trailing '/')
  bool path_style = false;
  std::string region;
  std::string endpoint_url;  // for Describe(): "https://s3.us-east-1.amazonaws.com"

  // The store key `key` as the full object key (prefix applied).
  std::string FullKey(std::string_view key) const;
  // The request path of an object, percent-encoded.
  std::string ObjectPath(std::string_view full_key) const;
  // The request path of the bucket itself (ListObjectsV2): "/" or "/<bucket>".
  std::string BucketPath() const;
};

// Config errors name the key: s3.endpoint (not http(s)://host[:port]),
// s3.region, s3.connect_address (not host:port), and virtual-hosted style
// where it cannot work (an IP endpoint; a dotted bucket over https, which
// no wildcard certificate covers).
absl::StatusOr<Addressing> ResolveAddressing(const StoreUrl& url, const S3Config& config);

}  // namespace rayagg::s3
