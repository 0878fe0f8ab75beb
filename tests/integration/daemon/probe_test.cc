// Probe mode against a real loopback HTTP server: 2xx is healthy, anything
// else (another status, nothing listening, no answer in time) is not.
#include "app/probe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_http_server.h"

namespace rayagg::test {
namespace {

using ::testing::HasSubstr;

TEST(ProbeTest, TwoHundredIsHealthyAndUsesGet) {
  TestHttpServer server;
  server.SetDefaultBehavior(Respond{.status = 204});
  const ProbeResult result = Probe(server.Url("/healthz"));
  EXPECT_TRUE(result.ok) << result.detail;
  ASSERT_EQ(server.RequestCount(), 1u);
  EXPECT_EQ(server.Requests()[0].method, "GET");
  EXPECT_EQ(server.Requests()[0].target, "/healthz");
}

TEST(ProbeTest, OtherStatusesAreUnhealthy) {
  TestHttpServer server;
  server.SetDefaultBehavior(Respond{.status = 503});
  const ProbeResult result = Probe(server.Url("/readyz"));
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail, "status 503");
}

TEST(ProbeTest, NothingListeningIsUnhealthy) {
  uint16_t port = 0;
  {
    TestHttpServer server;  // bind a free port, then release it
    port = server.port();
  }
  const ProbeResult result = Probe("http://127.0.0.1:" + std::to_string(port) + "/healthz");
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.detail.empty());
}

TEST(ProbeTest, NoAnswerWithinTheDeadlineIsUnhealthy) {
  TestHttpServer server;
  server.SetDefaultBehavior(Hang{});
  const ProbeResult result = Probe(server.Url("/healthz"), std::chrono::milliseconds(100));
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.detail, HasSubstr("timed out"));
}

TEST(ProbeTest, InvalidUrlsAreRejected) {
  EXPECT_FALSE(Probe("not a url").ok);
  EXPECT_FALSE(Probe("https://127.0.0.1:1/").ok);
}

}  // namespace
}  // namespace rayagg::test
