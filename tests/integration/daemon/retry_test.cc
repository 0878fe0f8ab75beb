// An endpoint that fails (503, connection reset, no answer, hang) still gets
// every event once it recovers, and a hanging endpoint never slows ingest.

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "support/daemon_fixture.h"
#include "support/json_compare.h"
#include "support/sample_events.h"

namespace rayagg::test {
namespace {

// Delivery order is not what these tests check.
template <typename Events>
std::set<std::string> IdSet(const Events& events) {
  const std::vector<std::string> ids = IdsOf(events);
  return {ids.begin(), ids.end()};
}

class RetryTest : public DaemonTest {};

TEST_F(RetryTest, ServiceUnavailableThreeTimesThenOkDeliversEverything) {
  for (int i = 0; i < 3; ++i) server_.Enqueue(TestHttpServer::Respond{.status = 503});
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url("/events"))})));

  const std::vector<RayEvent> events = TaskLifecycleEvents(10, "retried");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(server_.WaitForRequests(4, kWaitTimeout));
  const Sink& sink = harness().sink(0);
  ASSERT_TRUE(WaitFor([&] { return sink.counters().sent_events.load() == events.size(); }));

  const std::vector<ReceivedRequest> requests = server_.Requests();
  ASSERT_EQ(requests.size(), 4u);
  // Every attempt carried the same batch.
  for (const ReceivedRequest& request : requests) EXPECT_EQ(request.body, requests[0].body);
  const auto delivered = ElementsOf(requests, 3);
  ASSERT_EQ(delivered.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_TRUE(JsonEquivalent(delivered[i], ParseJson(ProtobufPrinterJson(events[i]))));
  }
  EXPECT_EQ(sink.counters().failed_attempts.load(), 3u);
  EXPECT_GE(sink.counters().retries.load(), 3u);
  EXPECT_EQ(sink.counters().consecutive_failures.load(), 0u);
  EXPECT_EQ(sink.counters().sent_batches.load(), 1u);
  EXPECT_EQ(sink.drops().Total(), 0u);
}

TEST_F(RetryTest, ResetAndClosedConnectionsAreRetried) {
  server_.Enqueue(TestHttpServer::Reset{});
  server_.Enqueue(TestHttpServer::CloseWithoutResponse{});
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url("/events"))})));

  const std::vector<RayEvent> events = TaskLifecycleEvents(5, "reset");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(server_.WaitForRequests(3, kWaitTimeout));
  const Sink& sink = harness().sink(0);
  ASSERT_TRUE(WaitFor([&] { return sink.counters().sent_events.load() == events.size(); }));

  EXPECT_EQ(IdSet(ElementsOf(server_.Requests(), 2)), IdSet(events));
  EXPECT_EQ(sink.counters().failed_attempts.load(), 2u);
  EXPECT_GE(sink.counters().retries.load(), 2u);
  EXPECT_EQ(sink.drops().Total(), 0u);
}

TEST_F(RetryTest, HangingEndpointNeverSlowsAddEvents) {
  server_.Enqueue(TestHttpServer::Hang{});
  SinkConfig sink_config = FastHttpSink(server_.Url("/events"));
  // Longer than any test runs: the hang lasts until the test ends it.
  sink_config.request_timeout = std::chrono::hours(24);
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink_config})));

  // The sink's first POST hangs; everything below happens while it does.
  const std::vector<RayEvent> first = {TaskLifecycleEvent("first", 0)};
  ASSERT_TRUE(harness().AddEvents(first).ok());
  ASSERT_TRUE(server_.WaitForRequests(1, kWaitTimeout));

  // Every call succeeds while the sink hangs: ingest never waits for a sink
  // (a call that did would end DEADLINE_EXCEEDED, as the hang only ends below).
  std::vector<RayEvent> sent = first;
  for (int i = 0; i < 50; ++i) {
    const std::vector<RayEvent> events = {
        TaskLifecycleEvent("during-hang-" + std::to_string(i), 0)};
    const grpc::Status status = harness().AddEvents(events);
    ASSERT_TRUE(status.ok()) << "call " << i << ": " << status.error_code() << " "
                             << status.error_message();
    sent.push_back(events[0]);
  }
  const Sink& sink = harness().sink(0);
  EXPECT_EQ(sink.counters().failed_attempts.load(), 0u);  // still hanging
  EXPECT_EQ(server_.RequestCount(), 1u);

  // The hang ends (the connection closes unanswered), the batch is retried
  // and the endpoint (now answering 200) gets every event; the hung request
  // itself got no answer.
  server_.EndHangs();
  ASSERT_TRUE(WaitFor([&] { return sink.counters().sent_events.load() == sent.size(); }));
  EXPECT_EQ(IdSet(ElementsOf(server_.Requests(), 1)), IdSet(sent));
  EXPECT_EQ(sink.counters().failed_attempts.load(), 1u);
  EXPECT_EQ(sink.request_stats().Failures(FailureReason::kConnection), 1u);
  EXPECT_EQ(sink.drops().Total(), 0u);
}

TEST_F(RetryTest, RetryLimitDropsTheBatchAndCountsItPerType) {
  server_.SetDefaultBehavior(TestHttpServer::Respond{.status = 500});
  SinkConfig sink_config = FastHttpSink(server_.Url("/events"));
  sink_config.retry.max_retries = 2;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink_config})));

  std::vector<RayEvent> events = TaskLifecycleEvents(3, "doomed");
  events.push_back(TaskDefinitionEvent("doomed-definition", 0));
  ASSERT_TRUE(harness().AddEvents(events).ok());
  const Sink& sink = harness().sink(0);
  ASSERT_TRUE(WaitFor([&] { return sink.drops().Total() == events.size(); }));

  EXPECT_EQ(server_.RequestCount(), 3u);  // the first attempt and two retries
  EXPECT_EQ(sink.counters().failed_attempts.load(), 3u);
  EXPECT_EQ(sink.counters().retries.load(), 2u);
  EXPECT_EQ(sink.counters().sent_events.load(), 0u);
  const auto drops = sink.drops().Snapshot();
  EXPECT_EQ(drops.at({DropReason::kRetriesExhausted, RayEvent::TASK_LIFECYCLE_EVENT}), 3u);
  EXPECT_EQ(drops.at({DropReason::kRetriesExhausted, RayEvent::TASK_DEFINITION_EVENT}), 1u);

  // The sink goes on with the next batch.
  server_.SetDefaultBehavior(TestHttpServer::Respond{});
  const RayEvent later = TaskLifecycleEvent("later", 0);
  ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{later}).ok());
  ASSERT_TRUE(WaitForEvent(server_, later));
}

TEST_F(RetryTest, DroppedCoalescedEventCountsEveryEventItStandsFor) {
  // The first POST hangs until the request timeout; meanwhile three reports
  // of one task attempt arrive unread and coalesce into one entry.
  server_.Enqueue(TestHttpServer::Hang{});
  server_.SetDefaultBehavior(TestHttpServer::Respond{.status = 500});
  SinkConfig sink_config = FastHttpSink(server_.Url("/events"));
  sink_config.retry.max_retries = 0;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink_config})));

  ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{TaskDefinitionEvent("hung", 0)}).ok());
  ASSERT_TRUE(server_.WaitForRequests(1, kWaitTimeout));
  const std::vector<RayEvent> reports = {
      TaskLifecycleEvent("merged", 0, ray::rpc::PENDING_ARGS_AVAIL),
      TaskLifecycleEvent("merged", 0, ray::rpc::RUNNING),
      TaskLifecycleEvent("merged", 0, ray::rpc::FINISHED)};
  ASSERT_TRUE(harness().AddEvents(reports).ok());
  EXPECT_EQ(harness().daemon().buffer_snapshot().coalesced_events, 2u);

  const Sink& sink = harness().sink(0);
  ASSERT_TRUE(WaitFor([&] { return sink.drops().Total() == 4; }));
  EXPECT_EQ(server_.RequestCount(), 2u);  // the hung batch, then the merged event once
  const auto drops = sink.drops().Snapshot();
  EXPECT_EQ(drops.at({DropReason::kRetriesExhausted, RayEvent::TASK_DEFINITION_EVENT}), 1u);
  EXPECT_EQ(drops.at({DropReason::kRetriesExhausted, RayEvent::TASK_LIFECYCLE_EVENT}), 3u);
}

// An endpoint that fails every other attempt: each batch fails once and is
// then delivered. The log says "sink recovered" only in answer to a failure
// warning it showed, not after each of the 30 recoveries. (That the warnings
// are one per 10 s of the sink's clock is sink_timing_test's, by the manual
// clock.)
TEST_F(RetryTest, AFlakyEndpointDoesNotFloodTheLogWithRecoveries) {
  server_.SetResponder([](const ReceivedRequest&, size_t index) -> Behavior {
    return Respond{.status = index % 2 == 0 ? 503u : 200u};
  });
  SinkConfig sink = FastHttpSink(server_.Url("/events"));
  sink.batch.max_events = 1;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));
  constexpr size_t kBatches = 30;
  for (const RayEvent& event : TaskLifecycleEvents(kBatches, "flaky")) {
    ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{event}).ok());
  }
  const Sink& flaky = harness().sink(0);
  ASSERT_TRUE(WaitFor([&] { return flaky.counters().sent_events.load() == kBatches; }));
  EXPECT_EQ(flaky.counters().failed_attempts.load(), kBatches);

  const size_t warnings = harness().CountRecentLogLines("delivery failed, will retry");
  const size_t recoveries = harness().CountRecentLogLines("sink recovered");
  EXPECT_GE(recoveries, 1u);
  EXPECT_LE(recoveries, warnings);
}

}  // namespace
}  // namespace rayagg::test
