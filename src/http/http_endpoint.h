// Where an HTTP exchange goes: what S3's addressing rules compute
// (objstore/s3_addressing.h) and an HttpConnection connects to. Apart from
// http_connection.h so that those rules compile without Asio and Beast.
#pragma once

#include <cstdint>
#include <string>

namespace rayagg {

struct HttpEndpoint {
  bool https = false;
  std::string connect_host{};  // a name or an address literal ("::1" without brackets)
  uint16_t connect_port = 0;
  std::string host_header{};  // "bucket.s3.example.com[:port]"
  // The name SNI carries and the certificate must match; "" means the host
  // part of host_header. Ignored for http.
  std::string tls_name{};
};

}  // namespace rayagg
