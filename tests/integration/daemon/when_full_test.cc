// when_full: block. A full blocking sink makes gRPC ingest answer
// UNAVAILABLE naming it, at once and for every sink, and nothing is lost for
// it; once it catches up, ingest accepts again. drop_oldest stays the default.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "support/daemon_fixture.h"
#include "support/sample_events.h"

namespace rayagg::test {
namespace {

class WhenFullTest : public DaemonTest {
 protected:
  void TearDown() override {
    server_.Stop();
    StopDaemon();
    DaemonTest::TearDown();
  }
};

TEST_F(WhenFullTest, FullBlockingSinkMakesIngestRefuseWithUnavailableUntilItCatchesUp) {
  constexpr uint64_t kBufferEvents = 10;
  // The blocking sink's first request hangs until the test ends the hang
  // (its request_timeout is longer than any test runs), then all is well.
  server_.Enqueue(TestHttpServer::Hang{});
  TestHttpServer& other_server = AddServer();
  SinkConfig blocking = FastHttpSink(server_.Url("/archive"), "archive");
  blocking.when_full = WhenFull::kBlock;
  blocking.request_timeout = std::chrono::hours(24);
  SinkConfig lossy = FastHttpSink(other_server.Url("/live"), "live");
  Config config = TestConfig({blocking, lossy});
  config.buffer.max_events = kBufferEvents;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));

  // The blocking sink takes the first event into its batch and hangs on it.
  std::vector<RayEvent> accepted = {TaskLifecycleEvent("first", 0)};
  ASSERT_TRUE(harness().AddEvents(accepted).ok());
  ASSERT_TRUE(server_.WaitForRequests(1, kWaitTimeout));

  // The buffer fills with events it has not read...
  const auto fill = TaskLifecycleEvents(kBufferEvents, "fill");
  ASSERT_TRUE(harness().AddEvents(fill).ok());
  accepted.insert(accepted.end(), fill.begin(), fill.end());
  EXPECT_EQ(harness().daemon().log().FullBlockingSink(), "archive");

  // ...so the next request is refused, naming the sink, while the sink still
  // hangs: the call does not wait for the sink (if it did, it would end
  // DEADLINE_EXCEEDED, as the hang only ends below).
  const std::vector<RayEvent> refused = {TaskLifecycleEvent("refused", 0)};
  const grpc::Status status = harness().AddEvents(refused);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(status.error_message().find("\"archive\""), std::string::npos)
      << status.error_message();
  const Sink& archive = harness().sink(0);
  EXPECT_EQ(archive.counters().refused_requests.load(), 1u);
  EXPECT_EQ(harness().daemon().ingest_counters().refused_requests.load(), 1u);
  EXPECT_EQ(archive.counters().failed_attempts.load(), 0u);  // still hanging

  // The hang ends (the connection closes unanswered), the batch is retried,
  // the sink catches up and ingest takes requests again (the sender
  // retries, as Ray's HTTP agent does).
  server_.EndHangs();
  ASSERT_TRUE(WaitFor([&] { return harness().AddEvents(refused).ok(); }));
  accepted.push_back(refused[0]);
  ASSERT_TRUE(WaitFor([&] { return archive.counters().sent_events.load() == accepted.size(); }));
  EXPECT_EQ(archive.drops().Total(), 0u);  // nothing lost for the blocking sink
  EXPECT_EQ(archive.request_stats().Failures(FailureReason::kConnection), 1u);
  EXPECT_EQ(archive.counters().failed_attempts.load(), 1u);

  // The drop_oldest sink next to it saw exactly what was accepted.
  const Sink& live = harness().sink(1);
  ASSERT_TRUE(WaitFor([&] {
    return live.counters().sent_events.load() + live.drops().Total() == accepted.size();
  }));
  EXPECT_EQ(live.drops().Total(), 0u);
}

TEST_F(WhenFullTest, DropOldestIsTheDefaultAndNeverRefuses) {
  server_.SetDefaultBehavior(TestHttpServer::Hang{});
  SinkConfig stuck = FastHttpSink(server_.Url("/stuck"), "stuck");
  stuck.request_timeout = std::chrono::hours(24);  // hangs for as long as the test runs
  EXPECT_EQ(stuck.when_full, WhenFull::kDropOldest);
  Config config = TestConfig({stuck});
  config.buffer.max_events = 5;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(1, "first")).ok());
  ASSERT_TRUE(server_.WaitForRequests(1, kWaitTimeout));
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(5, "more-" + std::to_string(i))).ok());
  }
  EXPECT_EQ(harness().sink(0).drops().Total(DropReason::kOverflow), 15u);
  EXPECT_EQ(harness().daemon().log().FullBlockingSink(), std::nullopt);
}

}  // namespace
}  // namespace rayagg::test
