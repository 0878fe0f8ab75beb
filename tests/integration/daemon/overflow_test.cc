// A sink stuck on a hanging endpoint: ingest keeps answering OK, the bounded
// buffer evicts the oldest events and counts them against that sink per event
// type, and a healthy sink next to it accounts for every event.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/daemon_fixture.h"
#include "support/sample_events.h"

namespace rayagg::test {
namespace {

class OverflowTest : public DaemonTest {
 protected:
  void TearDown() override {
    // Release the hung connection first so the drain does not wait for the
    // sink's (long) request timeout.
    server_.Stop();
    StopDaemon();
    DaemonTest::TearDown();
  }
};

TEST_F(OverflowTest, FullBufferDropsOldestPerTypeAndIngestStaysOk) {
  constexpr uint64_t kBufferEvents = 100;
  constexpr size_t kEvents = 1000;
  server_.SetDefaultBehavior(TestHttpServer::Hang{});
  TestHttpServer& healthy_server = AddServer();

  SinkConfig stuck = FastHttpSink(server_.Url("/stuck"), "stuck");
  stuck.request_timeout = Duration(60'000);  // stays hung for the whole test
  SinkConfig healthy = FastHttpSink(healthy_server.Url("/healthy"), "healthy");
  Config config = TestConfig({stuck, healthy});
  config.buffer.max_events = kBufferEvents;
  config.shutdown.drain_timeout = Duration(100);
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));

  // The stuck sink takes the first event into its batch and hangs on it.
  const RayEvent first = TaskLifecycleEvent("first", 0);
  ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{first}).ok());
  ASSERT_TRUE(server_.WaitForRequests(1, kWaitTimeout));

  // Alternating types, so the per-type drop counts are known exactly.
  std::vector<RayEvent> events;
  for (size_t i = 0; i < kEvents; ++i) {
    const std::string id = "overflow-" + std::to_string(i);
    events.push_back(i % 2 == 0 ? TaskLifecycleEvent(id, 0) : TaskDefinitionEvent(id, 0));
  }
  for (size_t first_index = 0; first_index < kEvents; first_index += 100) {
    const std::span<const RayEvent> chunk(events.data() + first_index, 100);
    const grpc::Status status = harness().AddEvents(chunk);
    ASSERT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
  }

  const IngestCounters& ingest = harness().daemon().ingest_counters();
  EXPECT_EQ(ingest.accepted_events.load(), kEvents + 1);
  EXPECT_EQ(ingest.refused_requests.load(), 0u);
  EXPECT_LE(harness().daemon().buffer_snapshot().held_events, kBufferEvents);

  // Evictions happen inside Append, so the counts are final once AddEvents
  // answered: the stuck sink read nothing after `first`, the 900 oldest of
  // the 1000 were evicted unread, 450 of each type.
  const Sink& stuck_sink = harness().sink(0);
  EXPECT_EQ(stuck_sink.drops().Total(DropReason::kOverflow), kEvents - kBufferEvents);
  const auto drops = stuck_sink.drops().Snapshot();
  EXPECT_EQ(drops.at({DropReason::kOverflow, RayEvent::TASK_LIFECYCLE_EVENT}), 450u);
  EXPECT_EQ(drops.at({DropReason::kOverflow, RayEvent::TASK_DEFINITION_EVENT}), 450u);
  EXPECT_EQ(drops.size(), 2u);
  EXPECT_EQ(server_.RequestCount(), 1u);

  // The healthy sink: every event is either delivered or counted as dropped
  // (it may lose some too if it fell 100 behind, but never silently).
  const Sink& healthy_sink = harness().sink(1);
  EXPECT_TRUE(WaitFor([&] {
    return healthy_sink.counters().sent_events.load() + healthy_sink.drops().Total() == kEvents + 1;
  })) << "sent "
      << healthy_sink.counters().sent_events.load() << " dropped " << healthy_sink.drops().Total();
  EXPECT_EQ(healthy_sink.drops().Total(), healthy_sink.drops().Total(DropReason::kOverflow));
  // What it did deliver is the newest events in order, ending with the last.
  const auto elements = ElementsOf(healthy_server.Requests());
  ASSERT_FALSE(elements.empty());
  EXPECT_EQ(EventIdOf(elements.back()), JsonEventId(events.back()));
  EXPECT_EQ(elements.size(), healthy_sink.counters().sent_events.load());
}

}  // namespace
}  // namespace rayagg::test
