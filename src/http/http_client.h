// One keep-alive HTTP/1.1 connection to one endpoint, driven by coroutines.
// A sink owns one client per in-flight request slot and POSTs JSON batches
// through it; classification of the answer (retry, drop) is the caller's job.
#pragma once

#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "common/url.h"
#include "http/request.h"
#include "http/tls_context.h"
#include "rayagg/asio.h"

namespace rayagg {

// Collectors answer with short status bodies; anything longer is only kept
// for logging, so memory per response stays bounded.
inline constexpr size_t kMaxResponseBodyBytes = 64 * 1024;
inline constexpr uint32_t kMaxResponseHeaderBytes = 16 * 1024;

struct HttpResponse {
  unsigned status = 0;
  std::optional<std::string> retry_after;  // raw header value, parsing is the caller's policy
  std::string body;                        // the first <= kMaxResponseBodyBytes bytes
  // The body exceeded kMaxResponseBodyBytes: `body` holds what was read before
  // the limit (possibly nothing, when Content-Length announced a larger body),
  // status and retry_after are valid, and the connection was closed because
  // the rest of the body was not read.
  bool body_truncated = false;
};

struct HttpResult {
  // Transport or protocol error; when set, `response` is meaningless.
  // A deadline overrun is always asio::error::timed_out; Close() during a call
  // gives asio::error::operation_aborted.
  boost::system::error_code error;
  HttpResponse response;
};

class HttpClient {
 public:
  // `executor` must be single-threaded (an io_context run by one thread, or a
  // strand): Post, Close and the client's handlers all run on it.
  // `request_timeout` bounds each Post as a whole: resolve + connect + TLS
  // handshake + write + read, including the one transparent retry (aiohttp's
  // ClientTimeout(total)). https:// URLs need `tls` (MakeHttpClientTls);
  // without it their Posts fail with asio::error::no_protocol_option.
  HttpClient(asio::any_io_executor executor, Url url, std::chrono::milliseconds request_timeout,
             std::optional<HttpClientTls> tls = std::nullopt);
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;
  // Destroy only while no Post is in flight (the owner awaits its Posts).
  ~HttpClient() = default;

  // Sends one POST of `body` (the caller keeps it alive until the call
  // returns) to the URL's target; one call at a time per
  // client (an overlapping call fails with asio::error::already_started).
  // Never throws for network failures: they are in HttpResult::error. An
  // invalid extra header (see BuildPostRequest) fails with
  // asio::error::invalid_argument before anything is sent.
  // Reuses the kept-alive connection when there is one. When a request on a
  // reused connection fails before any response byte arrived with EOF, reset
  // or broken pipe (the server closed an idle connection), it is retried once
  // on a fresh connection; the fresh connection's outcome is returned as is.
  // The connection is closed on any error, on timeout, on body truncation and
  // when the server does not keep it alive.
  asio::awaitable<HttpResult> Post(std::string_view body, HttpHeaders extra_headers);

  // One GET of the URL's target, with the same deadline, reuse and error
  // rules as Post (probe mode).
  asio::awaitable<HttpResult> Get();

  // Closes the connection. A Post in flight ends with operation_aborted (at
  // the latest when its name resolution or its deadline completes).
  void Close();

  // Successful connects (TCP, and TLS handshake for https) so far (tests
  // check keep-alive reuse).
  uint64_t connections_opened() const { return connections_opened_; }
  const Url& url() const { return url_; }

 private:
  struct Attempt {
    HttpResult result;
    bool response_started = false;  // some response bytes arrived
  };

  using TlsStream = beast::ssl_stream<beast::tcp_stream>;

  asio::awaitable<boost::system::error_code> Connect(std::chrono::steady_clock::time_point deadline,
                                                     uint64_t close_generation);
  // SNI, host name check and handshake on the freshly connected tls_stream_.
  asio::awaitable<boost::system::error_code> Handshake(
      std::chrono::steady_clock::time_point deadline);
  // `request` lives in Post's frame, which awaits this call directly.
  asio::awaitable<Attempt> Exchange(const OutgoingHttpRequest& request,
                                    std::chrono::steady_clock::time_point deadline,
                                    uint64_t close_generation);
  // Write and read on `stream` (stream_ or *tls_stream_).
  template <typename Stream>
  asio::awaitable<Attempt> ExchangeOn(Stream& stream, const OutgoingHttpRequest& request,
                                      std::chrono::steady_clock::time_point deadline,
                                      uint64_t close_generation);
  // The TCP layer in use: stream_ for http, tls_stream_'s for https.
  beast::tcp_stream& Tcp() { return tls_stream_ ? tls_stream_->next_layer() : stream_; }
  void CloseSocket();
  // Sends a prepared request: Post's and Get's shared body.
  asio::awaitable<HttpResult> Send(OutgoingHttpRequest request);

  asio::any_io_executor executor_;
  Url url_;
  std::chrono::milliseconds request_timeout_;
  beast::tcp_stream stream_;  // http:// only
  std::optional<HttpClientTls> tls_;
  // https:// only: a fresh stream per connection (an SSL object cannot be
  // reused after its connection ended). Replaced only in Connect, never while
  // an operation on it is pending.
  std::optional<TlsStream> tls_stream_;
  beast::flat_buffer buffer_;
  bool connected_ = false;
  bool in_flight_ = false;
  // Incremented by Close(); a Post that sees it change stops with operation_aborted.
  uint64_t close_generation_ = 0;
  uint64_t connections_opened_ = 0;
};

}  // namespace rayagg
