// HttpClient against a real loopback server: request shape, statuses,
// timeouts, errors and keep-alive reuse.
#include "http/http_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "support/run_coroutine.h"
#include "support/test_http_server.h"

namespace {

using namespace std::chrono_literals;
using rayagg::HttpClient;
using rayagg::HttpHeaders;
using rayagg::HttpResult;
using rayagg::test::RunCoroutine;
using rayagg::test::TestHttpServer;
namespace asio = rayagg::asio;

// Generous: only a hung server should ever take this long.
constexpr auto kRequestTimeout = 10s;
// Short on purpose for timeout tests; assertions on elapsed time stay loose.
constexpr auto kShortTimeout = 200ms;

class HttpClientTest : public ::testing::Test {
 protected:
  std::unique_ptr<HttpClient> MakeClient(const std::string& url,
                                         std::chrono::milliseconds timeout = kRequestTimeout) {
    auto parsed = rayagg::ParseUrl(url);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    return std::make_unique<HttpClient>(io_context_.get_executor(), *parsed, timeout);
  }

  HttpResult Post(HttpClient& client, std::string body, HttpHeaders headers = {}) {
    return RunCoroutine(io_context_, client.Post(std::move(body), std::move(headers)));
  }

  asio::io_context io_context_;
  TestHttpServer server_;
};

TEST_F(HttpClientTest, PostDeliversBodyTargetAndHeaders) {
  auto client = MakeClient(server_.Url("/v1/events?source=ray"));
  const std::string body = R"([{"eventId": "abc", "message": "h\u00e9"}])";

  const HttpResult result = Post(*client, body);

  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(result.response.status, 200u);
  EXPECT_FALSE(result.response.retry_after.has_value());
  const auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& request = requests[0];
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.target, "/v1/events?source=ray");
  EXPECT_EQ(request.body, body);
  EXPECT_EQ(request.Header("Content-Type"), "application/json");
  EXPECT_EQ(request.Header("Content-Length"), std::to_string(body.size()));
  EXPECT_EQ(request.Header("Host"), "127.0.0.1:" + std::to_string(server_.port()));
  EXPECT_EQ(request.Header("User-Agent"), std::string(rayagg::kUserAgent));
  EXPECT_EQ(request.Header("Accept"), "*/*");
  EXPECT_FALSE(request.Header("Connection").has_value());  // HTTP/1.1 keep-alive by default
}

TEST_F(HttpClientTest, UrlWithoutPathPostsToRoot) {
  auto client = MakeClient(server_.Url());
  ASSERT_FALSE(Post(*client, "[]").error);
  ASSERT_EQ(server_.RequestCount(), 1u);
  EXPECT_EQ(server_.Requests()[0].target, "/");
}

TEST_F(HttpClientTest, ExtraHeadersAreSentAndOverrideContentType) {
  auto client = MakeClient(server_.Url());
  ASSERT_FALSE(
      Post(*client, "x", {{"Content-Type", "text/plain"}, {"Authorization", "Bearer t"}}).error);
  const auto request = server_.Requests().at(0);
  EXPECT_EQ(request.Header("Content-Type"), "text/plain");
  EXPECT_EQ(request.Header("Authorization"), "Bearer t");
}

TEST_F(HttpClientTest, InvalidExtraHeaderFailsWithoutSending) {
  auto client = MakeClient(server_.Url());
  const HttpResult result = Post(*client, "x", {{"X-Bad", "a\r\nX-Evil: 1"}});
  EXPECT_EQ(result.error, asio::error::invalid_argument);
  EXPECT_EQ(client->connections_opened(), 0u);
  EXPECT_EQ(server_.ConnectionCount(), 0u);
}

TEST_F(HttpClientTest, ReturnsErrorStatusWithRetryAfterAndBody) {
  server_.Enqueue(TestHttpServer::Respond{503, {{"Retry-After", "7"}}, "busy"});
  server_.Enqueue(TestHttpServer::Respond{429, {{"Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"}}});
  auto client = MakeClient(server_.Url());

  const HttpResult unavailable = Post(*client, "[]");
  ASSERT_FALSE(unavailable.error) << unavailable.error.message();
  EXPECT_EQ(unavailable.response.status, 503u);
  EXPECT_EQ(unavailable.response.retry_after, "7");
  EXPECT_EQ(unavailable.response.body, "busy");

  const HttpResult too_many = Post(*client, "[]");
  ASSERT_FALSE(too_many.error) << too_many.error.message();
  EXPECT_EQ(too_many.response.status, 429u);
  EXPECT_EQ(too_many.response.retry_after, "Wed, 21 Oct 2015 07:28:00 GMT");

  const HttpResult ok = Post(*client, "[]");
  EXPECT_EQ(ok.response.status, 200u);
  EXPECT_FALSE(ok.response.retry_after.has_value());
  EXPECT_EQ(client->connections_opened(), 1u);  // error statuses keep the connection
}

TEST_F(HttpClientTest, HangingServerTimesOut) {
  server_.Enqueue(TestHttpServer::Hang{});
  auto client = MakeClient(server_.Url(), kShortTimeout);

  // The server never answers: only the client's deadline can end the call.
  const HttpResult result = Post(*client, "[]");
  EXPECT_EQ(result.error, asio::error::timed_out) << result.error.message();
  EXPECT_EQ(server_.RequestCount(), 1u);

  // The timed-out connection is not reused.
  EXPECT_FALSE(Post(*client, "[]").error);
  EXPECT_EQ(client->connections_opened(), 2u);
  EXPECT_EQ(server_.ConnectionCount(), 2u);
}

TEST_F(HttpClientTest, HangOnReusedConnectionIsNotRetried) {
  auto client = MakeClient(server_.Url(), kShortTimeout);
  ASSERT_FALSE(Post(*client, "[]").error);
  server_.Enqueue(TestHttpServer::Hang{});

  EXPECT_EQ(Post(*client, "[]").error, asio::error::timed_out);
  EXPECT_EQ(server_.RequestCount(), 2u);
  EXPECT_EQ(client->connections_opened(), 1u);
}

TEST_F(HttpClientTest, ResetOnFreshConnectionIsTransportError) {
  server_.Enqueue(TestHttpServer::Reset{});
  auto client = MakeClient(server_.Url());

  const HttpResult result = Post(*client, "[]");

  EXPECT_TRUE(result.error);
  EXPECT_NE(result.error, asio::error::timed_out) << result.error.message();
  EXPECT_EQ(server_.RequestCount(), 1u);  // a fresh connection's failure is not retried
  EXPECT_EQ(client->connections_opened(), 1u);
}

TEST_F(HttpClientTest, CloseWithoutResponseOnFreshConnectionIsErrorThenRecovers) {
  server_.Enqueue(TestHttpServer::CloseWithoutResponse{});
  auto client = MakeClient(server_.Url());

  const HttpResult failed = Post(*client, "[1]");
  EXPECT_TRUE(failed.error);
  EXPECT_NE(failed.error, asio::error::timed_out) << failed.error.message();

  const HttpResult ok = Post(*client, "[2]");
  ASSERT_FALSE(ok.error) << ok.error.message();
  EXPECT_EQ(ok.response.status, 200u);
  EXPECT_EQ(client->connections_opened(), 2u);
  EXPECT_EQ(server_.ConnectionCount(), 2u);
}

TEST_F(HttpClientTest, KeepAliveReusesOneConnection) {
  auto client = MakeClient(server_.Url());
  ASSERT_FALSE(Post(*client, "[1]").error);
  ASSERT_FALSE(Post(*client, "[2]").error);
  ASSERT_FALSE(Post(*client, "[3]").error);

  EXPECT_EQ(client->connections_opened(), 1u);
  EXPECT_EQ(server_.ConnectionCount(), 1u);
  for (const auto& request : server_.Requests()) EXPECT_EQ(request.connection_index, 0u);
}

TEST_F(HttpClientTest, ConnectionCloseHeaderMakesNextRequestReconnect) {
  server_.Enqueue(TestHttpServer::Respond{200, {{"Connection", "close"}}});
  auto client = MakeClient(server_.Url());

  ASSERT_FALSE(Post(*client, "[1]").error);
  const HttpResult second = Post(*client, "[2]");
  ASSERT_FALSE(second.error) << second.error.message();
  EXPECT_EQ(second.response.status, 200u);

  EXPECT_EQ(client->connections_opened(), 2u);
  EXPECT_EQ(server_.ConnectionCount(), 2u);
  EXPECT_EQ(server_.RequestCount(), 2u);  // no failed attempt in between
}

TEST_F(HttpClientTest, IdleConnectionClosedByServerIsRetriedTransparently) {
  // The server closes after answering without saying so, as when its
  // keep-alive timer fires; the client only notices on its next request.
  server_.Enqueue(TestHttpServer::Respond{.close_after_response = true});
  auto client = MakeClient(server_.Url());

  ASSERT_FALSE(Post(*client, "[1]").error);
  const HttpResult second = Post(*client, "[2]");
  ASSERT_FALSE(second.error) << second.error.message();
  EXPECT_EQ(second.response.status, 200u);

  EXPECT_EQ(client->connections_opened(), 2u);
  const auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].body, "[2]");
  EXPECT_EQ(requests[1].connection_index, 1u);
}

TEST_F(HttpClientTest, FailureBeforeResponseOnReusedConnectionIsRetriedOnce) {
  auto client = MakeClient(server_.Url());
  ASSERT_FALSE(Post(*client, "[1]").error);

  // Reused connection: the server closes without answering; the retry on a
  // fresh connection succeeds (the collector sees the batch twice).
  server_.Enqueue(TestHttpServer::CloseWithoutResponse{});
  const HttpResult retried = Post(*client, "[2]");
  ASSERT_FALSE(retried.error) << retried.error.message();
  EXPECT_EQ(client->connections_opened(), 2u);
  EXPECT_EQ(server_.RequestCount(), 3u);

  // Both the attempt and its single retry fail: the retry's error is returned.
  server_.Enqueue(TestHttpServer::Reset{});
  server_.Enqueue(TestHttpServer::Reset{});
  const HttpResult failed = Post(*client, "[3]");
  EXPECT_TRUE(failed.error);
  EXPECT_EQ(client->connections_opened(), 3u);
  EXPECT_EQ(server_.RequestCount(), 5u);
}

TEST_F(HttpClientTest, OversizedResponseBodyIsTruncatedAndConnectionDropped) {
  server_.Enqueue(
      TestHttpServer::Respond{500, {}, std::string(rayagg::kMaxResponseBodyBytes + 1, 'x')});
  auto client = MakeClient(server_.Url());

  const HttpResult result = Post(*client, "[]");
  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(result.response.status, 500u);
  EXPECT_TRUE(result.response.body_truncated);
  EXPECT_LE(result.response.body.size(), rayagg::kMaxResponseBodyBytes);

  ASSERT_FALSE(Post(*client, "[]").error);
  EXPECT_EQ(client->connections_opened(), 2u);
}

TEST_F(HttpClientTest, OversizedChunkedResponseKeepsStatus) {
  server_.Enqueue(TestHttpServer::Respond{503,
                                          {{"Transfer-Encoding", "chunked"}},
                                          std::string(rayagg::kMaxResponseBodyBytes * 2, 'z')});
  auto client = MakeClient(server_.Url());

  const HttpResult result = Post(*client, "[]");
  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(result.response.status, 503u);
  EXPECT_TRUE(result.response.body_truncated);
  EXPECT_LE(result.response.body.size(), rayagg::kMaxResponseBodyBytes);
}

TEST_F(HttpClientTest, BodyAtTheLimitIsNotTruncated) {
  const std::string body(rayagg::kMaxResponseBodyBytes, 'y');
  server_.Enqueue(TestHttpServer::Respond{200, {}, body});
  auto client = MakeClient(server_.Url());

  const HttpResult result = Post(*client, "[]");
  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_FALSE(result.response.body_truncated);
  EXPECT_EQ(result.response.body, body);
}

TEST_F(HttpClientTest, InterimResponsesAreSkipped) {
  server_.Enqueue(
      TestHttpServer::RawResponse{"HTTP/1.1 100 Continue\r\n\r\n"
                                  "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
                                  "HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nok",
                                  /*keep_open=*/true});
  auto client = MakeClient(server_.Url());

  const HttpResult result = Post(*client, "[]");
  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(result.response.status, 202u);
  EXPECT_EQ(result.response.body, "ok");

  // The connection is still in sync: the next response parses cleanly.
  const HttpResult next = Post(*client, "[]");
  ASSERT_FALSE(next.error) << next.error.message();
  EXPECT_EQ(next.response.status, 200u);
  EXPECT_EQ(client->connections_opened(), 1u);
}

TEST_F(HttpClientTest, OversizedResponseHeaderIsAnError) {
  server_.Enqueue(TestHttpServer::RawResponse{
      "HTTP/1.1 200 OK\r\nX-Big: " + std::string(rayagg::kMaxResponseHeaderBytes, 'h') +
      "\r\nContent-Length: 0\r\n\r\n"});
  auto client = MakeClient(server_.Url());

  const HttpResult result = Post(*client, "[]");
  EXPECT_EQ(result.error, rayagg::http::error::header_limit) << result.error.message();
}

TEST_F(HttpClientTest, MalformedResponseIsAnError) {
  server_.Enqueue(TestHttpServer::RawResponse{"SMTP ready\r\n\r\n"});
  auto client = MakeClient(server_.Url());

  const HttpResult result = Post(*client, "[]");
  EXPECT_TRUE(result.error);
  EXPECT_NE(result.error, asio::error::timed_out) << result.error.message();
  // The client recovers on a new connection.
  EXPECT_FALSE(Post(*client, "[]").error);
  EXPECT_EQ(client->connections_opened(), 2u);
}

TEST_F(HttpClientTest, ResponseWithoutLengthIsReadToEof) {
  server_.Enqueue(TestHttpServer::RawResponse{"HTTP/1.1 200 OK\r\n\r\nuntil close"});
  auto client = MakeClient(server_.Url());

  const HttpResult result = Post(*client, "[]");
  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(result.response.body, "until close");
  EXPECT_FALSE(Post(*client, "[]").error);
  EXPECT_EQ(client->connections_opened(), 2u);
}

TEST_F(HttpClientTest, ConnectionRefusedFailsQuickly) {
  uint16_t port = 0;
  {
    asio::ip::tcp::acceptor acceptor(io_context_, {asio::ip::make_address_v4("127.0.0.1"), 0});
    port = acceptor.local_endpoint().port();
  }  // closed: nothing listens on `port` any more
  auto client = MakeClient("http://127.0.0.1:" + std::to_string(port) + "/");

  const HttpResult result = Post(*client, "[]");

  EXPECT_EQ(result.error, asio::error::connection_refused) << result.error.message();
  EXPECT_EQ(client->connections_opened(), 0u);
}

TEST_F(HttpClientTest, HostnameIsResolved) {
  auto client = MakeClient("http://localhost:" + std::to_string(server_.port()) + "/x");
  const HttpResult result = Post(*client, "[]");
  ASSERT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(server_.Requests().at(0).Header("Host"), "localhost:" + std::to_string(server_.port()));
}

TEST_F(HttpClientTest, CloseDropsTheConnection) {
  auto client = MakeClient(server_.Url());
  client->Close();  // idle and never connected: harmless
  ASSERT_FALSE(Post(*client, "[1]").error);
  client->Close();
  ASSERT_FALSE(Post(*client, "[2]").error);
  EXPECT_EQ(client->connections_opened(), 2u);
  EXPECT_EQ(server_.ConnectionCount(), 2u);
}

TEST_F(HttpClientTest, CloseAbortsAPostInFlight) {
  server_.Enqueue(TestHttpServer::Hang{});
  auto client = MakeClient(server_.Url());
  // Once the server holds the request, Close() runs on the client's executor.
  std::jthread closer([&] {
    if (server_.WaitForRequests(1, 10s)) asio::post(io_context_, [&] { client->Close(); });
  });

  const HttpResult result = Post(*client, "[]");
  closer.join();

  EXPECT_EQ(result.error, asio::error::operation_aborted) << result.error.message();
  EXPECT_EQ(server_.RequestCount(), 1u);
}

TEST_F(HttpClientTest, OverlappingPostIsRejected) {
  server_.Enqueue(TestHttpServer::Hang{});
  auto client = MakeClient(server_.Url(), kShortTimeout);
  int completed = 0;
  HttpResult first;
  HttpResult second;
  asio::co_spawn(io_context_, client->Post("[1]", {}), [&](std::exception_ptr error, HttpResult r) {
    if (error) std::rethrow_exception(error);
    first = std::move(r);
    ++completed;
  });
  asio::co_spawn(io_context_, client->Post("[2]", {}), [&](std::exception_ptr error, HttpResult r) {
    if (error) std::rethrow_exception(error);
    second = std::move(r);
    ++completed;
  });
  while (completed < 2 && io_context_.run_one() > 0) {
  }
  ASSERT_EQ(completed, 2);
  EXPECT_EQ(first.error, asio::error::timed_out);
  EXPECT_EQ(second.error, asio::error::already_started);
}

}  // namespace
