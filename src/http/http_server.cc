#include "http/http_server.h"

#include <algorithm>
#include <array>
#include <exception>
#include <iterator>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "common/text.h"
#include "http/accept_encoding.h"
#include "http/gzip.h"

namespace rayagg {
namespace {

using boost::system::error_code;
using tcp = asio::ip::tcp;

// After a 413 the client may still be sending the body; reading (and
// discarding) it for a short while before closing lets the client see the
// answer instead of a connection reset (the "lingering close" of nginx).
constexpr std::chrono::milliseconds kLingerTimeout{2000};
// An accept error other than cancellation (e.g. out of file descriptors) is
// retried after this pause instead of spinning.
constexpr std::chrono::milliseconds kAcceptErrorPause{100};

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// What the wait for a request's first byte reads at most: whatever else
// arrived with it stays in the buffer for the header parser.
constexpr size_t kFirstReadBytes = 16 * 1024;

// A bug in the server must not vanish: rethrow out of io_context::run().
void RethrowIfError(const std::exception_ptr& error) {
  if (error) std::rethrow_exception(error);
}

std::string_view ToStd(beast::string_view text) { return {text.data(), text.size()}; }

// Malformed HTTP (worth a 400), as opposed to the peer closing early.
bool IsHttpParseError(const error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_target).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

size_t FieldCount(const HttpRequest::header_type& header) {
  return static_cast<size_t>(std::distance(header.begin(), header.end()));
}

bool Allows(const std::vector<http::verb>& methods, http::verb method) {
  return std::find(methods.begin(), methods.end(), method) != methods.end();
}

std::string AllowHeader(const std::vector<http::verb>& methods) {
  std::string allow;
  for (http::verb method : methods) {
    if (!allow.empty()) allow += ", ";
    allow += ToStd(http::to_string(method));
  }
  if (Allows(methods, http::verb::get) && !Allows(methods, http::verb::head)) allow += ", HEAD";
  return allow;
}

// Images other than SVG are compressed already: gzip would only cost.
bool IsCompressedType(std::string_view content_type) {
  return content_type.starts_with("image/") && !content_type.starts_with("image/svg");
}

// A JSON string literal for `text` (the server's own fixed messages).
std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[(c >> 4) & 0xf];
      out += kHex[c & 0xf];
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

// The Host header of a request, nullopt when there is none.
std::optional<std::string_view> HostHeaderOf(const HttpRequest::header_type& header) {
  const auto host = header.find(http::field::host);
  if (host == header.end()) return std::nullopt;
  return ToStd(host->value());
}

}  // namespace

HttpServerResponse MakeHttpResponse(const HttpRequest& request, http::status status,
                                    std::string body, std::string_view content_type) {
  HttpServerResponse response{status, request.version()};
  response.set(http::field::content_type,
               beast::string_view(content_type.data(), content_type.size()));
  response.body() = std::move(body);
  return response;
}

// The answer slot of one asynchronous request: the coroutine's completion
// handler, posted to the connection's executor when the answer comes.
struct HttpResponder::State {
  using Complete = std::function<void(HttpServerResponse)>;
  explicit State(Complete on_answer, unsigned http_version)
      : complete(std::move(on_answer)), version(http_version) {}
  ~State() {
    if (complete) {
      HttpServerResponse response{http::status::internal_server_error, version};
      response.set(http::field::content_type, "text/plain; charset=utf-8");
      response.body() = "internal error: the request was never answered\n";
      response.keep_alive(false);
      complete(std::move(response));
    }
  }
  Mutex mutex;
  Complete complete ABSL_GUARDED_BY(mutex);  // empty once called
  const unsigned version;
};

void HttpResponder::operator()(HttpServerResponse response) const {
  State::Complete complete;
  {
    MutexLock lock(state_->mutex);
    complete = std::move(state_->complete);
    state_->complete = nullptr;
  }
  if (complete) complete(std::move(response));
}

HttpServer::HttpServer(asio::io_context& io_context, HttpServerOptions options)
    : io_context_(io_context),
      options_(std::move(options)),
      allowed_hosts_(options_.allowed_hosts),
      acceptor_strand_(asio::make_strand(io_context)),
      acceptor_(acceptor_strand_) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::AddRoute(std::string path, std::vector<http::verb> methods, HttpHandler handler) {
  routes_[std::move(path)] = Route{.methods = std::move(methods), .handler = std::move(handler)};
}

void HttpServer::AddAsyncRoute(std::string path, std::vector<http::verb> methods,
                               AsyncHttpHandler handler, HttpHeaderCheck authorize) {
  routes_[std::move(path)] = Route{.methods = std::move(methods),
                                   .async_handler = std::move(handler),
                                   .authorize = std::move(authorize)};
}

void HttpServer::AddStreamRoute(std::string path, std::vector<http::verb> methods,
                                HttpStreamHandler handler) {
  routes_[std::move(path)] =
      Route{.methods = std::move(methods), .stream_handler = std::move(handler)};
}

void HttpServer::AddPrefixRoute(std::string prefix, std::vector<http::verb> methods,
                                HttpHandler handler) {
  prefix_routes_.emplace_back(std::move(prefix),
                              Route{.methods = std::move(methods), .handler = std::move(handler)});
  // Longest first, so the first match is the longest prefix.
  std::stable_sort(prefix_routes_.begin(), prefix_routes_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

void HttpServer::AddPrefixStreamRoute(std::string prefix, std::vector<http::verb> methods,
                                      HttpStreamHandler handler) {
  prefix_routes_.emplace_back(std::move(prefix), Route{.methods = std::move(methods),
                                                       .stream_handler = std::move(handler)});
  std::stable_sort(prefix_routes_.begin(), prefix_routes_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

const HttpServer::Route* HttpServer::FindRoute(std::string_view target) const {
  const std::string_view path = target.substr(0, target.find('?'));
  if (auto route = routes_.find(std::string(path)); route != routes_.end()) return &route->second;
  for (const auto& [prefix, route] : prefix_routes_) {
    if (path.starts_with(prefix)) return &route;
  }
  return nullptr;
}

// Every answer, whole or streamed: browsers must not guess a type other
// than the one declared (a JSON answer holding markup is not a page).
void HttpServer::SetCommonFields(http::fields& fields) const {
  fields.set("X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : options_.fixed_headers) fields.set(name, value);
}

HttpServerResponse HttpServer::ErrorAnswer(http::status status, std::string_view message,
                                           unsigned version) const {
  HttpServerResponse response{status, version};
  if (options_.json_errors) {
    response.set(http::field::content_type, "application/json");
    response.body() = strings::Cat("{\"result\":false,\"msg\":", JsonString(message), "}");
  } else {
    response.set(http::field::content_type, "text/plain; charset=utf-8");
    response.body() = strings::Cat(message, "\n");
  }
  return response;
}

std::optional<HttpServerResponse> HttpServer::Screen(const HttpRequest::header_type& header) {
  if (!allowed_hosts_.any()) {
    const std::optional<std::string_view> host = HostHeaderOf(header);
    if (!host) {
      ++counters_.misdirected;
      return ErrorAnswer(http::status::bad_request, "missing Host header", header.version());
    }
    if (!allowed_hosts_.Allows(host)) {
      // The name is not echoed: the answer may be read by the very page
      // that tried to rebind it.
      ++counters_.misdirected;
      return ErrorAnswer(http::status::misdirected_request,
                         "misdirected request: this server does not answer for that Host",
                         header.version());
    }
  }
  const HttpHeaderCheck* check = options_.authorize ? &options_.authorize : nullptr;
  const Route* route = FindRoute(ToStd(header.target()));
  bool allowed = check == nullptr || (*check)(header);
  if (allowed && route != nullptr && route->authorize) allowed = route->authorize(header);
  if (!allowed) {
    ++counters_.unauthorized;
    HttpServerResponse response =
        ErrorAnswer(http::status::unauthorized, "missing or wrong bearer token", header.version());
    response.set(http::field::www_authenticate, "Bearer");
    return response;
  }
  return std::nullopt;
}

void HttpServer::Finish(const HttpRequest& request, HttpServerResponse& response) {
  SetCommonFields(response.base());
  if (!options_.gzip_responses || response.body().size() <= options_.gzip_min_bytes ||
      response.count(http::field::content_encoding) != 0 ||
      IsCompressedType(ToStd(response[http::field::content_type]))) {
    return;
  }
  // Whether gzip'd or not, the answer depends on Accept-Encoding (caches).
  response.set(http::field::vary, "Accept-Encoding");
  if (!AcceptsGzip(ToStd(request[http::field::accept_encoding]))) return;
  std::string zipped;
  if (!GzipCompress(response.body(), zipped).ok()) return;  // out of memory: send it as is
  response.body() = std::move(zipped);
  response.set(http::field::content_encoding, "gzip");
  ++counters_.gzipped;
}

absl::StatusOr<uint16_t> HttpServer::Start() {
  {
    MutexLock lock(mutex_);
    if (started_) return absl::FailedPreconditionError("HTTP server already started");
  }
  error_code ec;
  const asio::ip::address address = asio::ip::make_address(options_.address, ec);
  if (ec) {
    return absl::InvalidArgumentError("invalid listen address '" + options_.address +
                                      "': " + ec.message());
  }
  const tcp::endpoint endpoint(address, options_.port);
  const std::string where = options_.address + ":" + std::to_string(options_.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error_code ignored;
    acceptor_.close(ignored);
    return absl::UnavailableError("cannot listen on " + where + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint().port();
  {
    MutexLock lock(mutex_);
    started_ = true;
    accept_loop_running_ = true;
  }
  asio::co_spawn(acceptor_strand_, Accept(), [this](std::exception_ptr error) {
    AcceptLoopEnded();
    RethrowIfError(error);
  });
  return port_;
}

void HttpServer::Stop() {
  MutexLock lock(mutex_);
  if (!started_) return;
  if (!stopping_) {
    stopping_ = true;
    // Each posted closer holds `this`: Stop() waits for them too, or one
    // could run after the server is gone (its session may end on its own
    // before the closer runs).
    ++pending_closers_;
    asio::post(acceptor_strand_, [this] {
      error_code ignored;
      acceptor_.close(ignored);
      CloserDone();
    });
    for (const auto& [id, stream] : open_.All()) {
      ++pending_closers_;
      asio::post(stream->get_executor(), [this, id = id] {
        CloseIfOpen(id);
        CloserDone();
      });
    }
  }
  finished_.Wait(mutex_, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return !accept_loop_running_ && active_sessions_ == 0 && pending_closers_ == 0;
  });
}

bool HttpServer::Register(uint64_t id, beast::tcp_stream* stream) {
  MutexLock lock(mutex_);
  if (stopping_) return false;
  open_.Add(id, stream);
  return true;
}

void HttpServer::Unregister(uint64_t id) {
  MutexLock lock(mutex_);
  open_.Remove(id);
}

void HttpServer::CloseIfOpen(uint64_t id) {
  MutexLock lock(mutex_);
  // Runs on the connection's strand, like Unregister: a registered stream is alive.
  if (beast::tcp_stream* stream = open_.Find(id)) stream->close();
}

HttpConnectionCounts HttpServer::connection_counts() const {
  MutexLock lock(mutex_);
  return HttpConnectionCounts{
      .open = open_.size(), .idle = open_.idle(), .in_request = open_.in_request()};
}

void HttpServer::BeginWait(uint64_t id, ConnectionTable::Wait wait) {
  MutexLock lock(mutex_);
  open_.BeginWait(id, wait);
}

void HttpServer::EndWait(uint64_t id) {
  MutexLock lock(mutex_);
  open_.EndWait(id);
}

bool HttpServer::Admit() {
  MutexLock lock(mutex_);
  if (active_sessions_ < options_.max_connections) {
    ++active_sessions_;
    return true;
  }
  // Victims close on their own strands a moment later; until then they
  // still count, so admissions by eviction are capped a little above the
  // limit (a victim whose wait ended before its close ran stays open).
  if (active_sessions_ >= options_.max_connections + options_.max_connections / 8 + 1) {
    return false;
  }
  const std::optional<ConnectionTable::Victim> victim = open_.TakeOldestWaiting();
  if (!victim) return false;
  beast::tcp_stream* stream = open_.Find(victim->id);
  ++active_sessions_;
  ++pending_closers_;  // Stop() waits for it, as for its own closers
  asio::post(stream->get_executor(), [this, victim = *victim] {
    CloseIfStillWaiting(victim);
    CloserDone();
  });
  return true;
}

void HttpServer::CloseIfStillWaiting(const ConnectionTable::Victim& victim) {
  MutexLock lock(mutex_);
  // On the victim's strand: if its wait is still the chosen one, its read is
  // pending and the close cancels it; otherwise it moved on (a request
  // arrived) and is left alone.
  if (!open_.IsStillWaiting(victim)) return;
  open_.EndWait(victim.id);
  open_.Find(victim.id)->close();
  ++(victim.wait == ConnectionTable::Wait::kIdle ? counters_.evicted_idle
                                                 : counters_.evicted_in_request);
}

void HttpServer::CloserDone() {
  // Signalled under the lock: a waiter in Stop() may destroy the server (and
  // this condition variable) as soon as it sees the change.
  MutexLock lock(mutex_);
  --pending_closers_;
  finished_.SignalAll();
}

void HttpServer::SessionEnded() {
  // Under the lock, as in CloserDone().
  MutexLock lock(mutex_);
  --active_sessions_;
  finished_.SignalAll();
}

void HttpServer::AcceptLoopEnded() {
  // Under the lock, as in CloserDone().
  MutexLock lock(mutex_);
  accept_loop_running_ = false;
  finished_.SignalAll();
}

asio::awaitable<void> HttpServer::Accept() {
  for (;;) {
    error_code ec;
    tcp::socket socket = co_await acceptor_.async_accept(
        asio::make_strand(io_context_), asio::redirect_error(asio::use_awaitable, ec));
    if (!acceptor_.is_open()) co_return;  // Stop()
    if (ec) {
      asio::steady_timer pause(acceptor_strand_, kAcceptErrorPause);
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    {
      MutexLock lock(mutex_);
      if (stopping_) co_return;
    }
    if (!Admit()) {
      ++counters_.connections_refused;
      socket.close(ec);
      continue;
    }
    ++counters_.connections_accepted;
    const uint64_t id = next_id_++;
    auto executor = socket.get_executor();
    asio::co_spawn(executor, Serve(beast::tcp_stream(std::move(socket)), id),
                   [this](std::exception_ptr error) {
                     SessionEnded();
                     RethrowIfError(error);
                   });
  }
}

asio::awaitable<HttpServerResponse> HttpServer::CallAsync(const AsyncHttpHandler& handler,
                                                          HttpRequest& request) {
  // The answer arrives on any thread; it is handed over on the connection's
  // strand, where a timer that never expires by itself wakes this coroutine.
  struct Answer {
    explicit Answer(const asio::any_io_executor& executor)
        : wake(executor, asio::steady_timer::time_point::max()) {}
    asio::steady_timer wake;
    std::optional<HttpServerResponse> response;
  };
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  auto answer = std::make_shared<Answer>(executor);
  auto complete = [answer, executor](HttpServerResponse response) {
    asio::post(executor, [answer, response = std::move(response)]() mutable {
      answer->response = std::move(response);
      answer->wake.cancel();
    });
  };
  handler(request, HttpResponder(std::make_shared<HttpResponder::State>(std::move(complete),
                                                                        request.version())));
  while (!answer->response) {
    error_code ec;
    co_await answer->wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return std::move(*answer->response);
}

asio::awaitable<HttpStreamedResponse> HttpServer::Dispatch(HttpRequest& request) {
  const Route* route = FindRoute(ToStd(request.target()));
  if (route == nullptr) {
    co_return HttpStreamedResponse{ErrorAnswer(http::status::not_found, "not found"), nullptr};
  }
  const std::vector<http::verb>& methods = route->methods;
  const bool allowed = Allows(methods, request.method()) ||
                       (request.method() == http::verb::head && Allows(methods, http::verb::get));
  if (!allowed) {
    HttpServerResponse response =
        ErrorAnswer(http::status::method_not_allowed, "method not allowed");
    response.set(http::field::allow, AllowHeader(methods));
    co_return HttpStreamedResponse{std::move(response), nullptr};
  }
  try {
    if (route->async_handler) {
      // Not inside the braces: g++ 12 destroys a co_await's temporary
      // twice in an aggregate initializer.
      HttpServerResponse answered = co_await CallAsync(route->async_handler, request);
      co_return HttpStreamedResponse{std::move(answered), nullptr};
    }
    if (route->stream_handler) co_return route->stream_handler(request);
    co_return HttpStreamedResponse{route->handler(request), nullptr};
  } catch (const std::exception&) {
    // Answered below: co_await is not allowed inside a handler block.
  }
  ++counters_.handler_errors;
  HttpServerResponse response = ErrorAnswer(http::status::internal_server_error, "internal error");
  response.keep_alive(false);
  co_return HttpStreamedResponse{std::move(response), nullptr};
}

asio::awaitable<absl::StatusOr<bool>> HttpServer::Produce(HttpBodyProducer& producer,
                                                          std::string& out) {
  auto next = [&producer, &out]() -> absl::StatusOr<bool> {
    try {
      return producer.Next(out);
    } catch (const std::exception&) {
      return absl::InternalError("the body producer threw");
    }
  };
  if (!options_.producer_executor) co_return next();
  // On the pool; the answer comes back on this connection's strand.
  co_return co_await asio::co_spawn(
      *options_.producer_executor,
      [next]() -> asio::awaitable<absl::StatusOr<bool>> { co_return next(); }, asio::use_awaitable);
}

asio::awaitable<bool> HttpServer::WriteStreamed(beast::tcp_stream& stream,
                                                const HttpRequest& request,
                                                HttpStreamedResponse answer, bool keep_open) {
  http::response<http::empty_body> head;
  head.base() = answer.head.base();
  head.version(request.version());
  head.erase(http::field::content_length);
  SetCommonFields(head.base());
  // HTTP/1.0 has no chunks: the body ends where the connection does.
  const bool chunked = request.version() >= 11;
  if (!chunked) keep_open = false;
  head.keep_alive(keep_open);
  head.chunked(chunked);
  std::optional<GzipStreamEncoder> gzip;
  if (options_.gzip_responses && head.count(http::field::content_encoding) == 0) {
    head.set(http::field::vary, "Accept-Encoding");
    if (AcceptsGzip(ToStd(request[http::field::accept_encoding]))) {
      head.set(http::field::content_encoding, "gzip");
      gzip.emplace();
      ++counters_.gzipped;
    }
  }
  error_code ec;
  http::response_serializer<http::empty_body> serializer(head);
  stream.expires_after(options_.write_timeout);
  co_await http::async_write_header(stream, serializer,
                                    asio::redirect_error(asio::use_awaitable, ec));
  if (!ec && request.method() == http::verb::head) co_return keep_open;
  std::string piece, zipped;
  for (bool more = true; more && !ec;) {
    piece.clear();
    absl::StatusOr<bool> next = co_await Produce(*answer.producer, piece);
    if (!next.ok()) {
      ++counters_.stream_errors;
      co_return false;  // no last chunk: the client sees the answer cut off
    }
    more = *next;
    std::string_view out = piece;
    if (gzip) {
      zipped.clear();
      if (!gzip->Add(piece, !more, zipped).ok()) {
        ++counters_.stream_errors;
        co_return false;
      }
      out = zipped;
    }
    if (out.empty()) continue;  // an empty chunk would end the body
    // A deadline per chunk: a client that stops reading is cut off after
    // one, with at most one piece held.
    stream.expires_after(options_.write_timeout);
    const asio::const_buffer data(out.data(), out.size());
    if (chunked) {
      co_await asio::async_write(stream, http::make_chunk(data),
                                 asio::redirect_error(asio::use_awaitable, ec));
    } else {
      co_await asio::async_write(stream, data, asio::redirect_error(asio::use_awaitable, ec));
    }
  }
  answer.producer.reset();  // what it holds goes back before the last write
  if (!ec && chunked) {
    stream.expires_after(options_.write_timeout);
    co_await asio::async_write(stream, http::make_chunk_last(),
                               asio::redirect_error(asio::use_awaitable, ec));
  }
  if (ec) {
    if (ec == beast::error::timeout) ++counters_.timeouts;
    co_return false;
  }
  ++counters_.streams_completed;
  co_return keep_open;
}

// A body of known length goes straight into its string: first what arrived
// with the header, then the rest with reads as large as the socket allows.
// Beast's own body reading takes 64 KiB steps, each with a copy out of the
// read buffer and a timer update, which was a third of HTTP JSON ingest's CPU
// on Ray's 1 MB bodies. Bytes after the body stay in `buffer` (pipelining).
asio::awaitable<error_code> HttpServer::ReadBody(beast::tcp_stream& stream,
                                                 beast::flat_buffer& buffer, size_t length,
                                                 std::string& body) {
  body.clear();
  body.reserve(length + options_.body_spare_bytes);
  const size_t buffered = std::min(buffer.size(), length);
  body.append(static_cast<const char*>(buffer.data().data()), buffered);
  buffer.consume(buffered);
  body.resize(length);
  error_code ec;
  if (buffered < length) {
    co_await asio::async_read(stream, asio::buffer(body.data() + buffered, length - buffered),
                              asio::redirect_error(asio::use_awaitable, ec));
  }
  // The connection ended inside the body: what Beast reports for it.
  if (ec == asio::error::eof) ec = http::error::partial_message;
  co_return ec;
}

asio::awaitable<bool> HttpServer::AwaitRequest(beast::tcp_stream& stream,
                                               beast::flat_buffer& buffer, uint64_t id) {
  if (buffer.size() > 0) co_return true;  // pipelined: the next request is here
  BeginWait(id, ConnectionTable::Wait::kIdle);
  stream.expires_after(options_.idle_timeout);
  error_code ec;
  const size_t received = co_await stream.async_read_some(
      buffer.prepare(kFirstReadBytes), asio::redirect_error(asio::use_awaitable, ec));
  buffer.commit(received);
  EndWait(id);
  // A clean close is the normal end of a kept-alive connection; a close
  // to admit another connection is counted by whoever closed it.
  if (ec == beast::error::timeout) ++counters_.idle_timeouts;
  co_return !ec;
}

asio::awaitable<void> HttpServer::Serve(beast::tcp_stream stream, uint64_t id) {
  if (!Register(id, &stream)) co_return;  // stopping; the socket closes with this frame
  // Every exit goes through the end of the loop, which unregisters explicitly
  // (no RAII guard: it would outlive nothing and hide the exit paths).
  beast::flat_buffer buffer;
  error_code ec;
  uint64_t served = 0;
  for (bool keep_open = true; keep_open;) {
    if (!co_await AwaitRequest(stream, buffer, id)) break;
    HttpRequest request;
    bool released = false;  // `request` holds the header; the parser is done with
    http::request_parser<http::string_body> parser;
    parser.header_limit(options_.max_header_bytes);
    parser.body_limit(options_.max_body_bytes);
    // The whole request within read_timeout of its first byte, however it
    // trickles in; a connection waiting on it may be closed to admit another.
    BeginWait(id, ConnectionTable::Wait::kRequest);
    stream.expires_after(options_.read_timeout);
    // Header first: Beast 1.74's eager async_read can lose a body_limit error,
    // and Expect: 100-continue must be answered between header and body.
    co_await http::async_read_header(stream, buffer, parser,
                                     asio::redirect_error(asio::use_awaitable, ec));
    bool too_large = ec == http::error::body_limit ||
                     (!ec && parser.content_length().value_or(0) > options_.max_body_bytes);
    if (ec && !too_large) {
      EndWait(id);
      if (ec == beast::error::timeout) ++counters_.timeouts;
      if (ec == http::error::header_limit) {
        ++counters_.headers_too_large;
        co_await WriteError(
            stream, http::status::request_header_fields_too_large,
            "request header larger than " + std::to_string(options_.max_header_bytes) + " bytes");
      } else if (IsHttpParseError(ec)) {
        ++counters_.bad_requests;
        co_await WriteError(stream, http::status::bad_request, "malformed HTTP request");
      }
      break;
    }
    if (!ec && FieldCount(parser.get()) > options_.max_header_fields) {
      EndWait(id);
      ++counters_.too_many_header_fields;
      co_await WriteError(
          stream, http::status::request_header_fields_too_large,
          "more than " + std::to_string(options_.max_header_fields) + " header fields");
      break;
    }
    // From the header alone, before the body is read (or found too large):
    // the connection closes after the answer.
    if (std::optional<HttpServerResponse> refused = Screen(parser.get())) {
      EndWait(id);
      co_await RefuseAndLinger(stream, *std::move(refused));
      break;
    }
    if (!too_large && !parser.is_done()) {
      const auto expect = parser.get()[http::field::expect];
      if (beast::iequals(expect, "100-continue")) {
        stream.expires_after(options_.write_timeout);
        co_await asio::async_write(stream, asio::buffer(kContinue.data(), kContinue.size()),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
          EndWait(id);
          break;
        }
        stream.expires_after(options_.read_timeout);
      }
      if (const auto length = parser.content_length(); length && !parser.chunked()) {
        request = parser.release();
        released = true;
        ec = co_await ReadBody(stream, buffer, static_cast<size_t>(*length), request.body());
      } else {
        co_await http::async_read(stream, buffer, parser,
                                  asio::redirect_error(asio::use_awaitable, ec));
        too_large = ec == http::error::body_limit;
      }
      if (ec && !too_large) {
        EndWait(id);
        if (ec == beast::error::timeout) ++counters_.timeouts;
        if (IsHttpParseError(ec)) {
          ++counters_.bad_requests;
          co_await WriteError(stream, http::status::bad_request, "malformed HTTP request body");
        }
        break;
      }
    }
    EndWait(id);
    if (too_large) {
      ++counters_.bodies_too_large;
      co_await RefuseAndLinger(stream,
                               ErrorAnswer(http::status::payload_too_large,
                                           "request body larger than " +
                                               std::to_string(options_.max_body_bytes) + " bytes"));
      break;
    }

    if (!released) request = parser.release();
    ++counters_.requests;
    ++served;
    const bool request_keep_alive = request.keep_alive();
    HttpStreamedResponse answer = co_await Dispatch(request);
    keep_open = request_keep_alive && answer.head.keep_alive();
    if (keep_open && options_.max_requests_per_connection != 0 &&
        served >= options_.max_requests_per_connection) {
      ++counters_.max_requests_reached;
      keep_open = false;
    }
    if (answer.producer != nullptr) {
      keep_open = co_await WriteStreamed(stream, request, std::move(answer), keep_open);
      continue;
    }
    HttpServerResponse& response = answer.head;
    Finish(request, response);
    response.version(request.version());
    response.keep_alive(keep_open);
    if (request.method() == http::verb::head) {
      // Same headers as GET would get, no body.
      const size_t length = response.body().size();
      response.body().clear();
      response.content_length(length);
    } else {
      response.prepare_payload();
    }
    stream.expires_after(options_.write_timeout);
    co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == beast::error::timeout) ++counters_.timeouts;
      break;
    }
  }
  Unregister(id);
  stream.socket().close(ec);
}

asio::awaitable<void> HttpServer::RefuseAndLinger(beast::tcp_stream& stream,
                                                  HttpServerResponse response) {
  SetCommonFields(response.base());
  response.keep_alive(false);
  response.prepare_payload();
  stream.expires_after(options_.write_timeout);
  error_code ec;
  co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    if (ec == beast::error::timeout) ++counters_.timeouts;
    co_return;
  }
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  stream.expires_after(std::min(kLingerTimeout, options_.read_timeout));
  std::array<char, 16 * 1024> scratch;
  while (!ec) {
    co_await stream.async_read_some(asio::buffer(scratch),
                                    asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<error_code> HttpServer::WriteError(beast::tcp_stream& stream, http::status status,
                                                   std::string body) {
  HttpServerResponse response = ErrorAnswer(status, body);
  SetCommonFields(response.base());
  response.keep_alive(false);
  response.prepare_payload();
  stream.expires_after(options_.write_timeout);
  error_code ec;
  co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
  if (ec == beast::error::timeout) ++counters_.timeouts;
  co_return ec;
}

}  // namespace rayagg
