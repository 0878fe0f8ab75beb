// When the sink acts, by its clock: a retry goes out only once the clock has
// passed its backoff, Retry-After is honoured (and capped), max_elapsed and
// the drain deadline give up with the right drop reason, the batch window
// and the rate limit hold a batch until the clock gets there, failure
// warnings are one per 10 s of the clock. A ManualClock and an in-process
// transport: no sockets, no real time, milliseconds.
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <deque>
#include <nlohmann/json.hpp>

#include "absl/base/thread_annotations.h"
#include "buffer/event_log.h"
#include "rayagg/event_json_encoder.h"
#include "rayagg/mutex.h"
#include "sinks/sink.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/condition_wait.h"
#include "support/io_thread.h"
#include "support/manual_clock.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;
using namespace std::chrono_literals;
using test::ManualClock;

DeliveryOutcome Status(unsigned status, std::optional<std::string> retry_after = std::nullopt) {
  return DeliveryOutcome{.failure = "status " + std::to_string(status),
                         .status = status,
                         .retry_after = std::move(retry_after)};
}

// Answers each attempt with the next scripted outcome, then with
// `otherwise`; counts attempts and keeps the bodies it accepted.
class ScriptedTransport final : public BatchTransport {
 public:
  ScriptedTransport(std::deque<DeliveryOutcome> script, DeliveryOutcome otherwise)
      : script_(std::move(script)), otherwise_(std::move(otherwise)) {}

  void Enqueue(DeliveryOutcome outcome) {
    MutexLock lock(mutex_);
    script_.push_back(std::move(outcome));
  }

  asio::awaitable<DeliveryOutcome> Deliver(std::string_view body) override {
    MutexLock lock(mutex_);
    ++attempts_;
    DeliveryOutcome outcome = otherwise_;
    if (!script_.empty()) {
      outcome = std::move(script_.front());
      script_.pop_front();
    }
    if (outcome.status.value_or(0) / 100 == 2) {
      delivered_ += nlohmann::json::parse(body).size();
    }
    changed_.SignalAll();
    co_return outcome;
  }
  std::string Describe() const override { return "scripted"; }

  bool WaitForAttempts(int n) {
    MutexLock lock(mutex_);
    return changed_.WaitFor(mutex_, ManualClock::kRealTimeout,
                            [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return attempts_ >= n; });
  }
  bool WaitForDelivered(size_t n) {
    MutexLock lock(mutex_);
    return changed_.WaitFor(mutex_, ManualClock::kRealTimeout,
                            [&]()
                                ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return delivered_ >= n; });
  }
  int attempts() {
    MutexLock lock(mutex_);
    return attempts_;
  }
  size_t delivered() {
    MutexLock lock(mutex_);
    return delivered_;
  }

 private:
  Mutex mutex_;
  CondVar changed_;
  std::deque<DeliveryOutcome> script_ ABSL_GUARDED_BY(mutex_);
  const DeliveryOutcome otherwise_;
  int attempts_ ABSL_GUARDED_BY(mutex_) = 0;
  size_t delivered_ ABSL_GUARDED_BY(mutex_) = 0;
};

class SinkTimingTest : public ::testing::Test {
 protected:
  SinkTimingTest()
      : log_lines_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(1000)),
        logger_("test", log_lines_),
        log_(EventLog::Limits{100000, 1 << 30}),
        start_(clock_.Now()) {}

  ~SinkTimingTest() override {
    if (sink_) {
      sink_->Drain(clock_.Now());  // give up on whatever is left at once
      sink_->WaitFinished(ManualClock::kRealTimeout);
    }
  }

  // No batch window and a fixed backoff without jitter, so every deadline
  // is exact.
  static SinkConfig Config() {
    SinkConfig config;
    config.name = "timed";
    config.event_types = EventTypeFilter::All();
    config.batch.flush_interval = 0ms;
    config.retry.initial_backoff = 100ms;
    config.retry.max_backoff = 100ms;
    config.retry.jitter_ratio = 0.0;
    return config;
  }

  ScriptedTransport& StartSink(SinkConfig config, std::deque<DeliveryOutcome> script,
                               DeliveryOutcome otherwise = Status(200)) {
    auto transport = std::make_unique<ScriptedTransport>(std::move(script), std::move(otherwise));
    transport_ = transport.get();
    sink_ =
        std::make_unique<Sink>(asio::make_strand(io_), std::move(config), log_,
                               std::move(transport), MakeProtobufJsonEncoder({}), logger_, clock_);
    sink_->Start();
    io_thread_.emplace(io_);
    return *transport_;
  }

  void Append(int first, int count) {
    std::vector<std::string> payloads;
    for (int i = first; i < first + count; ++i) {
      RayEvent event;
      event.set_event_id("event-" + std::to_string(i));
      event.set_event_type(RayEvent::TASK_DEFINITION_EVENT);
      event.set_message("m" + std::to_string(i));
      payloads.push_back(event.SerializeAsString());
    }
    std::vector<IncomingEvent> events;
    for (const auto& payload : payloads) {
      events.push_back(IncomingEvent{payload, RayEvent::TASK_DEFINITION_EVENT, 0, 0});
    }
    ASSERT_TRUE(log_.Append(events).ok());
  }

  // Waits until the sink's loop has ended, so its counters are final.
  void Finish() {
    sink_->Drain(clock_.Now());
    ASSERT_TRUE(sink_->WaitFinished(ManualClock::kRealTimeout));
  }

  // Log lines containing `text`, for the test whose subject is the log's volume.
  size_t CountLogLines(std::string_view text) const {
    size_t count = 0;
    for (const std::string& line : log_lines_->last_formatted()) {
      if (line.find(text) != std::string::npos) ++count;
    }
    return count;
  }

  ManualClock clock_;  // outlives the io_context and the sink
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_lines_;
  spdlog::logger logger_;
  EventLog log_;
  const SteadyTime start_;
  asio::io_context io_;
  std::unique_ptr<Sink> sink_;
  ScriptedTransport* transport_ = nullptr;
  std::optional<test::IoThread> io_thread_;  // stops and joins before sink_ goes
};

TEST_F(SinkTimingTest, ARetryGoesOutOnlyOnceTheClockPassesTheBackoff) {
  auto& transport = StartSink(Config(), {Status(503), Status(503)});
  Append(0, 3);
  ASSERT_TRUE(transport.WaitForAttempts(1));
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 100ms);

  clock_.Advance(100ms - 1ns);
  EXPECT_EQ(clock_.WaitForNextDeadline(), start_ + 100ms);  // still waiting
  EXPECT_EQ(transport.attempts(), 1);

  clock_.Advance(1ns);
  ASSERT_TRUE(transport.WaitForAttempts(2));
  // The second retry's step doubles, capped at max_backoff (100 ms).
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 200ms);
  EXPECT_EQ(transport.attempts(), 2);
  clock_.Advance(100ms);
  ASSERT_TRUE(transport.WaitForDelivered(3));

  Finish();
  EXPECT_EQ(transport.attempts(), 3);
  EXPECT_EQ(sink_->counters().failed_attempts.load(), 2u);
  EXPECT_EQ(sink_->counters().retries.load(), 2u);
  EXPECT_EQ(sink_->counters().sent_events.load(), 3u);
  // Wall time comes from the clock too.
  EXPECT_EQ(sink_->counters().last_success_unix_ms.load(),
            std::chrono::duration_cast<std::chrono::milliseconds>(
                (ManualClock::kDefaultWallStart + 200ms).time_since_epoch())
                .count());
}

TEST_F(SinkTimingTest, RetryAfterInSecondsIsHonouredWhenLongerThanTheBackoff) {
  auto& transport = StartSink(Config(), {Status(503, "30")});
  Append(0, 1);
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 30s);
  clock_.Advance(30s - 1ms);
  EXPECT_EQ(transport.attempts(), 1);
  EXPECT_EQ(clock_.WaitForNextDeadline(), start_ + 30s);
  clock_.Advance(1ms);
  ASSERT_TRUE(transport.WaitForDelivered(1));
}

TEST_F(SinkTimingTest, RetryAfterAsAnHttpDateCountsFromTheClocksWallTime) {
  // The manual clock's wall time starts at 2026-01-01T00:00:00Z (a Thursday).
  auto& transport = StartSink(Config(), {Status(429, "Thu, 01 Jan 2026 00:00:45 GMT")});
  Append(0, 1);
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 45s);
  clock_.Advance(45s);
  ASSERT_TRUE(transport.WaitForDelivered(1));
}

TEST_F(SinkTimingTest, RetryAfterIsCutToMaxRetryAfter) {
  SinkConfig config = Config();
  config.retry.max_retry_after = 60s;
  auto& transport = StartSink(config, {Status(503, "86400")});
  Append(0, 1);
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 60s);
  clock_.Advance(60s);
  ASSERT_TRUE(transport.WaitForDelivered(1));
}

TEST_F(SinkTimingTest, MaxElapsedDropsTheBatchAsRetriesExhaustedAfterALastTryAtTheLimit) {
  SinkConfig config = Config();
  config.retry.initial_backoff = 400ms;
  config.retry.max_backoff = 400ms;
  config.retry.max_elapsed = 1000ms;
  auto& transport = StartSink(config, {}, /*otherwise=*/Status(503));
  Append(0, 4);
  // Attempts at 0, 400 and 800 ms; the next would be at 1200 ms, so the last
  // one happens at the limit instead, and then the batch is dropped.
  for (const auto at : {400ms, 800ms, 1000ms}) {
    ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + at);
    clock_.AdvanceTo(start_ + at);
  }
  ASSERT_TRUE(
      test::WaitFor([&] { return sink_->drops().Total(DropReason::kRetriesExhausted) == 4; }));
  EXPECT_EQ(transport.attempts(), 4);
  EXPECT_EQ(sink_->drops().Total(), 4u);
  EXPECT_EQ(sink_->counters().sent_events.load(), 0u);
}

TEST_F(SinkTimingTest, DrainDeadlineGivesUpWithReasonShutdown) {
  SinkConfig config = Config();
  config.retry.initial_backoff = 10s;
  config.retry.max_backoff = 10s;
  auto& transport = StartSink(config, {}, /*otherwise=*/Status(503));
  Append(0, 3);
  ASSERT_TRUE(transport.WaitForAttempts(1));
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 10s);
  Append(3, 2);  // unread: the only slot is backing off

  // Drain cuts the backoff short for one more attempt, then waits no later
  // than the deadline.
  sink_->Drain(start_ + 2s);
  ASSERT_TRUE(transport.WaitForAttempts(2));
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 2s);
  clock_.Advance(2s);
  ASSERT_TRUE(sink_->WaitFinished(ManualClock::kRealTimeout));
  EXPECT_EQ(transport.attempts(), 2);
  EXPECT_EQ(sink_->drops().Total(DropReason::kShutdown), 5u);
  EXPECT_EQ(sink_->drops().Total(), 5u);
}

TEST_F(SinkTimingTest, TheBatchWindowClosesOnlyOnceTheClockPassesFlushInterval) {
  SinkConfig config = Config();
  config.batch.flush_interval = 100ms;
  auto& transport = StartSink(config, {});
  Append(0, 2);
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 100ms);
  clock_.Advance(60ms);
  // Events arriving while the window is open join the batch.
  Append(2, 3);
  EXPECT_EQ(transport.attempts(), 0);
  // (The sink wakes for them and waits again for the same window.)
  EXPECT_EQ(clock_.WaitForNextDeadline(), start_ + 100ms);
  clock_.Advance(40ms);
  ASSERT_TRUE(transport.WaitForDelivered(5));
  Finish();
  EXPECT_EQ(sink_->counters().sent_batches.load(), 1u);
}

TEST_F(SinkTimingTest, TheRateLimitHoldsTheNextBatchUntilTheClockAllowsIt) {
  SinkConfig config = Config();
  config.batch.max_events = 10;
  config.max_events_per_second = 10;  // a burst of one batch, then one batch a second
  auto& transport = StartSink(config, {});
  Append(0, 20);
  ASSERT_TRUE(transport.WaitForDelivered(10));
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 1s);
  EXPECT_EQ(transport.delivered(), 10u);
  clock_.Advance(1s);
  ASSERT_TRUE(transport.WaitForDelivered(20));
}

TEST_F(SinkTimingTest, ARateWaitThatBeginsWhileDrainingEndsAtTheDrainDeadline) {
  SinkConfig config = Config();
  config.batch.max_events = 10;
  config.max_events_per_second = 10;  // the second batch may go out at start_ + 1s
  config.retry.initial_backoff = 10s;
  config.retry.max_backoff = 10s;
  auto& transport = StartSink(config, {Status(503)});
  Append(0, 10);
  ASSERT_TRUE(transport.WaitForAttempts(1));
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 10s);
  Append(10, 10);  // unread: the only slot is backing off

  // The drain cuts the backoff short (delivered), then the second batch's
  // rate wait begins while draining: it ends at the deadline, not at 1 s.
  sink_->Drain(start_ + 500ms);
  ASSERT_TRUE(transport.WaitForDelivered(10));
  ASSERT_EQ(clock_.WaitForNextDeadline(), start_ + 500ms);
  clock_.Advance(500ms);
  ASSERT_TRUE(sink_->WaitFinished(ManualClock::kRealTimeout));
  EXPECT_EQ(transport.attempts(), 2);
  EXPECT_EQ(sink_->drops().Total(DropReason::kShutdown), 10u);
  EXPECT_EQ(sink_->drops().Total(), 10u);
}

TEST_F(SinkTimingTest, FailureWarningsAreOnePerTenSecondsOfTheClock) {
  SinkConfig config = Config();
  config.batch.max_events = 1;
  config.retry.initial_backoff = 0ms;  // retries follow at once: the clock stands still
  config.retry.max_backoff = 0ms;
  std::deque<DeliveryOutcome> script;
  for (int i = 0; i < 10; ++i) {
    script.push_back(Status(503));
    script.push_back(Status(200));
  }
  auto& transport = StartSink(config, std::move(script));
  Append(0, 10);  // ten batches, each failing once
  ASSERT_TRUE(test::WaitFor([&] { return sink_->counters().sent_events.load() == 10; }));

  // Ten seconds later the next failure is shown again, and so is its recovery.
  clock_.Advance(10s);
  transport.Enqueue(Status(503));
  Append(10, 1);
  ASSERT_TRUE(test::WaitFor([&] { return sink_->counters().sent_events.load() == 11; }));
  Finish();  // every line is written
  EXPECT_EQ(sink_->counters().failed_attempts.load(), 11u);
  EXPECT_EQ(CountLogLines("delivery failed, will retry"), 2u);
  EXPECT_EQ(CountLogLines("suppressed_warnings=9"), 1u);  // nothing is lost from the count
  EXPECT_EQ(CountLogLines("sink recovered"), 2u);
}

}  // namespace
}  // namespace rayagg
