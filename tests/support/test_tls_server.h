// A real HTTPS/1.1 server on 127.0.0.1 (port chosen by the OS) for TLS tests:
// it presents a certificate from a test CA (test_certificates.h), optionally
// requires a client certificate signed by that CA (mTLS), records every
// request with the SNI name and client certificate it came with, and answers
// 200 with keep-alive. Failed handshakes are counted. It runs its own
// io_context on its own thread; public methods are thread-safe.
#pragma once

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "common/real_clock.h"
#include "rayagg/asio.h"
#include "rayagg/mutex.h"
#include "support/test_certificates.h"
#include "support/test_http_server.h"

namespace rayagg::test {

struct TlsServerOptions {
  bool require_client_certificate = false;
};

struct ReceivedTlsRequest {
  ReceivedRequest request{};
  std::string server_name{};         // SNI the client sent, "" if none
  std::string client_common_name{};  // CN of the verified client certificate, "" if none
};

class TestTlsServer {
 public:
  TestTlsServer(const TestCertificates& pki, TlsServerOptions options = {});
  TestTlsServer(const TestTlsServer&) = delete;
  TestTlsServer& operator=(const TestTlsServer&) = delete;
  ~TestTlsServer();  // Stop()

  uint16_t port() const { return port_; }
  // "https://<host>:<port>" followed by `path`.
  std::string Url(std::string_view path = {}, std::string_view host = "127.0.0.1") const;

  std::vector<ReceivedTlsRequest> Requests() const;
  size_t RequestCount() const;
  uint64_t FailedHandshakes() const;

  bool WaitForRequests(size_t n, std::chrono::milliseconds timeout);
  bool WaitForFailedHandshakes(uint64_t n, std::chrono::milliseconds timeout);

  // Closes the listener and every connection and joins the thread. Idempotent.
  void Stop();

 private:
  using tcp = asio::ip::tcp;
  using Stream = beast::ssl_stream<beast::tcp_stream>;

  asio::awaitable<void> Accept();
  asio::awaitable<void> Serve(tcp::socket socket);

  RealClock clock_;  // arrival times: real requests on real sockets
  mutable Mutex mutex_;
  CondVar changed_;
  std::vector<ReceivedTlsRequest> requests_ ABSL_GUARDED_BY(mutex_);
  uint64_t failed_handshakes_ ABSL_GUARDED_BY(mutex_) = 0;

  // Server thread only.
  std::unordered_set<Stream*> open_streams_;
  bool stopping_ = false;

  asio::ssl::context ssl_context_{asio::ssl::context::tls_server};
  asio::io_context io_context_{1};
  tcp::acceptor acceptor_{io_context_};
  uint16_t port_ = 0;
  std::once_flag stop_once_;
  std::thread thread_;
};

}  // namespace rayagg::test
