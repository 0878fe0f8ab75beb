// The whole daemon under a connection flood, over real loopback sockets:
// thousands of idle and trickling (slowloris) connections on the HTTP ingest
// port, and idle ones on the gRPC port, while a well-behaved sender posts
// one-event requests, a probe asks /healthz and a gRPC client calls
// AddEvents. Before the listener limits (issue 19), 3,000 idle and 200
// slowloris connections let 0 of 40 such POSTs through. Nothing here bounds
// time: every wait has only a generous deadline; latency under flood is
// bench/flood's business.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "http/http_client.h"
#include "support/connection_flood.h"
#include "support/daemon_fixture.h"
#include "support/prometheus_text.h"
#include "support/run_coroutine.h"
#include "support/sample_events.h"

namespace rayagg::test {
namespace {

constexpr size_t kIdleConnections = 3000;
constexpr size_t kTricklingConnections = 200;
constexpr size_t kIdleGrpcConnections = 200;
constexpr size_t kPosts = 40;
// New flood connections opened before each POST, so the flood goes on
// while the sender works.
constexpr size_t kFloodPerPost = 20;
// The daemon's RSS in this process (the test's own sockets are kernel
// memory): the event log is nearly empty, so this is connection state.
constexpr long kMaxRssKib = 512 * 1024;

long RssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

HttpResult Request(int port, const std::string& path, std::optional<std::string> body) {
  asio::io_context io_context;
  absl::StatusOr<Url> url = ParseUrl("http://127.0.0.1:" + std::to_string(port) + path);
  EXPECT_TRUE(url.ok());
  // Generous: only a lockout makes a request wait this long.
  HttpClient client(io_context.get_executor(), *url, kConditionTimeout);
  if (body) return RunCoroutine(io_context, client.Post(*body, {}));
  return RunCoroutine(io_context, client.Get());
}

class FloodTest : public DaemonTest {};

TEST_F(FloodTest, WellBehavedSendersAndProbesGetThroughAFlood) {
  const size_t flood =
      kIdleConnections + kTricklingConnections + kIdleGrpcConnections + kPosts * kFloodPerPost;
  // Both ends of every connection live in this process.
  if (!RaiseFileLimit(static_cast<rlim_t>(2 * flood + 1024))) {
    GTEST_SKIP() << "RLIMIT_NOFILE's hard limit is below " << 2 * flood + 1024
                 << " descriptors; raise it (ulimit -Hn) to run the flood test";
  }
  Config config = TestConfig({FastHttpSink(server_.Url("/"))});
  config.http_ingest.enabled = true;
  config.http_ingest.port = 0;
  config.ops.enabled = true;
  config.ops.port = 0;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  const auto http_port = static_cast<uint16_t>(harness().daemon().http_port());
  const int ops_port = harness().daemon().ops_port();

  Flood attackers;
  ASSERT_TRUE(attackers.Open(http_port, kIdleConnections)) << std::strerror(errno);
  // Slowloris: a request begun and never finished.
  ASSERT_TRUE(attackers.Open(http_port, kTricklingConnections, kSlowlorisStart));
  ASSERT_TRUE(attackers.Open(static_cast<uint16_t>(harness().port()), kIdleGrpcConnections));

  size_t accepted = 0;
  for (size_t i = 0; i < kPosts; ++i) {
    ASSERT_TRUE(attackers.Open(http_port, kFloodPerPost));
    const HttpResult post = Request(http_port, "/v1/events", OneEventBody(i));
    EXPECT_FALSE(post.error) << "POST " << i << ": " << post.error.message();
    if (!post.error && post.response.status == 200) ++accepted;

    const HttpResult health = Request(ops_port, "/healthz", std::nullopt);
    EXPECT_EQ(health.response.status, 200u) << "/healthz during POST " << i;
  }
  EXPECT_EQ(accepted, kPosts);
  const std::vector<RayEvent> events = {TaskLifecycleEvent("flooded", 0)};
  const grpc::Status grpc_status = harness().AddEvents(events, kConditionTimeout);
  EXPECT_TRUE(grpc_status.ok()) << grpc_status.error_message();
  EXPECT_EQ(harness().daemon().ingest_counters().accepted_events.load(), kPosts + 1);

  // The flood was met by closing its own oldest connections, not by refusing.
  const HttpResult metrics = Request(ops_port, "/metrics", std::nullopt);
  absl::StatusOr<PrometheusPage> page = ParsePrometheusText(metrics.response.body);
  ASSERT_TRUE(page.ok()) << page.status();
  absl::StatusOr<double> evicted =
      page->Value("rayagg_http_server_connections_closed_total",
                  {{"listener", "http_ingest"}, {"reason", "evicted_idle"}});
  ASSERT_TRUE(evicted.ok()) << evicted.status();
  EXPECT_GT(*evicted, 0);
  absl::StatusOr<double> open = page->Value("rayagg_http_server_connections",
                                            {{"listener", "http_ingest"}, {"state", "idle"}});
  ASSERT_TRUE(open.ok()) << open.status();
  // Bounded by the limit (plus the moment's closes), whatever the flood.
  EXPECT_LE(*open, static_cast<double>(config.http_ingest.limits.max_connections +
                                       config.http_ingest.limits.max_connections / 8 + 1));

  const long rss = RssKib();
  EXPECT_GT(rss, 0);
  EXPECT_LT(rss, kMaxRssKib) << "RSS " << rss << " KiB with " << attackers.size()
                             << " flood connections";
}

}  // namespace
}  // namespace rayagg::test
