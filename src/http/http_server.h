// A small asynchronous HTTP/1.1 server (Beast + coroutines) for the daemon's
// own listeners: JSON ingest of Ray's export (issue 7) and the ops endpoints
// (/metrics, /healthz, /readyz), and ray-task-history's API and ops
// listeners. It owns routing and protocol hygiene so that handlers only see
// complete, size-checked requests:
//   - 404 for an unknown path, 405 (with Allow) for a method the route lacks,
//     413 above the body limit, 400 for malformed HTTP, 421 for a Host not
//     in allowed_hosts (DNS rebinding), 401 when `authorize` refuses;
//   - X-Content-Type-Options: nosniff and fixed_headers on every answer,
//     errors as plain text or JSON (json_errors), never echoing request text;
//   - exact and prefix routes, answers whole or streamed in chunks (each
//     chunk with its own write deadline), gzip when asked (gzip_responses);
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
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "http/connection_table.h"
#include "http/host_allowlist.h"
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

// The body of a streamed answer, produced piece by piece while the previous
// piece is written, so an answer of any length holds one piece in memory.
// Destroyed as soon as the answer ends, completed or not (the client stopped
// reading, a write deadline passed, the server stops): release what it holds
// (a database connection) in the destructor.
class HttpBodyProducer {
 public:
  virtual ~HttpBodyProducer() = default;
  // Appends the next piece of the body to `out` (empty on entry; tens of KiB
  // is a good size). Returns true when more may follow, false when the body
  // is complete (`out` may hold a last piece), or an error: the answer is
  // cut off — the connection closes without the final chunk, so the client
  // sees a truncated answer, never a complete one (counted: stream_errors).
  // An empty piece with true is allowed (nothing is written for it). Runs on
  // HttpServerOptions::producer_executor when set, else on the connection's
  // strand; calls for one answer never overlap.
  virtual absl::StatusOr<bool> Next(std::string& out) = 0;
};

// A producer from any callable `absl::StatusOr<bool>(std::string&)`, move-only
// captures included.
template <typename F>
std::unique_ptr<HttpBodyProducer> MakeHttpBodyProducer(F next) {
  class Producer final : public HttpBodyProducer {
   public:
    explicit Producer(F f) : next_(std::move(f)) {}
    absl::StatusOr<bool> Next(std::string& out) override { return next_(out); }

   private:
    F next_;
  };
  return std::make_unique<Producer>(std::move(next));
}

// What a streaming handler answers: `head`'s status and fields, then the
// producer's pieces as the body (chunked for HTTP/1.1; for HTTP/1.0 as is,
// ended by closing the connection). Content-Length is never sent. Without a
// producer, `head` is a whole answer, body included (e.g. a 400 for a bad
// parameter, decided before anything is streamed).
struct HttpStreamedResponse {
  HttpServerResponse head;
  std::unique_ptr<HttpBodyProducer> producer;
};

// Like HttpHandler, for an answer streamed in pieces.
using HttpStreamHandler = std::function<HttpStreamedResponse(HttpRequest& request)>;

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
  // Writing one response (and an interim 100 Continue); for a streamed
  // answer, each chunk (a client that stops reading is cut off after one).
  std::chrono::milliseconds write_timeout{30'000};
  // Host names (and address literals, IPv6 in brackets) requests may name in
  // their Host header, port ignored, case-insensitive; "*" allows any. Empty:
  // any Host, and none is required. Otherwise a request naming another host
  // gets 421 and one without Host gets 400 (both counted: misdirected),
  // before its body is read — the defence against DNS rebinding, where a
  // web page reaches a loopback listener under the page's own name.
  std::vector<std::string> allowed_hosts{};
  // Checked for every request that passed the Host check, before routing
  // (so an unknown path is refused too): refused requests get 401 with
  // WWW-Authenticate: Bearer, counted as unauthorized.
  HttpHeaderCheck authorize{};
  // Answers whose body is larger than gzip_min_bytes, to requests whose
  // Accept-Encoding allows gzip, are gzip'd (Content-Encoding: gzip, Vary:
  // Accept-Encoding), unless the handler set a Content-Encoding or the
  // body is an image other than SVG (compressed already). Streamed
  // answers are compressed as they are produced (one flush per piece).
  bool gzip_responses = false;
  size_t gzip_min_bytes = 1024;
  // The server's own error answers (400, 401, 404, 405, 413, 421, 431, 500)
  // as {"result": false, "msg": "..."} (application/json) instead of text.
  bool json_errors = false;
  // Fields set on every answer besides nosniff, the server's own errors
  // included, over any the handler set (e.g. ray-task-history's
  // Content-Security-Policy and Referrer-Policy, docs/SECURITY.md).
  std::vector<std::pair<std::string, std::string>> fixed_headers{};
  // Where HttpBodyProducer::Next runs: set it to a thread pool's executor
  // when producers block (page a database), so that a slow producer holds a
  // pool thread, not one of the io_context's. Unset: on the connection's
  // strand.
  std::optional<asio::any_io_executor> producer_executor{};
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
  std::atomic<uint64_t> unauthorized{0};            // `authorize` or a route's check refused; 401
  // The Host header was missing (400) or not in allowed_hosts (421).
  std::atomic<uint64_t> misdirected{0};
  // A read (read_timeout) or write deadline passed in the middle of a request.
  std::atomic<uint64_t> timeouts{0};
  std::atomic<uint64_t> handler_errors{0};     // a handler threw; answered 500
  std::atomic<uint64_t> streams_completed{0};  // streamed answers written to their end
  // A producer failed (or threw) mid-answer; the answer was cut off.
  std::atomic<uint64_t> stream_errors{0};
  std::atomic<uint64_t> gzipped{0};  // answers sent with Content-Encoding: gzip
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
  // A route whose answer is streamed (HttpStreamedResponse).
  void AddStreamRoute(std::string path, std::vector<http::verb> methods, HttpStreamHandler handler);
  // Routes for every path that starts with `prefix` (e.g. "/exports/"):
  // an exact route wins over a prefix route, a longer prefix over a shorter.
  void AddPrefixRoute(std::string prefix, std::vector<http::verb> methods, HttpHandler handler);
  void AddPrefixStreamRoute(std::string prefix, std::vector<http::verb> methods,
                            HttpStreamHandler handler);

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
    std::vector<http::verb> methods{};
    HttpHandler handler{};  // one of these three
    AsyncHttpHandler async_handler{};
    HttpStreamHandler stream_handler{};
    HttpHeaderCheck authorize{};  // none: every request may go on
  };
  const Route* FindRoute(std::string_view target) const;
  // The server's own answer for `status` (text or JSON, see json_errors);
  // `message` is fixed text, never request text.
  HttpServerResponse ErrorAnswer(http::status status, std::string_view message,
                                 unsigned version = 11) const;
  // Headers every answer carries (nosniff, fixed_headers).
  void SetCommonFields(http::fields& fields) const;
  // SetCommonFields, and gzip when it applies.
  void Finish(const HttpRequest& request, HttpServerResponse& response);
  // Refuses a request from its header alone (Host check, authorization),
  // nullopt when it may go on.
  std::optional<HttpServerResponse> Screen(const HttpRequest::header_type& header);
  // Writes a streamed answer; false when the connection must close.
  asio::awaitable<bool> WriteStreamed(beast::tcp_stream& stream, const HttpRequest& request,
                                      HttpStreamedResponse answer, bool keep_open);
  asio::awaitable<absl::StatusOr<bool>> Produce(HttpBodyProducer& producer, std::string& out);
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
  asio::awaitable<HttpStreamedResponse> Dispatch(HttpRequest& request);
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
  const HostAllowlist allowed_hosts_;
  std::unordered_map<std::string, Route> routes_;
  std::vector<std::pair<std::string, Route>> prefix_routes_;  // longest prefix first
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
