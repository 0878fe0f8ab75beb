#include "support/test_tls_server.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace rayagg::test {
namespace {

using boost::system::error_code;

// Bound per connection so a client that stalls cannot hold a test forever.
constexpr auto kIoTimeout = std::chrono::seconds(30);

std::string CommonNameOf(X509* cert) {
  if (cert == nullptr) return "";
  char name[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, name, sizeof(name));
  return name;
}

}  // namespace

TestTlsServer::TestTlsServer(const TestCertificates& pki, TlsServerOptions options) {
  ssl_context_.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                           asio::ssl::context::no_sslv3);
  ssl_context_.use_certificate_chain(asio::buffer(pki.server_cert));
  ssl_context_.use_private_key(asio::buffer(pki.server_key), asio::ssl::context::pem);
  if (options.require_client_certificate) {
    ssl_context_.add_certificate_authority(asio::buffer(pki.ca_cert));
    ssl_context_.set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  }
  const tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), 0);
  acceptor_.open(endpoint.protocol());
  acceptor_.bind(endpoint);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  asio::co_spawn(io_context_, Accept(), RethrowOnError);
  thread_ = std::thread([this] {
    try {
      io_context_.run();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "TestTlsServer: internal error: %s\n", e.what());
      std::abort();
    }
  });
}

TestTlsServer::~TestTlsServer() { Stop(); }

std::string TestTlsServer::Url(std::string_view path, std::string_view host) const {
  return "https://" + std::string(host) + ":" + std::to_string(port_) + std::string(path);
}

std::vector<ReceivedTlsRequest> TestTlsServer::Requests() const {
  MutexLock lock(mutex_);
  return requests_;
}

size_t TestTlsServer::RequestCount() const {
  MutexLock lock(mutex_);
  return requests_.size();
}

uint64_t TestTlsServer::FailedHandshakes() const {
  MutexLock lock(mutex_);
  return failed_handshakes_;
}

bool TestTlsServer::WaitForRequests(size_t n, std::chrono::milliseconds timeout) {
  MutexLock lock(mutex_);
  return changed_.WaitFor(mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return requests_.size() >= n;
  });
}

bool TestTlsServer::WaitForFailedHandshakes(uint64_t n, std::chrono::milliseconds timeout) {
  MutexLock lock(mutex_);
  return changed_.WaitFor(mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return failed_handshakes_ >= n;
  });
}

void TestTlsServer::Stop() {
  std::call_once(stop_once_, [this] {
    asio::post(io_context_, [this] {
      stopping_ = true;
      error_code ignored;
      acceptor_.close(ignored);
      for (Stream* stream : open_streams_) stream->next_layer().socket().close(ignored);
    });
    thread_.join();
  });
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

asio::awaitable<void> TestTlsServer::Accept() {
  for (;;) {
    error_code ec;
    tcp::socket socket =
        co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec || stopping_) co_return;
    asio::co_spawn(io_context_, Serve(std::move(socket)), RethrowOnError);
  }
}

asio::awaitable<void> TestTlsServer::Serve(tcp::socket socket) {
  if (stopping_) co_return;
  Stream stream(std::move(socket), ssl_context_);
  open_streams_.insert(&stream);
  error_code ec;
  beast::get_lowest_layer(stream).expires_after(kIoTimeout);
  co_await stream.async_handshake(asio::ssl::stream_base::server,
                                  asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    {
      MutexLock lock(mutex_);
      ++failed_handshakes_;
    }
    changed_.SignalAll();
  }
  std::string server_name;
  std::string client_common_name;
  if (!ec) {
    SSL* ssl = stream.native_handle();
    if (const char* sni = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name)) server_name = sni;
    X509* peer = SSL_get1_peer_certificate(ssl);
    client_common_name = CommonNameOf(peer);
    X509_free(peer);
  }
  beast::flat_buffer buffer;
  while (!ec) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(TestHttpServer::kMaxRequestBodyBytes);
    beast::get_lowest_layer(stream).expires_after(kIoTimeout);
    co_await http::async_read(stream, buffer, parser,
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    const auto& request = parser.get();
    ReceivedTlsRequest received;
    received.request.method = std::string(request.method_string());
    received.request.target = std::string(request.target());
    for (const auto& field : request) {
      received.request.headers.emplace_back(std::string(field.name_string()),
                                            std::string(field.value()));
    }
    received.request.body = request.body();
    received.request.arrival = clock_.Now();
    received.server_name = server_name;
    received.client_common_name = client_common_name;
    {
      MutexLock lock(mutex_);
      requests_.push_back(std::move(received));
    }
    changed_.SignalAll();

    http::response<http::string_body> response{http::status::ok, request.version()};
    response.keep_alive(request.keep_alive());
    response.prepare_payload();
    const bool keep_alive = response.keep_alive();
    co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
    if (!keep_alive) break;
  }
  open_streams_.erase(&stream);
  beast::get_lowest_layer(stream).close();
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace rayagg::test
