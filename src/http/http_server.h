// A small asynchronous HTTP/1.1 server (Beast + coroutines) for the daemon's
// own listeners: JSON ingest of Ray's export (issue 7) and the ops endpoints
// (/metrics, /healthz, /readyz). It owns routing and protocol hygiene so that
// handlers only see complete, size-checked requests:
//   - 404 for an unknown path, 405 (with Allow) for a method the route lacks,
//     413 above the body limit, 400 for malformed HTTP;
//   - deadlines on every read and write, limits on header size and field
//     count, a bounded number of connections (at the limit the connection
//     that has waited longest on its peer is closed to admit a new one, see
//     ConnectionTable), a bounded number of requests per connection,
//     keep-alive, Expect: 100-continue, HEAD answered without a body;
//   - Stop() closes everything and returns once no coroutine is left.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "http/connection_table.h"
#include "rayagg/asio.h"
#include "rayagg/mutex.h"

namespace rayagg {

using HttpRequest = http::request<http::string_body>;
using HttpServerResponse = http::response<http::string_body>;

// Called on one of the io_context's threads, possibly concurrently for
// different connections: it must be thread-safe and should not block for
// long. The request may be modified (e.g. its body moved out). The server
// sets the response's version, keep-alive and Content-Length; a handler that
// wants the connection closed sets `response.keep_alive(false)`.
using HttpHandler = std::function<HttpServerResponse(HttpRequest& request)>;

// How an asynchronous handler answers: call it once, from any thread (the
// answer is written on the connection's own executor). Copies share one
// answer; if every copy is destroyed without a call, the request gets a
// 500, so a lost callback cannot hang a connection.
class HttpResponder {
 public:
  void operator()(HttpServerResponse response) const;

 private:
  friend class HttpServer;
  struct State;
  explicit HttpResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

// A handler that answers later, e.g. once the spool has written the
// request's events: it returns at once and calls `respond` when done. The
// request stays valid (and must not be touched after `respond`) until then.
using AsyncHttpHandler = std::function<void(HttpRequest& request, HttpResponder respond)>;

// Decides from a request's header alone, before its body is read, whether
// it may go on (an authentication check). Thread-safe, like a handler.
using HttpHeaderCheck = std::function<bool(const HttpRequest::header_type& header)>;

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 0;  // 0: the OS picks; see HttpServer::port()
  uint64_t max_body_bytes = 1024 * 1024;
  // Capacity reserved past a body of known length, so that a handler can
  // pad it in place (JSON ingest: simdjson reads a little past the end).
  size_t body_spare_bytes = 0;
  uint32_t max_header_bytes = 16 * 1024;  // request line and fields; 431 above
  size_t max_header_fields = 100;         // 431 above
  // Open connections. At the limit, a new connection closes the one that
  // has waited longest on its peer (idle ones first); only when none waits
  // is it refused. Connections chosen for closing may still be open for a
  // moment, so up to max_connections + max_connections / 8 + 1 can be.
  size_t max_connections = 64;
  // The response to a connection's n-th request closes it; 0: no limit.
  uint64_t max_requests_per_connection = 0;
  // Waiting for the first byte of a request, also on a kept-alive connection.
  std::chrono::milliseconds idle_timeout{60'000};
  // From a request's first byte until its header and body have arrived
  // (slowloris: trickling a header or body byte by byte does not extend it).
  std::chrono::milliseconds read_timeout{60'000};
  // Writing one response (and an interim 100 Continue).
  std::chrono::milliseconds write_timeout{30'000};
};

struct HttpServerCounters {
  std::atomic<uint64_t> connections_accepted{0};
  // Closed at once: max_connections were open and none of them waited.
  std::atomic<uint64_t> connections_refused{0};
  // Closed to admit a new connection at max_connections (by what they waited for).
  std::atomic<uint64_t> evicted_idle{0};
  std::atomic<uint64_t> evicted_in_request{0};
  std::atomic<uint64_t> idle_timeouts{0};  // closed after idle_timeout without a request
  // Closed by the response to their max_requests_per_connection-th request.
  std::atomic<uint64_t> max_requests_reached{0};
  std::atomic<uint64_t> requests{0};                // complete requests routed (any status)
  std::atomic<uint64_t> bad_requests{0};            // malformed HTTP, answered 400
  std::atomic<uint64_t> headers_too_large{0};       // above max_header_bytes, answered 431
  std::atomic<uint64_t> too_many_header_fields{0};  // above max_header_fields, answered 431
  std::atomic<uint64_t> bodies_too_large{0};        // answered 413
  std::atomic<uint64_t> unauthorized{0};            // a route's header check refused; 401
  // A read (read_timeout) or write deadline passed in the middle of a request.
  std::atomic<uint64_t> timeouts{0};
  std::atomic<uint64_t> handler_errors{0};  // a handler threw; answered 500
};

// The connections open at one moment (the metrics' gauges).
struct HttpConnectionCounts {
  size_t open = 0;
  size_t idle = 0;        // waiting for a request's first byte
  size_t in_request = 0;  // waiting for the rest of a request's header or body
};

// A plain response for `request`: status, Content-Type and body.
HttpServerResponse MakeHttpResponse(const HttpRequest& request, http::status status,
                                    std::string body,
                                    std::string_view content_type = "text/plain; charset=utf-8");

class HttpServer {
 public:
  // The io_context may be run by several threads: the acceptor and each
  // connection run on strands of their own.
  HttpServer(asio::io_context& io_context, HttpServerOptions options);
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer();  // Stop()

  // Before Start(). `path` is matched exactly against the request target
  // without its query string. A route allowing GET also answers HEAD.
  void AddRoute(std::string path, std::vector<http::verb> methods, HttpHandler handler);
  // The same for a handler that answers asynchronously. With `authorize`,
  // a request it refuses gets 401 (WWW-Authenticate: Bearer) before its body
  // is read, and the connection is closed.
  void AddAsyncRoute(std::string path, std::vector<http::verb> methods, AsyncHttpHandler handler,
                     HttpHeaderCheck authorize = nullptr);

  // Binds, listens and starts accepting; returns the bound port. An address
  // that does not parse or a port that cannot be bound is an error naming it.
  absl::StatusOr<uint16_t> Start();

  uint16_t port() const { return port_; }
  const HttpServerCounters& counters() const { return counters_; }
  HttpConnectionCounts connection_counts() const;

  // Stops accepting, closes every connection (a handler already running
  // finishes first) and blocks until every coroutine of this server has
  // ended. Idempotent. The io_context must be running on another thread
  // (never call this from one of its threads).
  void Stop();

 private:
  struct Route {
    std::vector<http::verb> methods;
    HttpHandler handler;  // one of these two
    AsyncHttpHandler async_handler;
    HttpHeaderCheck authorize;  // none: every request may go on
  };
  const Route* FindRoute(std::string_view target) const;
  asio::awaitable<void> Accept();
  asio::awaitable<void> Serve(beast::tcp_stream stream, uint64_t id);
  // Waits for the first byte of the next request into `buffer`; false when
  // the connection ended instead (counted when it timed out).
  asio::awaitable<bool> AwaitRequest(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                     uint64_t id);
  asio::awaitable<boost::system::error_code> ReadBody(beast::tcp_stream& stream,
                                                      beast::flat_buffer& buffer, size_t length,
                                                      std::string& body);
  // Writes an error answer for a request that could not be read; the
  // connection is closed after it.
  asio::awaitable<boost::system::error_code> WriteError(beast::tcp_stream& stream,
                                                        http::status status, std::string body);
  // Writes `response` to a request whose body was not read, then reads and
  // discards what the client still sends for a short while before closing,
  // so that it sees the answer rather than a connection reset.
  asio::awaitable<void> RefuseAndLinger(beast::tcp_stream& stream, HttpServerResponse response);
  asio::awaitable<HttpServerResponse> Dispatch(HttpRequest& request);
  asio::awaitable<HttpServerResponse> CallAsync(const AsyncHttpHandler& handler,
                                                HttpRequest& request);

  // Registry of open connections, so Stop() can close them. Register
  // returns false when stopping (the connection must end at once).
  bool Register(uint64_t id, beast::tcp_stream* stream);
  void Unregister(uint64_t id);
  void CloseIfOpen(uint64_t id);  // on the connection's strand
  void BeginWait(uint64_t id, ConnectionTable::Wait wait);
  void EndWait(uint64_t id);
  // Whether a new connection may be served; at the limit, chooses a victim
  // and posts its close.
  bool Admit();
  void CloseIfStillWaiting(const ConnectionTable::Victim& victim);  // on its strand
  void SessionEnded();
  void CloserDone();
  void AcceptLoopEnded();

  asio::io_context& io_context_;
  const HttpServerOptions options_;
  std::unordered_map<std::string, Route> routes_;
  HttpServerCounters counters_;
  asio::strand<asio::io_context::executor_type> acceptor_strand_;
  asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;

  mutable Mutex mutex_;
  CondVar finished_;
  bool started_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  bool accept_loop_running_ ABSL_GUARDED_BY(mutex_) = false;
  // Closers posted by Stop() that have not run yet.
  size_t pending_closers_ ABSL_GUARDED_BY(mutex_) = 0;
  // Reserved by the accept loop, released when a session ended.
  size_t active_sessions_ ABSL_GUARDED_BY(mutex_) = 0;
  ConnectionTable open_ ABSL_GUARDED_BY(mutex_);
  uint64_t next_id_ = 0;  // only touched by the accept loop
};

}  // namespace rayagg
