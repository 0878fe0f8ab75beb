// The ops listener of an in-process daemon, over real HTTP: /healthz,
// /readyz, and /metrics reflecting what the daemon actually did, exactly as
// its metrics table (app/daemon_metrics.h) declares it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/daemon_metrics.h"
#include "app/probe.h"
#include "http/http_client.h"
#include "rayagg/asio.h"
#include "support/daemon_fixture.h"
#include "support/prometheus_text.h"
#include "support/raw_http_client.h"
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

  // GET /metrics, parsed; fails the test if the page does not parse.
  PrometheusPage Scrape() {
    const HttpResult result = Get(harness().daemon().ops_port(), "/metrics");
    EXPECT_FALSE(result.error) << result.error.message();
    EXPECT_EQ(result.response.status, 200u);
    absl::StatusOr<PrometheusPage> page = ParsePrometheusText(result.response.body);
    EXPECT_TRUE(page.ok()) << page.status();
    return page.ok() ? *std::move(page) : PrometheusPage{};
  }

  // One sample's value; fails the test (and returns -1) unless exactly one matches.
  double Value(const PrometheusPage& page, std::string_view name,
               const std::map<std::string, std::string>& labels = {}) {
    absl::StatusOr<double> value = page.Value(name, labels);
    EXPECT_TRUE(value.ok()) << value.status();
    return value.ok() ? *value : -1;
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

// Every family of the table is on the page, in table order, with the
// declared type and help, and every sample carries the constant labels and
// then exactly the declared labels (plus `le` on histogram buckets).
TEST_F(OpsTest, ThePageIsTheMetricsTable) {
  Config config = OpsConfig({FastHttpSink(server_.Url("/e"), "collector")});
  config.http_ingest.enabled = true;
  config.http_ingest.port = 0;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  const auto events = OneEventOfEveryType();
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitForElements(server_, events.size()));
  ASSERT_TRUE(
      WaitFor([&] { return harness().sink(0).counters().sent_events.load() == events.size(); }));

  const PrometheusPage page = Scrape();
  const auto families = DaemonMetricFamilies();
  ASSERT_EQ(page.families.size(), families.size());
  for (size_t i = 0; i < families.size(); ++i) {
    const MetricDef& def = families[i].def;
    const PrometheusFamily& family = page.families[i];
    SCOPED_TRACE(def.name);
    EXPECT_EQ(family.name, def.name);
    EXPECT_EQ(family.type, MetricTypeName(def.type));
    EXPECT_EQ(family.help, def.help);
    for (const PrometheusSample& sample : family.samples) {
      std::vector<std::string> expected = {"RayClusterName", "quote"};
      expected.insert(expected.end(), def.labels.begin(), def.labels.end());
      if (sample.name.ends_with("_bucket")) expected.push_back("le");
      std::vector<std::string> names;
      for (const auto& [name, value] : sample.labels) names.push_back(name);
      EXPECT_EQ(names, expected) << sample.name;
    }
  }
  // Both listeners report themselves; the scrape itself was a request.
  EXPECT_EQ(Value(page, "rayagg_http_server_connections_accepted_total", {{"listener", "ops"}}), 1);
  EXPECT_EQ(Value(page, "rayagg_http_server_requests_total", {{"listener", "http_ingest"}}), 0);
}

// Event type numbers this build does not know, however many, share one
// label value: a sender cannot grow the label set.
TEST_F(OpsTest, UnknownEventTypesShareOneLabelValue) {
  server_.SetDefaultBehavior(Respond{.status = 503});
  SinkConfig sink = FastHttpSink(server_.Url("/e"), "down");
  sink.retry.max_retries = 0;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(OpsConfig({sink})));
  std::vector<RayEvent> events;
  for (const int type : {30, 63, 64, 1000, 123456789}) {
    RayEvent event = TaskLifecycleEvent("invented-" + std::to_string(type), 0);
    event.clear_task_lifecycle_event();
    event.set_event_type(static_cast<RayEvent::EventType>(type));
    events.push_back(event);
  }
  events.push_back(TaskLifecycleEvent("known", 0));
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitFor([&] {
    return harness().sink(0).drops().Total(DropReason::kRetriesExhausted) == events.size();
  }));
  const PrometheusPage page = Scrape();
  const PrometheusFamily* dropped = page.Find("rayagg_sink_dropped_events_total");
  ASSERT_NE(dropped, nullptr);
  std::map<std::string, double> by_type;
  for (const PrometheusSample& sample : dropped->samples) {
    by_type[sample.Label("event_type").value_or("?")] += sample.value;
  }
  EXPECT_EQ(by_type, (std::map<std::string, double>{{"UNKNOWN", 5}, {"TASK_LIFECYCLE_EVENT", 1}}));
}

// The HTTP server's own answers and limits, per listener: a 413 before any
// handler and a body that never arrives (HTTP ingest), idle connections
// closed to admit a scrape at the ops listener's limit (here 2).
TEST_F(OpsTest, HttpListenersCountTheirOwnRefusalsAndTimeouts) {
  Config config = OpsConfig({FastHttpSink(server_.Url("/e"))});
  config.http_ingest.enabled = true;
  config.http_ingest.port = 0;
  config.http_ingest.max_body_bytes = 1024;
  config.http_ingest.limits.read_timeout = std::chrono::milliseconds(200);
  config.ops.limits.max_connections = 2;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  const auto http_port = static_cast<uint16_t>(harness().daemon().http_port());
  const auto ops_port = static_cast<uint16_t>(harness().daemon().ops_port());

  {
    RawHttpClient client(http_port);
    client.Send("POST " + config.http_ingest.path +
                " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                "Content-Length: 4096\r\n\r\n");
    EXPECT_EQ(client.Read().result_int(), 413);
  }
  {
    // Ten body bytes announced, two sent: HTTP ingest's read deadline
    // closes the connection without an answer.
    RawHttpClient client(http_port, std::chrono::seconds(60));
    client.Send("POST " + config.http_ingest.path +
                " HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n[]");
    EXPECT_EQ(client.ReadUntilClosed(), "");
  }
  // The listener may close the connection before it counts the timeout.
  ASSERT_TRUE(WaitFor([&] {
    return Value(Scrape(), "rayagg_http_server_errors_total",
                 {{"listener", "http_ingest"}, {"reason", "timeout"}}) == 1;
  }));
  // Two idle connections fill the ops listener; a scrape still gets in by
  // closing the oldest. (Refused only if it arrives before they are
  // registered as waiting; then it is retried.)
  std::vector<std::unique_ptr<RawHttpClient>> held;
  for (int i = 0; i < 2; ++i) held.push_back(std::make_unique<RawHttpClient>(ops_port));
  uint64_t refused_scrapes = 0;
  ASSERT_TRUE(WaitFor([&] {
    if (!Get(ops_port, "/metrics").error) return true;
    ++refused_scrapes;
    return false;
  }));
  const PrometheusPage page = Scrape();
  EXPECT_EQ(Value(page, "rayagg_http_server_errors_total",
                  {{"listener", "http_ingest"}, {"reason", "body_too_large"}}),
            1);
  EXPECT_EQ(Value(page, "rayagg_http_server_connections_refused_total", {{"listener", "ops"}}),
            static_cast<double>(refused_scrapes));
  EXPECT_GE(Value(page, "rayagg_http_server_connections_closed_total",
                  {{"listener", "ops"}, {"reason", "evicted_idle"}}),
            1);
  EXPECT_EQ(held[0]->ReadUntilClosed(), "");  // the longest idle made room
  EXPECT_EQ(Value(page, "rayagg_http_server_errors_total",
                  {{"listener", "http_ingest"}, {"reason", "timeout"}}),
            1);
  EXPECT_EQ(
      Value(page, "rayagg_http_server_connections_refused_total", {{"listener", "http_ingest"}}),
      0);
}

TEST_F(OpsTest, ReadinessIsFalseOnceStopBegins) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(OpsConfig({FastHttpSink(server_.Url("/e"))})));
  EXPECT_TRUE(harness().daemon().ready());
  StopDaemon();
  EXPECT_FALSE(harness().daemon().ready());
}

}  // namespace
}  // namespace rayagg::test
