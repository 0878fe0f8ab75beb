// Per-sink request options end to end: static headers, the bearer token from
// a file (re-read after rotation) and gzip bodies, as a loopback collector
// receives them from the running daemon.
#include <gtest/gtest.h>

#include <string>

#include "support/daemon_fixture.h"
#include "support/gunzip.h"
#include "support/temp_dir.h"

namespace rayagg::test {
namespace {

class HttpOptionsTest : public DaemonTest {};

TEST_F(HttpOptionsTest, StaticHeadersAndBearerTokenReachTheCollector) {
  TempDir dir;
  SinkConfig sink = FastHttpSink(server_.Url("/events"));
  sink.headers = {{"X-Tenant", "team-a"}, {"Content-Type", "application/x-ray+json"}};
  sink.bearer_token_file = dir.Write("token", "token-one\n");
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(3, "first")).ok());
  ASSERT_TRUE(WaitForElements(server_, 3));
  const size_t first_requests = server_.RequestCount();
  for (const ReceivedRequest& request : server_.Requests()) {
    EXPECT_EQ(request.Header("X-Tenant"), "team-a");
    EXPECT_EQ(request.Header("Content-Type"), "application/x-ray+json");
    EXPECT_EQ(request.Header("Authorization"), "Bearer token-one");
    EXPECT_FALSE(request.Header("Content-Encoding").has_value());
  }

  // Rotation as Kubernetes does it: a new file renamed over the old one.
  dir.Replace("token", "token-two");
  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(2, "second")).ok());
  ASSERT_TRUE(WaitForElements(server_, 5));
  const std::vector<ReceivedRequest> requests = server_.Requests();
  ASSERT_GT(requests.size(), first_requests);
  for (size_t i = first_requests; i < requests.size(); ++i) {
    EXPECT_EQ(requests[i].Header("Authorization"), "Bearer token-two") << "request " << i;
  }
}

TEST_F(HttpOptionsTest, GzipBodiesDecompressToTheJsonArray) {
  SinkConfig sink = FastHttpSink(server_.Url("/events"));
  sink.compression = Compression::kGzip;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  const std::vector<RayEvent> events = TaskLifecycleEvents(50, "gz");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  // The server sees compressed bytes, so count elements after decompressing.
  ASSERT_TRUE(server_.WaitUntil(
      [&](const std::vector<ReceivedRequest>& requests) {
        size_t elements = 0;
        for (const ReceivedRequest& request : requests) {
          if (auto json = Gunzip(request.body)) elements += ElementCount(*json);
        }
        return elements >= events.size();
      },
      kWaitTimeout));

  std::vector<ReceivedRequest> decompressed = server_.Requests();
  for (ReceivedRequest& request : decompressed) {
    EXPECT_EQ(request.Header("Content-Encoding"), "gzip");
    EXPECT_EQ(request.Header("Content-Length"), std::to_string(request.body.size()));
    std::optional<std::string> json = Gunzip(request.body);
    ASSERT_TRUE(json.has_value()) << "not valid gzip";
    request.body = *json;
  }
  const std::vector<nlohmann::json> elements = ElementsOf(decompressed);
  ASSERT_EQ(elements.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(EventIdOf(elements[i]), JsonEventId(events[i])) << "element " << i;
  }
  // The sink counts the batch once the response is in, just after the server recorded it.
  EXPECT_TRUE(
      WaitFor([&] { return harness().sink(0).counters().sent_events.load() == events.size(); }));
}

TEST_F(HttpOptionsTest, UnreadableTokenFileFailsStartupNamingTheSink) {
  TempDir dir;
  SinkConfig sink = FastHttpSink(server_.Url("/events"), "secured");
  sink.bearer_token_file = dir.Path("missing-token");
  DaemonHarness daemon(TestConfig({sink}));
  ASSERT_FALSE(daemon.start_status().ok());
  EXPECT_NE(std::string(daemon.start_status().message()).find("secured"), std::string::npos)
      << daemon.start_status();
  EXPECT_NE(std::string(daemon.start_status().message()).find("bearer_token_file"),
            std::string::npos)
      << daemon.start_status();
}

}  // namespace
}  // namespace rayagg::test
