#include "http/http_client.h"

#include <optional>
#include <vector>

#include "http/resolve.h"

namespace rayagg {
namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

// One error value for "deadline passed", whichever layer noticed it.
error_code Normalize(error_code ec) {
  if (ec == beast::error::timeout) return asio::error::timed_out;
  return ec;
}

// Interim (1xx) responses tolerated before the final one.
constexpr int kMaxInterimResponses = 8;

// How a write or read fails on a connection the server closed while idle.
bool IsStaleConnectionError(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::error::connection_aborted || ec == asio::error::not_connected;
}

}  // namespace

HttpClient::HttpClient(asio::any_io_executor executor, Url url,
                       std::chrono::milliseconds request_timeout)
    : executor_(std::move(executor)),
      url_(std::move(url)),
      request_timeout_(request_timeout),
      stream_(executor_) {}

void HttpClient::Close() {
  ++close_generation_;
  CloseSocket();
}

void HttpClient::CloseSocket() {
  connected_ = false;
  buffer_.consume(buffer_.size());
  error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

asio::awaitable<HttpResult> HttpClient::Post(std::string body, HttpHeaders extra_headers) {
  if (in_flight_) co_return HttpResult{asio::error::already_started, {}};
  auto request = BuildPostRequest(url_, std::move(body), extra_headers);
  if (!request.ok()) co_return HttpResult{asio::error::invalid_argument, {}};

  // Plain assignments, not an RAII guard: if the io_context is destroyed with
  // this frame suspended, the frame may be destroyed after the client.
  in_flight_ = true;
  const auto deadline = Clock::now() + request_timeout_;
  const uint64_t close_generation = close_generation_;
  const bool reused = connected_;
  Attempt attempt = co_await Exchange(*request, deadline, close_generation);
  if (attempt.result.error && reused && !attempt.response_started &&
      IsStaleConnectionError(attempt.result.error) && close_generation == close_generation_) {
    attempt = co_await Exchange(*request, deadline, close_generation);
  }
  in_flight_ = false;
  co_return std::move(attempt.result);
}

asio::awaitable<error_code> HttpClient::Connect(Clock::time_point deadline,
                                                uint64_t close_generation) {
  CloseSocket();
  ResolveResult resolved = co_await ResolveWithDeadline(executor_, url_.host, url_.port, deadline);
  if (close_generation != close_generation_) co_return asio::error::operation_aborted;
  if (resolved.error) co_return resolved.error;

  error_code ec;
  stream_.expires_at(deadline);
  co_await stream_.async_connect(resolved.endpoints, asio::redirect_error(asio::use_awaitable, ec));
  if (!ec && close_generation != close_generation_) ec = asio::error::operation_aborted;
  if (ec) {
    CloseSocket();
    co_return Normalize(ec);
  }
  // Batches are written in one go; don't let Nagle delay the tail.
  error_code ignored;
  stream_.socket().set_option(tcp::no_delay(true), ignored);
  connected_ = true;
  ++connections_opened_;
  co_return error_code{};
}

asio::awaitable<HttpClient::Attempt> HttpClient::Exchange(
    const http::request<http::string_body>& request, Clock::time_point deadline,
    uint64_t close_generation) {
  Attempt attempt;
  if (!connected_) {
    attempt.result.error = co_await Connect(deadline, close_generation);
    if (attempt.result.error) co_return attempt;
  }

  error_code ec;
  stream_.expires_at(deadline);
  co_await http::async_write(stream_, request, asio::redirect_error(asio::use_awaitable, ec));
  // Close() may run while the write's completion is queued.
  if (!ec && close_generation != close_generation_) ec = asio::error::operation_aborted;
  if (ec) {
    CloseSocket();
    attempt.result.error = Normalize(ec);
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
    co_await http::async_read_header(stream_, buffer_, *parser,
                                     asio::redirect_error(asio::use_awaitable, ec));
    if (!ec && !parser->is_done()) {
      co_await http::async_read(stream_, buffer_, *parser,
                                asio::redirect_error(asio::use_awaitable, ec));
    }
    attempt.response_started = attempt.response_started || parser->got_some();
    if (ec || parser->get().result_int() / 100 != 1 || interim == kMaxInterimResponses) break;
  }
  stream_.expires_never();

  const bool truncated = ec == http::error::body_limit && parser->is_header_done();
  if (ec && !truncated) {
    CloseSocket();
    attempt.result.error = Normalize(ec);
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
