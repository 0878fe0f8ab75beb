// The ops listener of an in-process daemon, over real HTTP: /healthz,
// /readyz, and /metrics reflecting what the daemon actually did.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "app/probe.h"
#include "common/asio.h"
#include "http/http_client.h"
#include "support/daemon_fixture.h"
#include "support/run_coroutine.h"

namespace rayagg::test {
namespace {

using ::testing::HasSubstr;

// GET http://127.0.0.1:<port><path> with a deadline.
HttpResult Get(int port, const std::string& path) {
  asio::io_context io_context;
  absl::StatusOr<Url> url = ParseUrl("http://127.0.0.1:" + std::to_string(port) + path);
  EXPECT_TRUE(url.ok());
  HttpClient client(io_context.get_executor(), *url, std::chrono::seconds(5));
  return RunCoroutine(io_context, client.Get());
}

class OpsTest : public DaemonTest {
 protected:
  Config OpsConfig(std::vector<SinkConfig> sinks) {
    Config config = TestConfig(std::move(sinks));
    config.ops.enabled = true;
    config.ops.address = "127.0.0.1";
    config.ops.port = 0;
    config.ops.constant_labels = {{"RayClusterName", "c1"}, {"quote", "a\"b"}};
    return config;
  }
};

TEST_F(OpsTest, HealthAndReadinessWhileServing) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(OpsConfig({FastHttpSink(server_.Url("/e"))})));
  const int port = harness().daemon().ops_port();
  ASSERT_GT(port, 0);
  EXPECT_EQ(Get(port, "/healthz").response.status, 200u);
  EXPECT_EQ(Get(port, "/readyz").response.status, 200u);
  EXPECT_EQ(Get(port, "/nope").response.status, 404u);
  EXPECT_TRUE(Probe("http://127.0.0.1:" + std::to_string(port) + "/readyz").ok);
}

TEST_F(OpsTest, MetricsCountDeliveredEventsPerSinkWithConstantLabels) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(OpsConfig({FastHttpSink(server_.Url("/e"), "collector")})));
  const auto events = OneEventOfEveryType();
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitForElements(server_, events.size()));
  ASSERT_TRUE(
      WaitFor([&] { return harness().sink(0).counters().sent_events.load() == events.size(); }));
  const HttpResult result = Get(harness().daemon().ops_port(), "/metrics");
  ASSERT_FALSE(result.error) << result.error.message();
  ASSERT_EQ(result.response.status, 200u);
  const std::string& page = result.response.body;
  const std::string labels = "RayClusterName=\"c1\",quote=\"a\\\"b\"";
  const std::string n = std::to_string(events.size());
  EXPECT_THAT(page, HasSubstr("# TYPE rayagg_sink_sent_events_total counter\n"));
  EXPECT_THAT(page, HasSubstr("rayagg_sink_sent_events_total{" + labels + ",sink=\"collector\"} " +
                              n + "\n"));
  EXPECT_THAT(page, HasSubstr("rayagg_events_received_total{" + labels + "} " + n + "\n"));
  EXPECT_THAT(page,
              HasSubstr("ray_aggregator_agent_published_events_total{" + labels +
                        ",Component=\"aggregator_agent\",consumer=\"collector\"} " + n + "\n"));
  // Every attempt succeeded: the success histogram counts them, +Inf included.
  const std::string batches = std::to_string(harness().sink(0).counters().sent_batches.load());
  EXPECT_THAT(page, HasSubstr("rayagg_sink_request_duration_seconds_count{" + labels +
                              ",sink=\"collector\",outcome=\"success\"} " + batches + "\n"));
  EXPECT_THAT(page,
              HasSubstr("rayagg_sink_request_duration_seconds_bucket{" + labels +
                        ",sink=\"collector\",outcome=\"success\",le=\"+Inf\"} " + batches + "\n"));
  EXPECT_THAT(page, HasSubstr("rayagg_ready{" + labels + "} 1\n"));
}

TEST_F(OpsTest, FailuresAreCountedByReason) {
  server_.SetDefaultBehavior(Respond{.status = 503});
  SinkConfig sink = FastHttpSink(server_.Url("/e"), "down");
  sink.retry.max_retries = 2;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(OpsConfig({sink})));
  ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{TaskLifecycleEvent("t", 0)}).ok());
  ASSERT_TRUE(
      WaitFor([&] { return harness().sink(0).drops().Total(DropReason::kRetriesExhausted) == 1; }));
  const std::string page = Get(harness().daemon().ops_port(), "/metrics").response.body;
  EXPECT_THAT(page, HasSubstr("rayagg_sink_request_failures_total{RayClusterName=\"c1\","
                              "quote=\"a\\\"b\",sink=\"down\",reason=\"http_5xx\"} 3\n"));
  EXPECT_THAT(page, HasSubstr("rayagg_sink_dropped_events_total{RayClusterName=\"c1\","
                              "quote=\"a\\\"b\",sink=\"down\",reason=\"retries_exhausted\","
                              "event_type=\"TASK_LIFECYCLE_EVENT\"} 1\n"));
  EXPECT_THAT(page, HasSubstr("ray_aggregator_agent_publish_failures_total{RayClusterName=\"c1\","
                              "quote=\"a\\\"b\",Component=\"aggregator_agent\",consumer=\"down\"} "
                              "1\n"));
}

TEST_F(OpsTest, ReadinessIsFalseOnceStopBegins) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(OpsConfig({FastHttpSink(server_.Url("/e"))})));
  EXPECT_TRUE(harness().daemon().ready());
  StopDaemon();
  EXPECT_FALSE(harness().daemon().ready());
}

}  // namespace
}  // namespace rayagg::test
