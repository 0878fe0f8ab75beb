// Self-tests of the loopback server used by the integration tests: scripting,
// concurrency, waiting helpers and Stop().
#include "support/test_http_server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <thread>

#include "http/http_client.h"
#include "support/io_thread.h"
#include "support/run_coroutine.h"

namespace {

using namespace std::chrono_literals;
using rayagg::HttpClient;
using rayagg::HttpResult;
using rayagg::test::ReceivedRequest;
using rayagg::test::RunCoroutine;
using rayagg::test::TestHttpServer;
namespace asio = rayagg::asio;

constexpr auto kLongTimeout = 60s;  // longer than any test should run

std::unique_ptr<HttpClient> MakeClient(asio::io_context& io_context, const TestHttpServer& server,
                                       std::chrono::milliseconds timeout = 10s) {
  return std::make_unique<HttpClient>(io_context.get_executor(), *rayagg::ParseUrl(server.Url("/")),
                                      timeout);
}

TEST(TestHttpServerTest, DefaultBehaviorAppliesWhenTheScriptIsEmpty) {
  TestHttpServer server;
  server.SetDefaultBehavior(TestHttpServer::Respond{503});
  server.Enqueue(TestHttpServer::Respond{201, {{"X-Test", "1"}}, "created"});
  asio::io_context io_context;
  auto client = MakeClient(io_context, server);

  const HttpResult scripted = RunCoroutine(io_context, client->Post("[1]", {}));
  const HttpResult defaulted = RunCoroutine(io_context, client->Post("[2]", {}));
  const HttpResult again = RunCoroutine(io_context, client->Post("[3]", {}));

  EXPECT_EQ(scripted.response.status, 201u);
  EXPECT_EQ(scripted.response.body, "created");
  EXPECT_EQ(defaulted.response.status, 503u);
  EXPECT_EQ(again.response.status, 503u);
  EXPECT_EQ(server.RequestCount(), 3u);
}

TEST(TestHttpServerTest, WaitHelpersReturnFalseAtTheirDeadline) {
  TestHttpServer server;
  EXPECT_FALSE(server.WaitForRequests(1, 20ms));
  EXPECT_FALSE(server.WaitForConnections(1, 20ms));
  EXPECT_FALSE(server.WaitUntil([](const auto& requests) { return !requests.empty(); }, 20ms));
  EXPECT_TRUE(server.WaitForRequests(0, 0ms));
}

TEST(TestHttpServerTest, WaitUntilSeesRequestsFromAnotherThread) {
  TestHttpServer server;
  asio::io_context io_context;
  auto client = MakeClient(io_context, server);
  std::jthread sender([&] {
    for (int i = 0; i < 3; ++i) RunCoroutine(io_context, client->Post(std::to_string(i), {}));
  });

  EXPECT_TRUE(server.WaitUntil(
      [](const std::vector<ReceivedRequest>& requests) {
        return requests.size() == 3 && requests.back().body == "2";
      },
      10s));
  sender.join();
  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_LE(requests[0].arrival, requests[2].arrival);
}

// Starts `client.Post` on the io_context's thread; the future carries the result.
std::future<HttpResult> SpawnPost(asio::io_context& io_context, HttpClient& client,
                                  std::string body) {
  auto promise = std::make_shared<std::promise<HttpResult>>();
  auto future = promise->get_future();
  asio::co_spawn(io_context, client.Post(std::move(body), {}),
                 [promise](std::exception_ptr error, HttpResult result) {
                   if (error) {
                     promise->set_exception(error);
                   } else {
                     promise->set_value(std::move(result));
                   }
                 });
  return future;
}

TEST(TestHttpServerTest, ServesConnectionsConcurrently) {
  TestHttpServer server;
  server.Enqueue(TestHttpServer::Hang{});
  asio::io_context io_context;
  auto hung_client = MakeClient(io_context, server, kLongTimeout);
  auto client = MakeClient(io_context, server);
  rayagg::test::IoThread io_thread(io_context);

  auto hung = SpawnPost(io_context, *hung_client, "[1]");
  // The hung request must be the one that consumed Hang{}.
  ASSERT_TRUE(server.WaitForRequests(1, 10s));

  // A second connection is served while the first one hangs.
  auto served = SpawnPost(io_context, *client, "[2]");
  ASSERT_EQ(served.wait_for(10s), std::future_status::ready);
  const HttpResult served_result = served.get();
  ASSERT_FALSE(served_result.error) << served_result.error.message();
  EXPECT_EQ(served_result.response.status, 200u);
  EXPECT_EQ(hung.wait_for(0ms), std::future_status::timeout);
  EXPECT_EQ(server.ConnectionCount(), 2u);

  // Stop() closes the hung connection, which ends the first request early.
  server.Stop();
  ASSERT_EQ(hung.wait_for(10s), std::future_status::ready);
  const HttpResult hung_result = hung.get();
  EXPECT_TRUE(hung_result.error);
  EXPECT_NE(hung_result.error, asio::error::timed_out) << hung_result.error.message();
}

TEST(TestHttpServerTest, StopIsIdempotentAndKeepsRecordedRequests) {
  TestHttpServer server;
  asio::io_context io_context;
  auto client = MakeClient(io_context, server);
  ASSERT_FALSE(RunCoroutine(io_context, client->Post("[]", {})).error);

  server.Stop();
  server.Stop();

  EXPECT_EQ(server.RequestCount(), 1u);
  EXPECT_EQ(server.Requests().at(0).body, "[]");
  // Nothing listens any more.
  EXPECT_TRUE(RunCoroutine(io_context, client->Post("[]", {})).error);
}

TEST(TestHttpServerTest, LargeRequestBodyIsReceivedWhole) {
  TestHttpServer server;
  asio::io_context io_context;
  auto client = MakeClient(io_context, server);
  const std::string body(8 * 1024 * 1024, 'e');

  ASSERT_FALSE(RunCoroutine(io_context, client->Post(body, {})).error);
  ASSERT_EQ(server.RequestCount(), 1u);
  EXPECT_EQ(server.Requests()[0].body, body);
}

}  // namespace
