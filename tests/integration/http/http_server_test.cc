// HttpServer on a real loopback socket, driven by real clients: our
// HttpClient for POSTs and a plain socket for everything HttpClient does not
// send (other methods, malformed or chunked requests, Expect, idle sockets).
#include "http/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "http/http_client.h"
#include "rayagg/mutex.h"
#include "support/condition_wait.h"
#include "support/io_thread.h"
#include "support/raw_http_client.h"
#include "support/run_coroutine.h"

namespace {

using namespace std::chrono_literals;
using rayagg::HttpClient;
using rayagg::HttpHandler;
using rayagg::HttpRequest;
using rayagg::HttpResult;
using rayagg::HttpServer;
using rayagg::HttpServerOptions;
using rayagg::HttpServerResponse;
using rayagg::MakeHttpResponse;
using rayagg::test::IoThread;
using rayagg::test::RunCoroutine;
namespace asio = rayagg::asio;
namespace beast = rayagg::beast;
namespace http = rayagg::http;
using tcp = asio::ip::tcp;

// Only a broken server makes a client wait this long.
constexpr auto kClientTimeout = rayagg::test::kConditionTimeout;

using RawClient = rayagg::test::RawHttpClient;

// The server closes a timed-out socket before its coroutine resumes and
// counts, so counters are awaited (with a deadline) rather than read once.
bool WaitForCount(const std::atomic<uint64_t>& counter, uint64_t expected) {
  return rayagg::test::WaitFor([&] { return counter.load() == expected; });
}

HttpHandler Echo() {
  return [](HttpRequest& request) {
    return MakeHttpResponse(request, http::status::ok,
                            std::string(request.method_string()) + " " +
                                std::string(request.target()) + " " + request.body());
  };
}

class HttpServerTest : public ::testing::Test {
 protected:
  // Two threads: handlers of different connections may run concurrently.
  void StartServer(HttpServerOptions options = {}) {
    server_ = std::make_unique<HttpServer>(server_io_, std::move(options));
    server_->AddRoute("/v1/events", {http::verb::post}, Echo());
    server_->AddRoute("/metrics", {http::verb::get}, Echo());
    server_->AddRoute("/boom", {http::verb::post}, [](HttpRequest&) -> HttpServerResponse {
      throw std::runtime_error("handler bug");
    });
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.status();
    ASSERT_NE(*port, 0);
    ASSERT_EQ(*port, server_->port());
  }

  std::unique_ptr<HttpClient> MakeClient(const std::string& target) {
    auto url = rayagg::ParseUrl("http://127.0.0.1:" + std::to_string(server_->port()) + target);
    EXPECT_TRUE(url.ok()) << url.status();
    return std::make_unique<HttpClient>(client_io_.get_executor(), *url, kClientTimeout);
  }

  HttpResult Post(HttpClient& client, std::string body) {
    return RunCoroutine(client_io_, client.Post(std::move(body), {}));
  }

  asio::io_context client_io_;
  asio::io_context server_io_;
  IoThread server_thread_a_{server_io_};
  IoThread server_thread_b_{server_io_};
  // Declared last: stopped (destroyed) while the io threads still run.
  std::unique_ptr<HttpServer> server_;

  void TearDown() override {
    if (server_) server_->Stop();
  }
};

TEST_F(HttpServerTest, RoutesPostToHandlerAndKeepsConnectionAlive) {
  StartServer();
  auto client = MakeClient("/v1/events?source=ray");

  const HttpResult first = Post(*client, "[1]");
  const HttpResult second = Post(*client, "[2]");

  ASSERT_FALSE(first.error) << first.error.message();
  ASSERT_FALSE(second.error) << second.error.message();
  EXPECT_EQ(first.response.status, 200u);
  EXPECT_EQ(first.response.body, "POST /v1/events?source=ray [1]");
  EXPECT_EQ(second.response.body, "POST /v1/events?source=ray [2]");
  EXPECT_EQ(client->connections_opened(), 1u);
  EXPECT_EQ(server_->counters().connections_accepted.load(), 1u);
  EXPECT_EQ(server_->counters().requests.load(), 2u);
}

// An asynchronous route answered from another thread, later, as ingest
// answers once the spool has written a request's events.
class AsyncRouteTest : public HttpServerTest {
 protected:
  void StartWithAsyncRoute() {
    server_ = std::make_unique<HttpServer>(server_io_, HttpServerOptions{});
    server_->AddAsyncRoute("/later", {http::verb::post},
                           [this](HttpRequest& request, rayagg::HttpResponder respond) {
                             rayagg::MutexLock lock(mutex_);
                             pending_.push_back({request.body(), std::move(respond)});
                             changed_.SignalAll();
                           });
    server_->AddAsyncRoute("/never", {http::verb::post},
                           [](HttpRequest&, rayagg::HttpResponder) {});
    ASSERT_TRUE(server_->Start().ok());
  }
  // Waits until `count` requests are pending, then answers the one whose
  // body is `body` from a thread of its own.
  void AnswerFromAnotherThread(size_t count, const std::string& body) {
    rayagg::MutexLock lock(mutex_);
    ASSERT_TRUE(changed_.WaitFor(
        mutex_, kClientTimeout,
        [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return pending_.size() >= count; }));
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->first != body) continue;
      rayagg::HttpResponder respond = std::move(it->second);
      pending_.erase(it);
      std::thread([respond = std::move(respond), body] {
        HttpServerResponse response{http::status::accepted, 11};
        response.body() = "answered " + body;
        respond(std::move(response));
      }).join();
      return;
    }
    FAIL() << "no pending request " << body;
  }

  rayagg::Mutex mutex_;
  rayagg::CondVar changed_;
  std::vector<std::pair<std::string, rayagg::HttpResponder>> pending_ ABSL_GUARDED_BY(mutex_);
};

TEST_F(AsyncRouteTest, AnswersComeFromAnotherThreadInAnyOrder) {
  StartWithAsyncRoute();
  RawClient first(server_->port());
  RawClient second(server_->port());
  first.Send("POST /later HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na");
  second.Send("POST /later HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nb");
  AnswerFromAnotherThread(2, "b");
  const auto b = second.Read();
  EXPECT_EQ(b.result_int(), 202u);
  EXPECT_EQ(b.body(), "answered b");
  AnswerFromAnotherThread(1, "a");
  EXPECT_EQ(first.Read().body(), "answered a");
  // The connection goes on with the next request.
  first.Send("POST /later HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nc");
  AnswerFromAnotherThread(1, "c");
  EXPECT_EQ(first.Read().body(), "answered c");
}

TEST_F(AsyncRouteTest, AnsweredAtOnceOnManyShortConnections) {
  server_ = std::make_unique<HttpServer>(server_io_, HttpServerOptions{});
  server_->AddAsyncRoute("/now", {http::verb::post},
                         [](HttpRequest& request, rayagg::HttpResponder respond) {
                           respond(MakeHttpResponse(request, http::status::bad_request, "no\n"));
                         });
  ASSERT_TRUE(server_->Start().ok());
  for (int i = 0; i < 40; ++i) {
    asio::io_context io;
    auto url = rayagg::ParseUrl("http://127.0.0.1:" + std::to_string(server_->port()) + "/now");
    ASSERT_TRUE(url.ok());
    HttpClient client(io.get_executor(), *url, kClientTimeout);
    const HttpResult result = RunCoroutine(io, client.Post("x", {}));
    ASSERT_FALSE(result.error) << result.error.message();
    ASSERT_EQ(result.response.status, 400u);
  }
}

TEST_F(AsyncRouteTest, RequestNeverAnsweredGets500) {
  StartWithAsyncRoute();
  RawClient client(server_->port());
  client.Send("POST /never HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na");
  const auto response = client.Read();
  EXPECT_EQ(response.result_int(), 500u);
  EXPECT_FALSE(response.keep_alive());
}

TEST_F(HttpServerTest, UnknownPathIs404) {
  StartServer();
  auto client = MakeClient("/v1/other");
  const HttpResult result = Post(*client, "[]");
  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(result.response.status, 404u);
}

TEST_F(HttpServerTest, WrongMethodIs405WithAllow) {
  StartServer();
  RawClient client(server_->port());
  client.Send("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto response = client.Read();
  EXPECT_EQ(response.result_int(), 405u);
  EXPECT_EQ(response[http::field::allow], "POST");
  EXPECT_TRUE(response.keep_alive());
}

TEST_F(HttpServerTest, HeadOnGetRouteHasLengthButNoBody) {
  StartServer();
  RawClient client(server_->port());
  client.Send("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto head = client.Read(/*head=*/true);
  EXPECT_EQ(head.result_int(), 200u);
  EXPECT_EQ(head[http::field::content_length],
            std::to_string(std::string("HEAD /metrics ").size()));
  EXPECT_TRUE(head.body().empty());
  // The connection is still in sync: the next response is read correctly.
  client.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(client.Read().body(), "GET /metrics ");
}

TEST_F(HttpServerTest, BodyOverLimitIs413) {
  StartServer(HttpServerOptions{.max_body_bytes = 1024});
  auto client = MakeClient("/v1/events");

  const HttpResult at_limit = Post(*client, std::string(1024, 'a'));
  const HttpResult over = Post(*client, std::string(64 * 1024, 'a'));

  ASSERT_FALSE(at_limit.error) << at_limit.error.message();
  EXPECT_EQ(at_limit.response.status, 200u);
  ASSERT_FALSE(over.error) << over.error.message();
  EXPECT_EQ(over.response.status, 413u);
  EXPECT_EQ(server_->counters().bodies_too_large.load(), 1u);
}

TEST_F(HttpServerTest, ChunkedBodyOverLimitIs413) {
  StartServer(HttpServerOptions{.max_body_bytes = 16});
  RawClient client(server_->port());
  client.Send(
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "10\r\n0123456789abcdef\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n");
  EXPECT_EQ(client.Read().result_int(), 413u);
}

TEST_F(HttpServerTest, ChunkedBodyWithinLimitReachesHandler) {
  StartServer();
  RawClient client(server_->port());
  client.Send(
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\n[1,\r\n2\r\n2]\r\n0\r\n\r\n");
  const auto response = client.Read();
  EXPECT_EQ(response.result_int(), 200u);
  EXPECT_EQ(response.body(), "POST /v1/events [1,2]");
}

TEST_F(HttpServerTest, MalformedRequestIs400AndClosed) {
  StartServer();
  RawClient client(server_->port());
  client.Send("THIS IS NOT HTTP\r\n\r\n");
  const std::string answer = client.ReadUntilClosed();
  EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << answer;
  EXPECT_EQ(server_->counters().bad_requests.load(), 1u);
}

TEST_F(HttpServerTest, PipelinedRequestsWithBodiesAreAnsweredInOrder) {
  StartServer();
  RawClient client(server_->port());
  client.Send(
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n[1]"
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n[2,3]");
  EXPECT_EQ(client.Read().body(), "POST /v1/events [1]");
  EXPECT_EQ(client.Read().body(), "POST /v1/events [2,3]");
}

TEST_F(HttpServerTest, LargeBodyArrivingInPiecesReachesTheHandlerWhole) {
  StartServer(HttpServerOptions{.max_body_bytes = 8 << 20, .body_spare_bytes = 64});
  RawClient client(server_->port());
  std::string body(3 << 20, ' ');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + i % 26);
  client.Send("POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: " +
              std::to_string(body.size()) + "\r\n\r\n" + body.substr(0, 1000));
  for (size_t at = 1000; at < body.size(); at += 100'000) client.Send(body.substr(at, 100'000));
  const auto response = client.Read();
  EXPECT_EQ(response.result_int(), 200u);
  EXPECT_TRUE(response.body() == "POST /v1/events " + body);
}

// The peer gave up (not malformed HTTP): the connection closes, nothing is handled.
TEST_F(HttpServerTest, BodyCutShortByTheClientIsDropped) {
  StartServer();
  RawClient client(server_->port());
  client.Send("POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n[1");
  client.ShutdownSend();
  EXPECT_EQ(client.ReadUntilClosed(), "");
  EXPECT_EQ(server_->counters().bad_requests.load(), 0u);
  EXPECT_EQ(server_->counters().requests.load(), 0u);
}

TEST_F(HttpServerTest, ExpectContinueGetsInterimResponse) {
  StartServer();
  RawClient client(server_->port());
  client.Send(
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
  EXPECT_EQ(client.Read(/*head=*/true).result_int(), 100u);
  client.Send("[]");
  const auto response = client.Read();
  EXPECT_EQ(response.result_int(), 200u);
  EXPECT_EQ(response.body(), "POST /v1/events []");
}

TEST_F(HttpServerTest, HandlerExceptionIs500) {
  StartServer();
  auto client = MakeClient("/boom");
  const HttpResult result = Post(*client, "[]");
  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(result.response.status, 500u);
  EXPECT_EQ(server_->counters().handler_errors.load(), 1u);
}

TEST_F(HttpServerTest, IdleConnectionIsClosedAfterIdleTimeout) {
  StartServer(HttpServerOptions{.idle_timeout = 100ms});
  RawClient idle(server_->port());
  EXPECT_EQ(idle.ReadUntilClosed(), "");
  EXPECT_TRUE(WaitForCount(server_->counters().idle_timeouts, 1));
  EXPECT_EQ(server_->counters().timeouts.load(), 0u);  // no request had started
}

// A header that stops arriving (or trickles: the deadline is not renewed by
// bytes) ends at read_timeout, counted as a timeout in the middle of a request.
TEST_F(HttpServerTest, UnfinishedHeaderIsCutAtReadTimeout) {
  StartServer(HttpServerOptions{.read_timeout = 100ms});
  RawClient partial(server_->port());
  partial.Send("POST /v1/events HTTP/1.1\r\nHo");
  EXPECT_EQ(partial.ReadUntilClosed(), "");
  EXPECT_TRUE(WaitForCount(server_->counters().timeouts, 1));
  EXPECT_EQ(server_->counters().idle_timeouts.load(), 0u);
}

TEST_F(HttpServerTest, SlowBodyIsCutAtReadTimeout) {
  StartServer(HttpServerOptions{.read_timeout = 100ms});
  RawClient client(server_->port());
  client.Send("POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n[1");
  EXPECT_EQ(client.ReadUntilClosed(), "");
  EXPECT_TRUE(WaitForCount(server_->counters().timeouts, 1));
  EXPECT_EQ(server_->counters().requests.load(), 0u);
}

TEST_F(HttpServerTest, HeaderAboveSizeLimitIs431) {
  StartServer(HttpServerOptions{.max_header_bytes = 1024});
  RawClient client(server_->port());
  client.Send("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n");
  EXPECT_EQ(client.Read().result_int(), 431u);
  EXPECT_EQ(server_->counters().headers_too_large.load(), 1u);
  EXPECT_EQ(server_->counters().bad_requests.load(), 0u);
  EXPECT_EQ(server_->counters().requests.load(), 0u);
}

TEST_F(HttpServerTest, HeaderWithTooManyFieldsIs431) {
  StartServer(HttpServerOptions{.max_header_fields = 3});
  RawClient within(server_->port());
  within.Send("GET /metrics HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n");
  EXPECT_EQ(within.Read().result_int(), 200u);

  RawClient beyond(server_->port());
  beyond.Send("GET /metrics HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n");
  EXPECT_EQ(beyond.Read().result_int(), 431u);
  EXPECT_EQ(beyond.ReadUntilClosed(), "");
  EXPECT_EQ(server_->counters().too_many_header_fields.load(), 1u);
  EXPECT_EQ(server_->counters().requests.load(), 1u);
}

TEST_F(HttpServerTest, ConnectionIsClosedAfterMaxRequests) {
  StartServer(HttpServerOptions{.max_requests_per_connection = 2});
  RawClient client(server_->port());
  client.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto first = client.Read();
  EXPECT_EQ(first.result_int(), 200u);
  EXPECT_TRUE(first.keep_alive());
  client.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto second = client.Read();
  EXPECT_EQ(second.result_int(), 200u);
  EXPECT_FALSE(second.keep_alive());  // Connection: close
  EXPECT_EQ(client.ReadUntilClosed(), "");
  EXPECT_EQ(server_->counters().max_requests_reached.load(), 1u);
}

// At the limit, a new connection closes the one that has been idle longest;
// the others, and the new one, are served.
TEST_F(HttpServerTest, AtTheLimitTheOldestIdleConnectionMakesRoom) {
  StartServer(HttpServerOptions{.max_connections = 2});
  RawClient oldest(server_->port());
  ASSERT_TRUE(rayagg::test::WaitFor([&] { return server_->connection_counts().idle == 1; }));
  RawClient newer(server_->port());
  ASSERT_TRUE(rayagg::test::WaitFor([&] { return server_->connection_counts().idle == 2; }));

  RawClient sender(server_->port());
  sender.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(sender.Read().result_int(), 200u);
  EXPECT_EQ(oldest.ReadUntilClosed(), "");
  EXPECT_TRUE(WaitForCount(server_->counters().evicted_idle, 1));
  newer.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(newer.Read().result_int(), 200u);
  EXPECT_EQ(server_->counters().connections_refused.load(), 0u);
}

// With no idle connection, the one whose unfinished request began first
// (a slowloris sender) makes room.
TEST_F(HttpServerTest, AtTheLimitTheOldestUnfinishedRequestMakesRoom) {
  StartServer(HttpServerOptions{.max_connections = 1});
  RawClient slow(server_->port());
  slow.Send("POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Le");
  ASSERT_TRUE(rayagg::test::WaitFor([&] { return server_->connection_counts().in_request == 1; }));

  RawClient sender(server_->port());
  sender.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(sender.Read().result_int(), 200u);
  EXPECT_EQ(slow.ReadUntilClosed(), "");
  EXPECT_TRUE(WaitForCount(server_->counters().evicted_in_request, 1));
  EXPECT_EQ(server_->counters().evicted_idle.load(), 0u);
}

// A connection whose request a handler holds is never closed to make room:
// with all of them busy, a new connection is refused.
TEST_F(AsyncRouteTest, ConnectionsBeyondLimitAreRefusedWhenNoneWaits) {
  server_ = std::make_unique<HttpServer>(server_io_, HttpServerOptions{.max_connections = 1});
  server_->AddAsyncRoute("/later", {http::verb::post},
                         [this](HttpRequest& request, rayagg::HttpResponder respond) {
                           rayagg::MutexLock lock(mutex_);
                           pending_.push_back({request.body(), std::move(respond)});
                           changed_.SignalAll();
                         });
  ASSERT_TRUE(server_->Start().ok());
  RawClient busy(server_->port());
  busy.Send("POST /later HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na");
  {
    rayagg::MutexLock lock(mutex_);
    ASSERT_TRUE(changed_.WaitFor(
        mutex_, kClientTimeout,
        [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !pending_.empty(); }));
  }
  RawClient refused(server_->port());
  EXPECT_EQ(refused.ReadUntilClosed(), "");
  EXPECT_EQ(server_->counters().connections_refused.load(), 1u);

  // The busy connection is unaffected.
  AnswerFromAnotherThread(1, "a");
  EXPECT_EQ(busy.Read().result_int(), 202u);
}

// A route's header check runs before the body is read: a refused request
// gets 401 although its body never arrives, and the handler never sees it.
TEST_F(HttpServerTest, HeaderCheckRefusesWith401BeforeTheBody) {
  server_ = std::make_unique<HttpServer>(server_io_, HttpServerOptions{});
  std::atomic<int> handled{0};
  server_->AddAsyncRoute(
      "/v1/events", {http::verb::post},
      [&handled](HttpRequest& request, rayagg::HttpResponder respond) {
        ++handled;
        respond(MakeHttpResponse(request, http::status::ok, "ok"));
      },
      [](const HttpRequest::header_type& header) {
        return header[http::field::authorization] == "Bearer right";
      });
  ASSERT_TRUE(server_->Start().ok());

  RawClient without(server_->port());
  without.Send("POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n");
  const auto refused = without.Read();
  EXPECT_EQ(refused.result_int(), 401u);
  EXPECT_EQ(refused[http::field::www_authenticate], "Bearer");
  EXPECT_FALSE(refused.keep_alive());

  RawClient wrong(server_->port());
  wrong.Send(
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n"
      "Content-Length: 2\r\n\r\n[]");
  EXPECT_EQ(wrong.Read().result_int(), 401u);

  RawClient right(server_->port());
  right.Send(
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer right\r\n"
      "Content-Length: 2\r\n\r\n[]");
  EXPECT_EQ(right.Read().result_int(), 200u);
  EXPECT_EQ(handled.load(), 1);
  EXPECT_EQ(server_->counters().unauthorized.load(), 2u);
}

TEST_F(HttpServerTest, StopClosesOpenConnectionsAndListener) {
  StartServer();
  const uint16_t port = server_->port();
  RawClient open(port);
  open.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(open.Read().result_int(), 200u);

  server_->Stop();
  server_->Stop();  // idempotent

  EXPECT_EQ(open.ReadUntilClosed(), "");
  EXPECT_THROW(RawClient{port}, boost::system::system_error);
}

TEST_F(HttpServerTest, StopWithoutStartReturns) {
  HttpServer server(server_io_, HttpServerOptions{});
  server.Stop();
}

TEST_F(HttpServerTest, BindErrorsNameTheAddress) {
  StartServer();
  HttpServer taken(server_io_, HttpServerOptions{.port = server_->port()});
  auto busy = taken.Start();
  ASSERT_FALSE(busy.ok());
  EXPECT_NE(busy.status().message().find("127.0.0.1:" + std::to_string(server_->port())),
            std::string::npos)
      << busy.status();

  HttpServer invalid(server_io_, HttpServerOptions{.address = "not-an-ip"});
  auto bad = invalid.Start();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not-an-ip"), std::string::npos) << bad.status();
}

}  // namespace
