#include "http/tls_context.h"

#include <openssl/ssl.h>

#include "common/text.h"

namespace rayagg {
namespace {

absl::Status FileError(std::string_view key, const std::string& path,
                       const boost::system::error_code& error) {
  return absl::InvalidArgumentError(strings::Cat("tls.", key, " ", path, ": ", error.message()));
}

}  // namespace

absl::StatusOr<HttpClientTls> MakeHttpClientTls(const TlsConfig& tls) {
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  if (SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION) != 1) {
    return absl::InternalError("cannot require TLS 1.2 or newer");
  }
  boost::system::error_code error;
  if (tls.insecure_skip_verify) {
    context->set_verify_mode(asio::ssl::verify_none);
  } else {
    context->set_verify_mode(asio::ssl::verify_peer);
    if (!tls.ca_file.empty()) {
      context->load_verify_file(tls.ca_file, error);
      if (error) return FileError("ca_file", tls.ca_file, error);
    } else {
      context->set_default_verify_paths(error);
      if (error) {
        return absl::InternalError(
            strings::Cat("cannot load the system's CA certificates: ", error.message()));
      }
    }
  }
  if (!tls.cert_file.empty()) {
    context->use_certificate_chain_file(tls.cert_file, error);
    if (error) return FileError("cert_file", tls.cert_file, error);
    context->use_private_key_file(tls.key_file, asio::ssl::context::pem, error);
    if (error) return FileError("key_file", tls.key_file, error);
    if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
      return absl::InvalidArgumentError(strings::Cat(
          "tls.key_file ", tls.key_file, ": does not match tls.cert_file ", tls.cert_file));
    }
  }
  return HttpClientTls{std::move(context), tls.server_name, !tls.insecure_skip_verify};
}

}  // namespace rayagg
