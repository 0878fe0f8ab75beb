// One keep-alive HTTP/1.1 connection for request/response exchanges with any
// method, target and headers, response headers included, and bodies of any
// size on both sides within limits the caller sets: what an S3 client needs
// (HttpClient is the sink's POST-only form with short answers).
//
// The connection may go somewhere else than the Host header names
// (`connect_host`): S3's virtual-hosted style through s3.connect_address,
// where Host, SNI and the certificate check keep the bucket's name.
#pragma once

#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/http_endpoint.h"
#include "http/tls_context.h"
#include "rayagg/asio.h"

namespace rayagg {

struct HttpExchangeRequest {
  http::verb method = http::verb::get;
  std::string target = "/";  // already percent-encoded path and query
  std::vector<std::pair<std::string, std::string>> headers{};
  // Sent with Content-Length; must stay valid until Exchange completes.
  std::string_view body{};
  // Whole-exchange deadline for connect, TLS, write and the response header.
  std::chrono::steady_clock::time_point deadline;
  // A response body larger than this fails the exchange with
  // http::error::body_limit before it is read (the connection is closed).
  uint64_t max_response_body = 1024 * 1024;
  // Once the header arrives, the deadline moves on by the announced body
  // size at this rate (0: not at all), so large downloads get the time the
  // size needs.
  uint64_t response_bytes_per_second = 0;
};

struct HttpExchangeResponse {
  unsigned status = 0;
  http::fields headers{};
  std::string body{};
};

struct HttpExchangeResult {
  // Transport or protocol error; asio::error::timed_out for a deadline.
  boost::system::error_code error;
  HttpExchangeResponse response;
};

class HttpConnection {
 public:
  // `executor` must be single-threaded (an io_context run by one thread, or
  // a strand). https needs `tls`.
  HttpConnection(asio::any_io_executor executor, HttpEndpoint endpoint,
                 std::optional<HttpClientTls> tls);
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;
  ~HttpConnection() = default;

  // One request and its final response (interim 1xx skipped). Reuses the
  // open connection; if a reused connection turns out closed by the server
  // before any response byte, the request is sent once more on a fresh one.
  // One call at a time. Header names must be tokens and values free of CR,
  // LF and NUL (else asio::error::invalid_argument, nothing sent).
  asio::awaitable<HttpExchangeResult> Exchange(const HttpExchangeRequest& request);

  void Close();
  bool connected() const { return connected_; }
  uint64_t connections_opened() const { return connections_opened_; }
  const HttpEndpoint& endpoint() const { return endpoint_; }

 private:
  struct Attempt {
    HttpExchangeResult result;
    bool response_started = false;
  };
  using Request = http::request<http::span_body<const char>>;
  using TlsStream = beast::ssl_stream<beast::tcp_stream>;

  asio::awaitable<boost::system::error_code> Connect(
      std::chrono::steady_clock::time_point deadline);
  asio::awaitable<Attempt> Once(const Request& request, const HttpExchangeRequest& options);
  template <typename Stream>
  asio::awaitable<Attempt> ExchangeOn(Stream& stream, const Request& request,
                                      const HttpExchangeRequest& options);
  beast::tcp_stream& Tcp() { return tls_stream_ ? tls_stream_->next_layer() : stream_; }
  void CloseSocket();

  asio::any_io_executor executor_;
  HttpEndpoint endpoint_;
  std::optional<HttpClientTls> tls_{};
  beast::tcp_stream stream_;
  std::optional<TlsStream> tls_stream_{};
  beast::flat_buffer buffer_;
  bool connected_ = false;
  bool in_flight_ = false;
  uint64_t connections_opened_ = 0;
};

}  // namespace rayagg
