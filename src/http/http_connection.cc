#include "http/http_connection.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>

#include "http/exchange_errors.h"
#include "http/request.h"
#include "http/resolve.h"
#include "http/rules/http_header_rules.h"

namespace rayagg {
namespace {

using asio::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kMaxHeaderBytes = 64 * 1024;

// The host part of "host[:port]" or "[v6]:port".
std::string HostOf(std::string_view host_header) {
  if (!host_header.empty() && host_header.front() == '[') {
    const size_t close = host_header.find(']');
    return std::string(host_header.substr(1, close - 1));
  }
  return std::string(host_header.substr(0, host_header.rfind(':')));
}

}  // namespace

HttpConnection::HttpConnection(asio::any_io_executor executor, HttpEndpoint endpoint,
                               std::optional<HttpClientTls> tls)
    : executor_(std::move(executor)),
      endpoint_(std::move(endpoint)),
      tls_(std::move(tls)),
      stream_(executor_) {}

void HttpConnection::Close() { CloseSocket(); }

void HttpConnection::CloseSocket() {
  connected_ = false;
  buffer_.consume(buffer_.size());
  error_code ignored;
  Tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
  Tcp().close();
}

asio::awaitable<HttpExchangeResult> HttpConnection::Exchange(const HttpExchangeRequest& options) {
  if (in_flight_) co_return HttpExchangeResult{asio::error::already_started, {}};
  if (endpoint_.https && !tls_) co_return HttpExchangeResult{asio::error::no_protocol_option, {}};
  Request request{options.method, options.target, 11};
  request.set(http::field::host, endpoint_.host_header);
  request.set(http::field::user_agent, ToBeast(kUserAgent));
  for (const auto& [name, value] : options.headers) {
    if (!IsValidHeaderName(name) || !IsValidHeaderValue(value)) {
      co_return HttpExchangeResult{asio::error::invalid_argument, {}};
    }
    if (IsFramingHeader(name)) continue;
    request.set(name, value);
  }
  request.body() =
      http::span_body<const char>::value_type(options.body.data(), options.body.size());
  request.content_length(options.body.size());

  in_flight_ = true;
  const bool reused = connected_;
  Attempt attempt = co_await Once(request, options);
  if (attempt.result.error && reused && !attempt.response_started &&
      IsStaleConnectionError(attempt.result.error)) {
    attempt = co_await Once(request, options);
  }
  in_flight_ = false;
  co_return std::move(attempt.result);
}

asio::awaitable<error_code> HttpConnection::Connect(Clock::time_point deadline) {
  CloseSocket();
  if (endpoint_.https) tls_stream_.emplace(executor_, *tls_->context);
  ResolveResult resolved = co_await ResolveWithDeadline(executor_, endpoint_.connect_host,
                                                        endpoint_.connect_port, deadline);
  if (resolved.error) co_return resolved.error;
  error_code ec;
  Tcp().expires_at(deadline);
  co_await Tcp().async_connect(resolved.endpoints, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    CloseSocket();
    co_return NormalizeTimeout(ec);
  }
  error_code ignored;
  Tcp().socket().set_option(tcp::no_delay(true), ignored);
  if (endpoint_.https) {
    const std::string name = !tls_->server_name.empty()    ? tls_->server_name
                             : !endpoint_.tls_name.empty() ? endpoint_.tls_name
                                                           : HostOf(endpoint_.host_header);
    const bool is_address = (asio::ip::make_address(name, ec), !ec);
    SSL* ssl = tls_stream_->native_handle();
    if (!is_address && SSL_set_tlsext_host_name(ssl, name.c_str()) != 1) {
      co_return asio::error::invalid_argument;
    }
    if (tls_->verify) {
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
    if (ec) {
      CloseSocket();
      co_return NormalizeTimeout(ec);
    }
  }
  connected_ = true;
  ++connections_opened_;
  co_return error_code{};
}

asio::awaitable<HttpConnection::Attempt> HttpConnection::Once(const Request& request,
                                                              const HttpExchangeRequest& options) {
  if (!connected_) {
    Attempt attempt;
    attempt.result.error = co_await Connect(options.deadline);
    if (attempt.result.error) co_return attempt;
  }
  if (tls_stream_) co_return co_await ExchangeOn(*tls_stream_, request, options);
  co_return co_await ExchangeOn(stream_, request, options);
}

template <typename Stream>
asio::awaitable<HttpConnection::Attempt> HttpConnection::ExchangeOn(
    Stream& stream, const Request& request, const HttpExchangeRequest& options) {
  Attempt attempt;
  error_code ec;
  Tcp().expires_at(options.deadline);
  co_await http::async_write(stream, request, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    CloseSocket();
    attempt.result.error = NormalizeTimeout(ec);
    co_return attempt;
  }
  std::optional<http::response_parser<http::string_body>> parser;
  for (int interim = 0;; ++interim) {
    parser.emplace();
    parser->header_limit(kMaxHeaderBytes);
    parser->body_limit(options.max_response_body);
    co_await http::async_read_header(stream, buffer_, *parser,
                                     asio::redirect_error(asio::use_awaitable, ec));
    attempt.response_started = attempt.response_started || parser->got_some();
    if (ec) break;
    if (parser->get().result_int() / 100 == 1 && interim < kMaxInterimResponses) continue;
    if (const auto length = parser->content_length(); length && options.response_bytes_per_second) {
      Tcp().expires_at(options.deadline + std::chrono::milliseconds(
                                              *length * 1000 / options.response_bytes_per_second));
    }
    if (!parser->is_done()) {
      co_await http::async_read(stream, buffer_, *parser,
                                asio::redirect_error(asio::use_awaitable, ec));
    }
    break;
  }
  Tcp().expires_never();
  if (ec) {
    CloseSocket();
    attempt.result.error = NormalizeTimeout(ec);
    co_return attempt;
  }
  auto message = parser->release();
  HttpExchangeResponse& response = attempt.result.response;
  response.status = message.result_int();
  response.body = std::move(message.body());
  const bool keep_alive = message.keep_alive();
  response.headers = std::move(message.base());
  if (!keep_alive) CloseSocket();
  co_return attempt;
}

}  // namespace rayagg
