// A real HTTP/1.1 server on 127.0.0.1 (port chosen by the OS) for integration
// tests: it records every request and answers each one with a scripted
// behaviour (respond, hang, reset, close, raw bytes). It runs its own io_context on its
// own thread; every public method is thread-safe unless noted.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "common/real_clock.h"
#include "rayagg/asio.h"
#include "rayagg/mutex.h"

namespace rayagg::test {

// The completion of a test server's co_spawn'ed coroutines: an exception that
// escapes one is rethrown from the io_context's run(), never swallowed.
inline void RethrowOnError(std::exception_ptr error) {
  if (error) std::rethrow_exception(error);
}

using TestHeaders = std::vector<std::pair<std::string, std::string>>;

struct ReceivedRequest {
  std::string method{};
  std::string target{};
  TestHeaders headers{};  // in arrival order, names as sent
  std::string body{};
  std::chrono::steady_clock::time_point arrival{};  // when the request was complete
  size_t connection_index = 0;                      // 0-based, in accept order

  // The first value of header `name` (case-insensitive), if present.
  std::optional<std::string> Header(std::string_view name) const;
};

// How the server treats one request. Declared at namespace scope (not nested
// in TestHttpServer) so the variant is default-constructible where needed.

// Answers with `status`, the given headers (applied last, so they can
// override Content-Type, Connection or even Content-Length; with
// "Transfer-Encoding: chunked" the body is sent chunked) and `body`.
// The connection stays open unless the request or `headers` say
// "Connection: close" (which is then honoured by closing after the
// response) or `close_after_response` is set: the latter closes after the
// response WITHOUT announcing it, like a server whose keep-alive timer fires.
// An aggregate, so `Respond{.status = 503}` works. Every member has a default
// member initializer: g++ 12 then does not warn (-Wmissing-field-initializers)
// about members a braced or designated initializer leaves out.
struct Respond {
  unsigned status = 200;
  TestHeaders headers{};
  std::string body{};
  bool close_after_response = false;
};
// Reads the request and never answers; the socket stays open until the
// client closes it, EndHangs() or Stop().
struct Hang {};
// Reads the request, then closes with SO_LINGER 0 so the client gets a RST.
struct Reset {};
// Reads the request, then closes gracefully (FIN) without answering.
struct CloseWithoutResponse {};
// Writes `bytes` verbatim as the answer (interim 1xx responses, malformed or
// oversized headers, ...), then closes the connection unless `keep_open`.
struct RawResponse {
  std::string bytes{};
  bool keep_open = false;
};
// Writes `bytes` one byte every `interval` (a collector that drips its
// answer), then closes the connection unless `keep_open`.
struct Drip {
  std::string bytes{};
  std::chrono::milliseconds interval{50};
  bool keep_open = false;
};
using Behavior = std::variant<Respond, Hang, Reset, CloseWithoutResponse, RawResponse, Drip>;
// Picks the behaviour for a request from the request itself and its 0-based
// index among all requests. Runs under the server's lock: it must not call
// back into the server.
using Responder = std::function<Behavior(const ReceivedRequest&, size_t index)>;

class TestHttpServer {
 public:
  // The behaviours, also reachable as TestHttpServer::Respond etc.
  using Respond = test::Respond;
  using Hang = test::Hang;
  using Reset = test::Reset;
  using CloseWithoutResponse = test::CloseWithoutResponse;
  using RawResponse = test::RawResponse;
  using Behavior = test::Behavior;
  using Drip = test::Drip;

  static constexpr size_t kMaxRequestBodyBytes = 64 * 1024 * 1024;

  // Binds and starts serving; throws boost::system::system_error if it cannot bind.
  TestHttpServer();
  TestHttpServer(const TestHttpServer&) = delete;
  TestHttpServer& operator=(const TestHttpServer&) = delete;
  ~TestHttpServer();  // Stop()

  uint16_t port() const { return port_; }
  // "http://127.0.0.1:<port>" followed by `path_and_query` (e.g. "/events").
  std::string Url(std::string_view path_and_query = {}) const;

  // Used for every request when the script is empty (initially Respond{}).
  void SetDefaultBehavior(Behavior behavior);
  // Appends to the script: each request consumes the front entry.
  void Enqueue(Behavior behavior);
  // Used instead of the default behaviour when the script is empty; an
  // empty function goes back to the default behaviour.
  void SetResponder(Responder responder);

  std::vector<ReceivedRequest> Requests() const;
  size_t RequestCount() const;
  size_t ConnectionCount() const;  // accepted so far

  // Block until the condition holds or `timeout` passes; return whether it holds.
  bool WaitForRequests(size_t n, std::chrono::milliseconds timeout);
  bool WaitForConnections(size_t n, std::chrono::milliseconds timeout);
  // `predicate` runs under the server's lock: it must not call back into the server.
  bool WaitUntil(std::function<bool(const std::vector<ReceivedRequest>&)> predicate,
                 std::chrono::milliseconds timeout);

  // Closes every connection whose request got Hang (the client sees the
  // connection closed without an answer); the server goes on serving. Lets a
  // test end a hang when it chooses instead of racing the client's timeout.
  void EndHangs();

  // Closes the listener and every connection (hung ones included) and joins the
  // server thread. Idempotent; must not be called from the server's own thread.
  // Recorded requests stay readable afterwards.
  void Stop();

 private:
  using tcp = asio::ip::tcp;

  void Run();
  asio::awaitable<void> Accept();
  asio::awaitable<void> Serve(tcp::socket socket, size_t connection_index);
  // Records a complete request and returns the behaviour it gets.
  Behavior Record(const http::request<http::string_body>& request, size_t connection_index);

  RealClock clock_;  // arrival times: real requests on real sockets
  mutable Mutex mutex_;
  CondVar changed_;
  std::deque<Behavior> script_ ABSL_GUARDED_BY(mutex_);
  Behavior default_behavior_ ABSL_GUARDED_BY(mutex_) = Respond{};
  Responder responder_ ABSL_GUARDED_BY(mutex_);
  std::vector<ReceivedRequest> requests_ ABSL_GUARDED_BY(mutex_);
  size_t connection_count_ ABSL_GUARDED_BY(mutex_) = 0;

  // Only touched on the server thread. Declared before io_context_ so they
  // outlive anything io_context_ destroys.
  std::unordered_set<tcp::socket*> open_sockets_;
  std::unordered_set<tcp::socket*> hung_sockets_;  // a subset of open_sockets_
  bool stopping_ = false;

  asio::io_context io_context_{1};
  tcp::acceptor acceptor_{io_context_};
  uint16_t port_ = 0;
  std::once_flag stop_once_;
  std::thread thread_;
};

}  // namespace rayagg::test
