// Issue 18's end to end over a real S3 server: the real ray-event-aggregator
// writes a known session into a Ceph RGW bucket (path style, SigV4, gzip),
// the real ray-task-history indexes it through its s3:// store, and every
// API answer is checked against the events sent (history_scenario.h).
// Release leg only (label rgw), as every RGW test.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "common/real_clock.h"
#include "integration/history/history_pipeline.h"
#include "objstore/s3_object_store.h"
#include "support/rgw_server.h"
#include "support/run_coroutine.h"

namespace rayagg::test::history_e2e {
namespace {

class TaskHistoryRgwTest : public RgwTest {
 protected:
  void TearDown() override {
    if (HasFailure()) std::cerr << pipeline_.Logs() << "\n";
  }
  TempDir dir_;
  HistoryPipeline pipeline_{dir_};
};

TEST_F(TaskHistoryRgwTest, EventsSentToTheDaemonAreAnsweredByTheHistory) {
  const std::string bucket = RgwServer::UniqueBucket();
  {
    RealClock clock;
    auto logger =
        std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
    asio::io_context io;
    auto admin = S3ObjectStore::Make(io.get_executor(), rgw().StoreConfig(bucket), *logger, clock);
    ASSERT_TRUE(admin.ok()) << admin.status();
    ASSERT_TRUE(RunCoroutine(io, (*admin)->CreateBucket()).ok());
  }
  // Both programs read the keys from files, as from a Kubernetes Secret.
  const std::string key_file = dir_.Write("access_key_id", rgw().access_key());
  const std::string secret_file = dir_.Write("secret_access_key", rgw().secret_key());
  const std::string s3 = "{endpoint: '" + rgw().endpoint() +
                         "', addressing: path, access_key_id_file: '" + key_file +
                         "', secret_access_key_file: '" + secret_file + "'}";
  const std::string url = "s3://" + bucket + "/events";
  const Scenario scenario = MakeScenario();
  ASSERT_TRUE(pipeline_.StartDaemon("    url: " + url + "\n    s3: " + s3 + "\n"));
  ASSERT_TRUE(pipeline_.Send(scenario));
  ASSERT_TRUE(pipeline_.StopDaemon());

  ASSERT_TRUE(pipeline_.StartHistory(
      url, "store: {s3: " + s3 + "}\nindexing: {poll_interval: 50ms, discovery_interval: 0ms}\n"));
  ASSERT_TRUE(pipeline_.WaitUntilCaughtUp());
  ExpectAnswersMatch(pipeline_, scenario);
  ASSERT_TRUE(pipeline_.StopHistory());
}

}  // namespace
}  // namespace rayagg::test::history_e2e
