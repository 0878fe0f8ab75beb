// Issue 18's end to end, on one machine with nothing else installed: the
// real ray-event-aggregator writes a known session into a dir:// store
// through its object-store sink, the real ray-task-history indexes that
// store, and every API answer (ours and Ray's State API) is checked against
// the events sent (history_scenario.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "integration/history/history_pipeline.h"

namespace rayagg::test::history_e2e {
namespace {

class TaskHistoryDirTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure()) std::cerr << pipeline_.Logs() << "\n";
  }
  TempDir dir_;
  HistoryPipeline pipeline_{dir_};
};

TEST_F(TaskHistoryDirTest, EventsSentToTheDaemonAreAnsweredByTheHistory) {
  const std::string store = dir_.Path("store");
  std::filesystem::create_directory(store);
  const Scenario scenario = MakeScenario();
  ASSERT_TRUE(pipeline_.StartDaemon("    url: dir://" + store + "\n"));
  ASSERT_TRUE(pipeline_.Send(scenario));
  ASSERT_TRUE(pipeline_.StopDaemon());

  ASSERT_TRUE(pipeline_.StartHistory("dir://" + store,
                                     "indexing: {poll_interval: 50ms, discovery_interval: 0ms}\n"));
  ASSERT_TRUE(pipeline_.WaitUntilCaughtUp());
  ExpectAnswersMatch(pipeline_, scenario);
  ASSERT_TRUE(pipeline_.StopHistory());

  // Restarted on the same index, it serves the same answers without
  // reading an object again.
  ASSERT_TRUE(pipeline_.StartHistory("dir://" + store,
                                     "indexing: {poll_interval: 50ms, discovery_interval: 0ms}\n"));
  ASSERT_TRUE(pipeline_.WaitUntilCaughtUp());
  ExpectAnswersMatch(pipeline_, scenario);
  const std::string metrics = pipeline_.GetOpsText("/metrics");
  EXPECT_NE(metrics.find("\nrayhist_objects_indexed_total 0\n"), std::string::npos) << metrics;
  ASSERT_TRUE(pipeline_.StopHistory());
}

}  // namespace
}  // namespace rayagg::test::history_e2e
