// The simulated Ray cluster (src/demo/, bench/rayagg-demo-cluster) end to
// end: its fixture — the browser tests' data set — goes through the real
// daemon's ingest (HTTP JSON and gRPC, the nodes alternating) into a dir://
// store, the real ray-task-history
// indexes it, and /api/history/v1/counts in both units equals the
// expectation file the generator wrote from its own model. Its --write-store
// session is discovered and indexed as a normal session, with the same check.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "integration/history/history_pipeline.h"

#ifndef RAYAGG_DEMO_CLUSTER_BINARY
#error "RAYAGG_DEMO_CLUSTER_BINARY must name the rayagg-demo-cluster executable"
#endif

namespace rayagg::test::history_e2e {
namespace {

using nlohmann::json;

std::map<std::string, int64_t> NonZeroCounts(const json& by_state) {
  std::map<std::string, int64_t> out;
  for (const auto& [state, count] : by_state.items()) {
    if (count.get<int64_t>() != 0) out[state] = count.get<int64_t>();
  }
  return out;
}

class DemoClusterE2eTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure()) {
      std::cerr << pipeline_.Logs() << "\nrayagg-demo-cluster stderr:\n"
                << ReadWholeFile(dir_.Path("demo.err")) << "\n";
    }
  }

  // Runs rayagg-demo-cluster to its end; true when it exited 0.
  ::testing::AssertionResult RunDemoCluster(std::vector<std::string> args) {
    Subprocess demo(RAYAGG_DEMO_CLUSTER_BINARY, args, dir_.Path("demo.out"), dir_.Path("demo.err"));
    const std::optional<int> status = demo.WaitForExit(kPipelineTimeout);
    if (!ExitedWith(status, 0)) {
      return ::testing::AssertionFailure() << "rayagg-demo-cluster " << DescribeStatus(status);
    }
    return ::testing::AssertionSuccess();
  }

  // The history's counts in both units equal the expectation's.
  void ExpectCountsMatch(const json& expected) {
    const std::string session = expected["session"].get<std::string>();
    for (const std::string unit : {"tasks", "attempts"}) {
      auto [status, body] =
          pipeline_.Get("/api/history/v1/counts?unit=" + unit + "&session=" + session);
      ASSERT_EQ(status, 200) << body.dump();
      EXPECT_EQ(body["total"], expected[unit]["total"]) << unit << ": " << body.dump();
      using Counts = std::map<std::string, int64_t>;
      const Counts wanted = expected[unit]["by_state"].get<Counts>();
      EXPECT_EQ(NonZeroCounts(body["by_state"]), wanted) << unit << ": " << body.dump();
    }
  }

  TempDir dir_;
  HistoryPipeline pipeline_{dir_};
};

TEST_F(DemoClusterE2eTest, TheFixtureThroughTheDaemonIsCountedAsTheGeneratorExpects) {
  const std::string store = dir_.Path("store");
  std::filesystem::create_directory(store);
  ASSERT_TRUE(pipeline_.StartDaemon("    url: dir://" + store + "\n"));
  ASSERT_TRUE(RunDemoCluster({"--fixture", "--expect-out", dir_.Path("expect.json"), "--http",
                              "http://127.0.0.1:" + std::to_string(pipeline_.http_port()), "--grpc",
                              "127.0.0.1:" + std::to_string(pipeline_.grpc_port()), "--namespace",
                              "e2e", "--cluster-name", "history-e2e"}));
  ASSERT_TRUE(pipeline_.StopDaemon());
  const json expected = json::parse(ReadWholeFile(dir_.Path("expect.json")));
  ASSERT_TRUE(pipeline_.StartHistory("dir://" + store,
                                     "indexing: {poll_interval: 50ms, discovery_interval: 0ms}\n"));
  ASSERT_TRUE(pipeline_.WaitUntilCaughtUp());
  ExpectCountsMatch(expected);

  // The tasks the browser tests look for.
  const std::string session = "session=" + expected["session"].get<std::string>();
  {
    auto [status, body] = pipeline_.Get("/api/history/v1/task?" + session + "&task_id=" +
                                        expected["retried_task"]["task_id"].get<std::string>());
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["attempts"].size(), 2u) << body.dump();
  }
  {
    auto [status, body] = pipeline_.Get("/api/history/v1/tasks/count?" + session + "&q=" +
                                        expected["trace_probe"]["substring"].get<std::string>());
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["total"], 1) << body.dump();
  }
  {
    auto [status, body] = pipeline_.Get("/api/history/v1/task?" + session + "&task_id=" +
                                        expected["xss_task"]["task_id"].get<std::string>());
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body["definition"]["name"], "<img src=x onerror=alert(1)>") << body.dump();
  }
  ASSERT_TRUE(pipeline_.StopHistory());
}

TEST_F(DemoClusterE2eTest, AWrittenStoreIsIndexedAsANormalSession) {
  const std::string store = dir_.Path("store");
  std::filesystem::create_directory(store);
  ASSERT_TRUE(
      RunDemoCluster({"--write-store", store, "--tasks", "3000", "--tasks-per-second", "200",
                      "--events-per-object", "2000", "--expect-out", dir_.Path("expect.json")}));
  const json expected = json::parse(ReadWholeFile(dir_.Path("expect.json")));
  ASSERT_TRUE(pipeline_.StartHistory("dir://" + store,
                                     "indexing: {poll_interval: 50ms, discovery_interval: 0ms}\n"));
  ASSERT_TRUE(pipeline_.WaitUntilCaughtUp());
  ExpectCountsMatch(expected);
  auto [status, body] = pipeline_.Get("/api/history/v1/sessions");
  ASSERT_EQ(status, 200) << body.dump();
  ASSERT_EQ(body["sessions"].size(), 1u) << body.dump();
  EXPECT_EQ(body["sessions"][0]["session"], expected["session"]);
  EXPECT_EQ(body["sessions"][0]["events"], expected["events"]);
  EXPECT_EQ(body["sessions"][0]["bad_lines"], 0);
  ASSERT_TRUE(pipeline_.StopHistory());
}

}  // namespace
}  // namespace rayagg::test::history_e2e
