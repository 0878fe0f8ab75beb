#include "support/test_http_server.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace rayagg::test {
namespace {

using boost::system::error_code;

// A bug in the server must fail the test run, not vanish: rethrow out of
// io_context::run(), where Run() reports it and aborts.
}  // namespace

std::optional<std::string> ReceivedRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (beast::iequals(key, beast::string_view(name.data(), name.size()))) return value;
  }
  return std::nullopt;
}

TestHttpServer::TestHttpServer() {
  const tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), 0);
  acceptor_.open(endpoint.protocol());
  acceptor_.bind(endpoint);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  asio::co_spawn(io_context_, Accept(), RethrowOnError);
  thread_ = std::thread([this] { Run(); });
}

TestHttpServer::~TestHttpServer() { Stop(); }

std::string TestHttpServer::Url(std::string_view path_and_query) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path_and_query);
}

void TestHttpServer::SetDefaultBehavior(Behavior behavior) {
  MutexLock lock(mutex_);
  default_behavior_ = std::move(behavior);
}

void TestHttpServer::Enqueue(Behavior behavior) {
  MutexLock lock(mutex_);
  script_.push_back(std::move(behavior));
}

void TestHttpServer::SetResponder(Responder responder) {
  MutexLock lock(mutex_);
  responder_ = std::move(responder);
}

std::vector<ReceivedRequest> TestHttpServer::Requests() const {
  MutexLock lock(mutex_);
  return requests_;
}

size_t TestHttpServer::RequestCount() const {
  MutexLock lock(mutex_);
  return requests_.size();
}

size_t TestHttpServer::ConnectionCount() const {
  MutexLock lock(mutex_);
  return connection_count_;
}

bool TestHttpServer::WaitForRequests(size_t n, std::chrono::milliseconds timeout) {
  MutexLock lock(mutex_);
  return changed_.WaitFor(mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return requests_.size() >= n;
  });
}

bool TestHttpServer::WaitForConnections(size_t n, std::chrono::milliseconds timeout) {
  MutexLock lock(mutex_);
  return changed_.WaitFor(mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return connection_count_ >= n;
  });
}

bool TestHttpServer::WaitUntil(std::function<bool(const std::vector<ReceivedRequest>&)> predicate,
                               std::chrono::milliseconds timeout) {
  MutexLock lock(mutex_);
  return changed_.WaitFor(mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return predicate(requests_);
  });
}

void TestHttpServer::EndHangs() {
  asio::post(io_context_, [this] {
    error_code ignored;
    // The hanging session's read fails and it ends, closing the connection.
    for (tcp::socket* socket : hung_sockets_) socket->shutdown(tcp::socket::shutdown_both, ignored);
  });
}

void TestHttpServer::Stop() {
  std::call_once(stop_once_, [this] {
    asio::post(io_context_, [this] {
      stopping_ = true;
      error_code ignored;
      acceptor_.close(ignored);
      // Sessions see their pending operation fail and end; then run() runs out of work.
      for (tcp::socket* socket : open_sockets_) socket->close(ignored);
    });
    thread_.join();
  });
}

void TestHttpServer::Run() {
  try {
    io_context_.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "TestHttpServer: internal error: %s\n", e.what());
    std::abort();
  }
}

// g++ 12 with optimisation (the ASan preset builds -O2) reports a false
// -Wmismatched-new-delete for Asio's awaitable frame allocator once a
// coroutine is inlined enough (GCC PR 109224). Silenced for the coroutines only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

asio::awaitable<void> TestHttpServer::Accept() {
  for (;;) {
    error_code ec;
    tcp::socket socket =
        co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec || stopping_) co_return;
    size_t index = 0;
    {
      MutexLock lock(mutex_);
      index = connection_count_++;
    }
    changed_.SignalAll();
    asio::co_spawn(io_context_, Serve(std::move(socket), index), RethrowOnError);
  }
}

Behavior TestHttpServer::Record(const http::request<http::string_body>& request,
                                size_t connection_index) {
  ReceivedRequest received;
  received.method = std::string(request.method_string());
  received.target = std::string(request.target());
  for (const auto& field : request) {
    received.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  received.body = request.body();
  received.arrival = clock_.Now();
  received.connection_index = connection_index;

  Behavior behavior;
  {
    MutexLock lock(mutex_);
    requests_.push_back(std::move(received));
    behavior = !script_.empty() ? std::move(script_.front())
               : responder_     ? responder_(requests_.back(), requests_.size() - 1)
                                : default_behavior_;
    if (!script_.empty()) script_.pop_front();
  }
  changed_.SignalAll();
  return behavior;
}

asio::awaitable<void> TestHttpServer::Serve(tcp::socket socket, size_t connection_index) {
  if (stopping_) co_return;  // accepted just before Stop(); the socket closes with this frame
  // Removed explicitly below, not by an RAII guard, so that every exit path
  // stays visible; all exits funnel through the end of the loop.
  open_sockets_.insert(&socket);
  beast::flat_buffer buffer;
  error_code ec;
  for (bool keep_open = true; keep_open;) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(64 * 1024);
    parser.body_limit(kMaxRequestBodyBytes);
    // Header first: Beast 1.74's eager async_read can lose a body_limit error.
    co_await http::async_read_header(socket, buffer, parser,
                                     asio::redirect_error(asio::use_awaitable, ec));
    if (!ec && !parser.is_done()) {
      co_await http::async_read(socket, buffer, parser,
                                asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec) break;
    const http::request<http::string_body>& request = parser.get();
    Behavior behavior = Record(request, connection_index);

    if (auto* respond = std::get_if<Respond>(&behavior)) {
      http::response<http::string_body> response{static_cast<http::status>(respond->status),
                                                 request.version()};
      response.keep_alive(request.keep_alive());
      response.body() = std::move(respond->body);
      response.prepare_payload();
      for (const auto& [name, value] : respond->headers) response.set(name, value);
      // "Transfer-Encoding: chunked" in the script means: send the body chunked.
      if (response.chunked()) response.erase(http::field::content_length);
      keep_open = response.keep_alive() && !respond->close_after_response;
      co_await http::async_write(socket, response, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
    } else if (auto* raw = std::get_if<RawResponse>(&behavior)) {
      keep_open = raw->keep_open;
      co_await asio::async_write(socket, asio::buffer(raw->bytes),
                                 asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
    } else if (auto* drip = std::get_if<Drip>(&behavior)) {
      keep_open = drip->keep_open;
      asio::steady_timer timer(socket.get_executor());
      for (size_t i = 0; i < drip->bytes.size() && !ec; ++i) {
        co_await asio::async_write(socket, asio::buffer(&drip->bytes[i], 1),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec) break;
        timer.expires_after(drip->interval);
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        // Stop() closes the socket; the next write then fails.
        if (stopping_) ec = asio::error::operation_aborted;
      }
      if (ec) break;
    } else if (std::holds_alternative<Hang>(behavior)) {
      // Drain until the client goes away, EndHangs() or Stop() closes the socket.
      hung_sockets_.insert(&socket);
      std::array<char, 4096> scratch;
      while (!ec) {
        co_await socket.async_read_some(asio::buffer(scratch),
                                        asio::redirect_error(asio::use_awaitable, ec));
      }
      hung_sockets_.erase(&socket);
      keep_open = false;
    } else if (std::holds_alternative<Reset>(behavior)) {
      socket.set_option(asio::socket_base::linger(true, 0), ec);
      keep_open = false;
    } else {  // CloseWithoutResponse
      socket.shutdown(tcp::socket::shutdown_send, ec);
      keep_open = false;
    }
  }
  open_sockets_.erase(&socket);
  socket.close(ec);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace rayagg::test
