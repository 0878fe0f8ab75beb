// The OpenSSL client context of an https:// sink, built once from its `tls:`
// settings and shared by all of that sink's connections.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "rayagg/asio.h"
#include "rayagg/config.h"

namespace rayagg {

// What an HttpClient needs for https: the context and the name to send as
// SNI and to check the certificate against.
struct HttpClientTls {
  std::shared_ptr<asio::ssl::context> context;
  std::string server_name;  // "" means the URL's host
  bool verify = true;       // false with insecure_skip_verify: no name check either
};

// TLS 1.2 or newer. Verification is on unless tls.insecure_skip_verify:
// against tls.ca_file when set, otherwise the system's default CA store.
// tls.cert_file/key_file add a client certificate (mTLS). Errors name the key
// and the file and say what OpenSSL disliked.
absl::StatusOr<HttpClientTls> MakeHttpClientTls(const TlsConfig& tls);

}  // namespace rayagg
