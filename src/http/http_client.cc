#include "http/http_client.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <optional>
#include <vector>

#include "http/exchange_errors.h"
#include "http/resolve.h"

namespace rayagg {
namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

}  // namespace

HttpClient::HttpClient(asio::any_io_executor executor, Url url,
                       std::chrono::milliseconds request_timeout, std::optional<HttpClientTls> tls)
    : executor_(std::move(executor)),
      url_(std::move(url)),
      request_timeout_(request_timeout),
      stream_(executor_),
      tls_(std::move(tls)) {}

void HttpClient::Close() {
  ++close_generation_;
  CloseSocket();
}

void HttpClient::CloseSocket() {
  connected_ = false;
  buffer_.consume(buffer_.size());
  // No TLS close_notify: it would need a write with its own deadline, and
  // the server learns of the close from the TCP FIN all the same.
  error_code ignored;
  Tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
  Tcp().close();
}

asio::awaitable<HttpResult> HttpClient::Post(std::string_view body, HttpHeaders extra_headers) {
  if (in_flight_) co_return HttpResult{asio::error::already_started, {}};
  if (url_.scheme == "https" && !tls_) co_return HttpResult{asio::error::no_protocol_option, {}};
  auto request = BuildPostRequest(url_, body, extra_headers);
  if (!request.ok()) co_return HttpResult{asio::error::invalid_argument, {}};
  co_return co_await Send(*std::move(request));
}

asio::awaitable<HttpResult> HttpClient::Get() {
  if (in_flight_) co_return HttpResult{asio::error::already_started, {}};
  co_return co_await Send(BuildGetRequest(url_));
}

asio::awaitable<HttpResult> HttpClient::Send(OutgoingHttpRequest request) {
  // Plain assignments, not an RAII guard: if the io_context is destroyed with
  // this frame suspended, the frame may be destroyed after the client.
  in_flight_ = true;
  const auto deadline = Clock::now() + request_timeout_;
  const uint64_t close_generation = close_generation_;
  const bool reused = connected_;
  Attempt attempt = co_await Exchange(request, deadline, close_generation);
  if (attempt.result.error && reused && !attempt.response_started &&
      IsStaleConnectionError(attempt.result.error) && close_generation == close_generation_) {
    attempt = co_await Exchange(request, deadline, close_generation);
  }
  in_flight_ = false;
  co_return std::move(attempt.result);
}

asio::awaitable<error_code> HttpClient::Connect(Clock::time_point deadline,
                                                uint64_t close_generation) {
  CloseSocket();
  if (tls_) tls_stream_.emplace(executor_, *tls_->context);
  ResolveResult resolved = co_await ResolveWithDeadline(executor_, url_.host, url_.port, deadline);
  if (close_generation != close_generation_) co_return asio::error::operation_aborted;
  if (resolved.error) co_return resolved.error;

  error_code ec;
  Tcp().expires_at(deadline);
  co_await Tcp().async_connect(resolved.endpoints, asio::redirect_error(asio::use_awaitable, ec));
  if (!ec && close_generation != close_generation_) ec = asio::error::operation_aborted;
  if (ec) {
    CloseSocket();
    co_return NormalizeTimeout(ec);
  }
  // Batches are written in one go; don't let Nagle delay the tail.
  error_code ignored;
  Tcp().socket().set_option(tcp::no_delay(true), ignored);
  if (tls_) {
    ec = co_await Handshake(deadline);
    if (!ec && close_generation != close_generation_) ec = asio::error::operation_aborted;
    if (ec) {
      CloseSocket();
      co_return NormalizeTimeout(ec);
    }
  }
  connected_ = true;
  ++connections_opened_;
  co_return error_code{};
}

asio::awaitable<error_code> HttpClient::Handshake(Clock::time_point deadline) {
  const std::string& name = tls_->server_name.empty() ? url_.host : tls_->server_name;
  error_code ec;
  const bool is_address = (asio::ip::make_address(name, ec), !ec);
  SSL* ssl = tls_stream_->native_handle();
  // SNI carries host names only (RFC 6066 §3), never address literals.
  if (!is_address && SSL_set_tlsext_host_name(ssl, name.c_str()) != 1) {
    co_return asio::error::invalid_argument;
  }
  if (tls_->verify) {
    // The certificate must name the host (or address) we think we talk to;
    // OpenSSL checks it while verifying the chain.
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    const int ok = is_address ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str())
                              : X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size());
    if (ok != 1) co_return asio::error::invalid_argument;
  }
  ec = {};
  Tcp().expires_at(deadline);
  co_await tls_stream_->async_handshake(asio::ssl::stream_base::client,
                                        asio::redirect_error(asio::use_awaitable, ec));
  co_return ec;
}

asio::awaitable<HttpClient::Attempt> HttpClient::Exchange(const OutgoingHttpRequest& request,
                                                          Clock::time_point deadline,
                                                          uint64_t close_generation) {
  if (!connected_) {
    Attempt attempt;
    attempt.result.error = co_await Connect(deadline, close_generation);
    if (attempt.result.error) co_return attempt;
  }
  if (tls_stream_) co_return co_await ExchangeOn(*tls_stream_, request, deadline, close_generation);
  co_return co_await ExchangeOn(stream_, request, deadline, close_generation);
}

template <typename Stream>
asio::awaitable<HttpClient::Attempt> HttpClient::ExchangeOn(Stream& stream,
                                                            const OutgoingHttpRequest& request,
                                                            Clock::time_point deadline,
                                                            uint64_t close_generation) {
  Attempt attempt;
  error_code ec;
  Tcp().expires_at(deadline);
  co_await http::async_write(stream, request, asio::redirect_error(asio::use_awaitable, ec));
  // Close() may run while the write's completion is queued.
  if (!ec && close_generation != close_generation_) ec = asio::error::operation_aborted;
  if (ec) {
    CloseSocket();
    attempt.result.error = NormalizeTimeout(ec);
    co_return attempt;
  }

  // Interim 1xx responses are skipped (RFC 9110 §15.2: clients must accept
  // them even unasked), a bounded number of them so a server cannot loop us.
  std::optional<http::response_parser<http::string_body>> parser;
  for (int interim = 0;; ++interim) {
    parser.emplace();
    parser->header_limit(kMaxResponseHeaderBytes);
    parser->body_limit(kMaxResponseBodyBytes);
    // Header first, then body: Beast 1.74's eager parsing (what async_read
    // uses) loses the body_limit error of a Content-Length response whose first
    // body bytes arrive together with the header, and reads the whole body.
    co_await http::async_read_header(stream, buffer_, *parser,
                                     asio::redirect_error(asio::use_awaitable, ec));
    if (!ec && !parser->is_done()) {
      co_await http::async_read(stream, buffer_, *parser,
                                asio::redirect_error(asio::use_awaitable, ec));
    }
    attempt.response_started = attempt.response_started || parser->got_some();
    if (ec || parser->get().result_int() / 100 != 1 || interim == kMaxInterimResponses) break;
  }
  Tcp().expires_never();

  const bool truncated = ec == http::error::body_limit && parser->is_header_done();
  if (ec && !truncated) {
    CloseSocket();
    attempt.result.error = NormalizeTimeout(ec);
    co_return attempt;
  }
  auto& message = parser->get();
  HttpResponse& response = attempt.result.response;
  response.status = message.result_int();
  if (auto it = message.find(http::field::retry_after); it != message.end()) {
    response.retry_after = std::string(it->value());
  }
  response.body = std::move(message.body());
  if (response.body.size() > kMaxResponseBodyBytes) response.body.resize(kMaxResponseBodyBytes);
  response.body_truncated = truncated;
  // An unread body tail would be parsed as the next response: never reuse.
  if (truncated || !message.keep_alive()) CloseSocket();
  co_return attempt;
}

}  // namespace rayagg
