// One test per delivery behaviour (docs/DELIVERY.md) against the scripted
// loopback collector: what is retried, split, dropped; Retry-After;
// max_elapsed; the in-flight limit; the drain rate. Each asserts on what the
// collector received and on the sink's counters.

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "support/daemon_fixture.h"
#include "support/sample_events.h"

namespace rayagg::test {
namespace {

using std::chrono::milliseconds;

// Only the requests answered 2xx carry delivered events.
std::vector<std::string> DeliveredIds(const std::vector<ReceivedRequest>& requests,
                                      const std::set<size_t>& failed_indexes) {
  std::vector<ReceivedRequest> delivered;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!failed_indexes.contains(i)) delivered.push_back(requests[i]);
  }
  return IdsOf(ElementsOf(delivered));
}

milliseconds Gap(const ReceivedRequest& earlier, const ReceivedRequest& later) {
  return std::chrono::duration_cast<milliseconds>(later.arrival - earlier.arrival);
}

class DeliveryPolicyTest : public DaemonTest {
 protected:
  void TearDown() override {
    // Hung or scripted connections end first, so the drain never waits out a
    // long request timeout.
    server_.Stop();
    StopDaemon();
    DaemonTest::TearDown();
  }

  void Start(SinkConfig sink) { ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink}))); }
  SinkConfig Sink() { return FastHttpSink(server_.Url("/events")); }
  const rayagg::Sink& sink() { return harness().sink(0); }
  const SinkCounters& counters() { return sink().counters(); }
  bool WaitSent(size_t events) {
    return WaitFor([&] { return counters().sent_events.load() == events; });
  }
};

TEST_F(DeliveryPolicyTest, OkCountsSentEventsBatchesAndBytes) {
  ASSERT_NO_FATAL_FAILURE(Start(Sink()));
  const auto events = TaskLifecycleEvents(20, "ok");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitSent(events.size()));
  const auto requests = server_.Requests();
  size_t bytes = 0;
  for (const auto& request : requests) bytes += request.body.size();
  EXPECT_EQ(IdsOf(ElementsOf(requests)), IdsOf(events));
  EXPECT_EQ(counters().sent_batches.load(), requests.size());
  EXPECT_EQ(counters().sent_bytes.load(), bytes);
  EXPECT_GT(counters().last_success_unix_ms.load(), 0);
  EXPECT_EQ(counters().failed_attempts.load(), 0u);
  EXPECT_TRUE(WaitFor([&] { return counters().in_flight_batches.load() == 0; }));
}

TEST_F(DeliveryPolicyTest, ServerErrorsAreRetriedUntilDelivered) {
  server_.Enqueue(TestHttpServer::Respond{.status = 503});
  server_.Enqueue(TestHttpServer::Respond{.status = 500});
  server_.Enqueue(TestHttpServer::Respond{.status = 408});
  ASSERT_NO_FATAL_FAILURE(Start(Sink()));
  const auto events = TaskLifecycleEvents(5, "5xx");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitSent(events.size()));
  EXPECT_EQ(DeliveredIds(server_.Requests(), {0, 1, 2}), IdsOf(events));
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kHttp5xx), 2u);
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kHttp408), 1u);
  EXPECT_EQ(counters().retries.load(), 3u);
  EXPECT_EQ(counters().consecutive_failures.load(), 0u);
  EXPECT_EQ(sink().drops().Total(), 0u);
}

TEST_F(DeliveryPolicyTest, TooManyRequestsWaitsForRetryAfterUpToTheCap) {
  server_.Enqueue(TestHttpServer::Respond{.status = 429, .headers = {{"Retry-After", "3600"}}});
  SinkConfig config = Sink();
  config.retry.max_retry_after = Duration(300);
  ASSERT_NO_FATAL_FAILURE(Start(config));
  const auto events = TaskLifecycleEvents(3, "429");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitSent(events.size()));  // within the wait timeout: the hour was capped
  const auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_GE(Gap(requests[0], requests[1]), milliseconds(300));  // far above the 50 ms backoff cap
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kHttp429), 1u);
}

TEST_F(DeliveryPolicyTest, RetryAfterAsAnHttpDateIsHonoured) {
  // The daemon runs on the manual clock, whose wall time starts at
  // 2026-01-01T00:00:00Z: the date asks for 45 s of it.
  server_.Enqueue(TestHttpServer::Respond{
      .status = 503, .headers = {{"Retry-After", "Thu, 01 Jan 2026 00:00:45 GMT"}}});
  SinkConfig config = Sink();
  config.batch.flush_interval = Duration(0);  // the manual clock stands still
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({config}), &manual_clock_));
  const SteadyTime start = manual_clock_.Now();
  const auto events = TaskLifecycleEvents(2, "date");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_EQ(manual_clock_.WaitForNextDeadline(), start + std::chrono::seconds(45));
  EXPECT_EQ(server_.RequestCount(), 1u);
  manual_clock_.Advance(std::chrono::seconds(45));
  ASSERT_TRUE(WaitSent(events.size()));
  EXPECT_EQ(server_.RequestCount(), 2u);
}

TEST_F(DeliveryPolicyTest, ClientErrorIsDroppedAsRejectedAndTheSinkMovesOn) {
  server_.Enqueue(TestHttpServer::Respond{.status = 400, .body = "bad field"});
  ASSERT_NO_FATAL_FAILURE(Start(Sink()));
  std::vector<RayEvent> poison = TaskLifecycleEvents(2, "poison");
  poison.push_back(TaskDefinitionEvent("poison-def", 0));
  ASSERT_TRUE(harness().AddEvents(poison).ok());
  ASSERT_TRUE(WaitFor([&] { return sink().drops().Total() == poison.size(); }));
  const auto drops = sink().drops().Snapshot();
  EXPECT_EQ(drops.at({DropReason::kRejected, RayEvent::TASK_LIFECYCLE_EVENT}), 2u);
  EXPECT_EQ(drops.at({DropReason::kRejected, RayEvent::TASK_DEFINITION_EVENT}), 1u);
  EXPECT_EQ(server_.RequestCount(), 1u);  // never retried
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kHttp4xx), 1u);
  EXPECT_EQ(counters().retries.load(), 0u);

  const auto later = TaskLifecycleEvents(2, "later");
  ASSERT_TRUE(harness().AddEvents(later).ok());
  ASSERT_TRUE(WaitSent(later.size()));
  EXPECT_EQ(DeliveredIds(server_.Requests(), {0}), IdsOf(later));
}

TEST_F(DeliveryPolicyTest, RedirectIsNotFollowed) {
  server_.Enqueue(
      TestHttpServer::Respond{.status = 308, .headers = {{"Location", server_.Url("/moved")}}});
  ASSERT_NO_FATAL_FAILURE(Start(Sink()));
  const auto events = TaskLifecycleEvents(2, "redirected");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitFor([&] { return sink().drops().Total(DropReason::kRejected) == 2; }));
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kHttp3xx), 1u);
  for (const auto& request : server_.Requests()) EXPECT_EQ(request.target, "/events");
}

TEST_F(DeliveryPolicyTest, PayloadTooLargeSplitsTheBatchInHalves) {
  // Accepts at most two events per request.
  server_.SetResponder([](const ReceivedRequest& request, size_t) -> Behavior {
    return TestHttpServer::Respond{.status = ElementCount(request.body) > 2 ? 413u : 200u};
  });
  SinkConfig config = Sink();
  config.batch.flush_interval = Duration(1000);  // all eight in one batch
  config.batch.max_events = 8;
  ASSERT_NO_FATAL_FAILURE(Start(config));
  const auto events = TaskLifecycleEvents(8, "split");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitSent(events.size()));
  std::vector<ReceivedRequest> delivered;
  for (const auto& request : server_.Requests()) {
    if (ElementCount(request.body) <= 2) delivered.push_back(request);
  }
  // 8 -> 4 + 4 -> 2 + 2 + 2 + 2, in order, each event once.
  EXPECT_EQ(IdsOf(ElementsOf(delivered)), IdsOf(events));
  EXPECT_EQ(server_.RequestCount(), 7u);
  EXPECT_EQ(counters().split_batches.load(), 3u);
  EXPECT_EQ(counters().sent_batches.load(), 4u);
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kHttp413), 3u);
  EXPECT_EQ(sink().drops().Total(), 0u);
}

TEST_F(DeliveryPolicyTest, SingleEventTooLargeForTheEndpointIsDroppedAsTooLarge) {
  const RayEvent huge = TaskLifecycleEvent("huge", 0);
  const std::string huge_id = JsonEventId(huge);
  server_.SetResponder([huge_id](const ReceivedRequest& request, size_t) -> Behavior {
    const bool has_huge = request.body.find(huge_id) != std::string::npos;
    return TestHttpServer::Respond{.status = has_huge ? 413u : 200u};
  });
  SinkConfig config = Sink();
  config.batch.flush_interval = Duration(1000);
  config.batch.max_events = 3;
  ASSERT_NO_FATAL_FAILURE(Start(config));
  const std::vector<RayEvent> events = {TaskLifecycleEvent("small-a", 0), huge,
                                        TaskLifecycleEvent("small-b", 0)};
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(
      WaitFor([&] { return counters().sent_events.load() == 2 && sink().drops().Total() == 1; }));
  EXPECT_EQ(sink().drops().Total(DropReason::kTooLarge), 1u);
  std::vector<ReceivedRequest> delivered;
  for (const auto& request : server_.Requests()) {
    if (request.body.find(huge_id) == std::string::npos) delivered.push_back(request);
  }
  EXPECT_EQ(IdsOf(ElementsOf(delivered)),
            (std::vector<std::string>{JsonEventId(events[0]), JsonEventId(events[2])}));
}

TEST_F(DeliveryPolicyTest, HangingEndpointTimesOutAndIsRetried) {
  server_.Enqueue(TestHttpServer::Hang{});
  SinkConfig config = Sink();
  config.request_timeout = Duration(300);
  ASSERT_NO_FATAL_FAILURE(Start(config));
  const auto events = TaskLifecycleEvents(3, "hang");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitSent(events.size()));
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kTimeout), 1u);
  // The hung request may have been processed by the collector: the one case
  // where a duplicate is possible.
  EXPECT_EQ(DeliveredIds(server_.Requests(), {0}), IdsOf(events));
}

TEST_F(DeliveryPolicyTest, ClosingMidResponseIsRetried) {
  server_.Enqueue(TestHttpServer::RawResponse{
      .bytes = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part"});
  ASSERT_NO_FATAL_FAILURE(Start(Sink()));
  const auto events = TaskLifecycleEvents(3, "cut");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitSent(events.size()));
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kConnection), 1u);
  EXPECT_EQ(DeliveredIds(server_.Requests(), {0}), IdsOf(events));
}

TEST_F(DeliveryPolicyTest, DrippingEndpointTimesOut) {
  server_.Enqueue(TestHttpServer::Drip{.bytes = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                                       .interval = milliseconds(100)});
  SinkConfig config = Sink();
  config.request_timeout = Duration(500);
  ASSERT_NO_FATAL_FAILURE(Start(config));
  const auto events = TaskLifecycleEvents(3, "drip");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitSent(events.size()));
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kTimeout), 1u);
  EXPECT_EQ(DeliveredIds(server_.Requests(), {0}), IdsOf(events));
}

TEST_F(DeliveryPolicyTest, RayCompatRetriesClientErrorsAndTakesRedirectsAsSuccess) {
  server_.Enqueue(TestHttpServer::Respond{.status = 400});
  server_.Enqueue(TestHttpServer::Respond{.status = 501});
  server_.Enqueue(TestHttpServer::Respond{.status = 302});
  SinkConfig config = Sink();
  config.retry_policy = RetryPolicy::kRayCompat;
  ASSERT_NO_FATAL_FAILURE(Start(config));
  const auto events = TaskLifecycleEvents(2, "ray");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitSent(events.size()));
  EXPECT_EQ(server_.RequestCount(), 3u);  // the 302 counted as delivered
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kHttp4xx), 1u);
  EXPECT_EQ(sink().request_stats().Failures(FailureReason::kHttp501), 1u);
  EXPECT_EQ(sink().drops().Total(), 0u);
}

TEST_F(DeliveryPolicyTest, MaxElapsedDropsTheBatchAsRetriesExhausted) {
  server_.SetDefaultBehavior(TestHttpServer::Respond{.status = 503});
  SinkConfig config = Sink();
  config.retry.max_elapsed = Duration(200);
  ASSERT_NO_FATAL_FAILURE(Start(config));
  const auto events = TaskLifecycleEvents(4, "elapsed");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitFor([&] { return sink().drops().Total() == events.size(); }));
  EXPECT_EQ(sink().drops().Total(DropReason::kRetriesExhausted), events.size());
  EXPECT_GE(server_.RequestCount(), 2u);
  const auto requests = server_.Requests();
  // The limit counts from before the first attempt; arrivals come a little later.
  EXPECT_GE(Gap(requests.front(), requests.back()), milliseconds(150));
  EXPECT_EQ(counters().sent_events.load(), 0u);
}

TEST_F(DeliveryPolicyTest, BatchesBackingOffHoldTheirInFlightSlots) {
  server_.SetDefaultBehavior(TestHttpServer::Respond{.status = 503});
  SinkConfig config = Sink();
  config.max_in_flight = 3;
  config.batch.max_events = 1;
  config.retry.initial_backoff = Duration(60'000);  // every batch waits out a long backoff
  config.retry.max_backoff = Duration(60'000);
  config.retry.jitter_ratio = 0.0;
  ASSERT_NO_FATAL_FAILURE(Start(config));
  const auto events = TaskLifecycleEvents(5, "slots");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  // Three batches went out concurrently, each on its own connection...
  ASSERT_TRUE(server_.WaitForRequests(3, kWaitTimeout));
  ASSERT_TRUE(WaitFor([&] { return counters().retries.load() == 3; }));
  EXPECT_EQ(counters().in_flight_batches.load(), 3u);
  EXPECT_EQ(server_.ConnectionCount(), 3u);
  // ...and while they back off the sink reads nothing more: the other two
  // events are still in the buffer, nothing was copied out for them.
  EXPECT_EQ(harness().daemon().buffer_snapshot().held_events, 2u);
  EXPECT_EQ(server_.RequestCount(), 3u);
}

TEST_F(DeliveryPolicyTest, MaxEventsPerSecondSpreadsABacklog) {
  SinkConfig config = Sink();
  config.max_events_per_second = 100;  // burst: one second's worth, 100 events
  config.batch.max_events = 20;
  ASSERT_NO_FATAL_FAILURE(Start(config));
  const auto events = TaskLifecycleEvents(200, "rate");
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitSent(events.size()));
  const auto requests = server_.Requests();
  EXPECT_EQ(IdsOf(ElementsOf(requests)), IdsOf(events));
  // 100 beyond the burst at 100/s: at least a second (never faster).
  EXPECT_GE(Gap(requests.front(), requests.back()), milliseconds(900));
}

}  // namespace
}  // namespace rayagg::test
