// The sink's batcher and retry loop against an in-memory transport: batch
// limits, the flush interval, byte limits, filtering and the retry limit.
// Time is a ManualClock: batch windows and backoffs are zero unless a test
// is about them, and then the test advances the clock. Real HTTP delivery is
// covered by tests/integration; timing rules by sink_timing_test.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <deque>
#include <nlohmann/json.hpp>

#include "absl/base/thread_annotations.h"
#include "buffer/event_log.h"
#include "rayagg/event_json_encoder.h"
#include "rayagg/mutex.h"
#include "sinks/sink.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/io_thread.h"
#include "support/manual_clock.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;
using namespace std::chrono_literals;

// Records every body; fails the first `failures` attempts.
class RecordingTransport final : public BatchTransport {
 public:
  explicit RecordingTransport(int failures = 0) : failures_left_(failures) {}

  asio::awaitable<DeliveryOutcome> Deliver(std::string_view body) override {
    MutexLock lock(mutex_);
    ++attempts_;
    changed_.SignalAll();
    if (failures_left_ > 0) {
      --failures_left_;
      co_return DeliveryOutcome{false, "scripted failure"};
    }
    bodies_.emplace_back(body);
    co_return DeliveryOutcome{true, {}};
  }
  std::string Describe() const override { return "memory"; }

  bool WaitForAttempts(int n, std::chrono::milliseconds timeout = test::ManualClock::kRealTimeout) {
    MutexLock lock(mutex_);
    return changed_.WaitFor(mutex_, timeout,
                            [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return attempts_ >= n; });
  }
  bool WaitForEvents(size_t n,
                     std::chrono::milliseconds timeout = test::ManualClock::kRealTimeout) {
    MutexLock lock(mutex_);
    return changed_.WaitFor(mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return EventCountLocked() >= n;
    });
  }
  std::vector<std::string> Bodies() {
    MutexLock lock(mutex_);
    return bodies_;
  }

 private:
  size_t EventCountLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    size_t count = 0;
    for (const auto& body : bodies_) count += nlohmann::json::parse(body).size();
    return count;
  }
  Mutex mutex_;
  CondVar changed_;
  int failures_left_ ABSL_GUARDED_BY(mutex_);
  int attempts_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<std::string> bodies_ ABSL_GUARDED_BY(mutex_);
};

std::string SerializedEvent(RayEvent::EventType type, int index) {
  RayEvent event;
  event.set_event_id("event-" + std::to_string(index));
  event.set_event_type(type);
  event.set_message("m" + std::to_string(index));
  return event.SerializeAsString();
}

class SinkBatchingTest : public ::testing::Test {
 protected:
  SinkBatchingTest()
      : logger_("test", std::make_shared<spdlog::sinks::null_sink_mt>()),
        log_(EventLog::Limits{100000, 1 << 30}) {}

  ~SinkBatchingTest() override {
    if (sink_) {
      sink_->Drain(clock_.Now() + 5s);
      sink_->WaitFinished(test::ManualClock::kRealTimeout);
    }
  }

  RecordingTransport& StartSink(SinkConfig config, int failures = 0) {
    auto transport = std::make_unique<RecordingTransport>(failures);
    transport_ = transport.get();
    sink_ =
        std::make_unique<Sink>(asio::make_strand(io_), std::move(config), log_,
                               std::move(transport), MakeProtobufJsonEncoder({}), logger_, clock_);
    sink_->Start();
    io_thread_.emplace(io_);
    return *transport_;
  }

  void Append(RayEvent::EventType type, int first, int count) {
    std::vector<std::string> payloads;
    for (int i = first; i < first + count; ++i) payloads.push_back(SerializedEvent(type, i));
    std::vector<IncomingEvent> events;
    for (const auto& payload : payloads) events.push_back(IncomingEvent{payload, type, 0, 0});
    ASSERT_TRUE(log_.Append(events).ok());
  }

  static SinkConfig Config() {
    SinkConfig config;
    config.name = "test";
    config.event_types = EventTypeFilter::All();
    // The manual clock stands still: a partial batch goes at once, a retry
    // follows at once.
    config.batch.flush_interval = 0ms;
    config.retry.initial_backoff = 0ms;
    config.retry.max_backoff = 0ms;
    return config;
  }

  test::ManualClock clock_;  // outlives the io_context and the sink
  spdlog::logger logger_;
  EventLog log_;
  asio::io_context io_;
  std::unique_ptr<Sink> sink_;
  RecordingTransport* transport_ = nullptr;
  std::optional<test::IoThread> io_thread_;  // stops and joins before sink_ goes
};

TEST_F(SinkBatchingTest, FullBatchesGoOutAtMaxEventsInOrder) {
  SinkConfig config = Config();
  config.batch.max_events = 10;
  config.batch.flush_interval = 60s;  // only size can trigger these sends
  auto& transport = StartSink(config);
  Append(RayEvent::TASK_DEFINITION_EVENT, 0, 30);
  ASSERT_TRUE(transport.WaitForEvents(30));
  int expected = 0;
  for (const auto& body : transport.Bodies()) {
    auto array = nlohmann::json::parse(body);
    EXPECT_EQ(array.size(), 10u);
    for (const auto& element : array) {
      EXPECT_EQ(element["message"], "m" + std::to_string(expected++));
    }
  }
}

TEST_F(SinkBatchingTest, PartialBatchGoesOutAfterFlushInterval) {
  SinkConfig config = Config();
  config.batch.flush_interval = 50ms;
  auto& transport = StartSink(config);
  const SteadyTime start = clock_.Now();
  Append(RayEvent::TASK_DEFINITION_EVENT, 0, 3);
  // The sink now waits for the batch window to close, and sends nothing
  // until the clock gets there.
  ASSERT_EQ(clock_.WaitForNextDeadline(), start + 50ms);
  clock_.Advance(50ms - 1ns);
  EXPECT_EQ(clock_.WaitForNextDeadline(), start + 50ms);
  EXPECT_TRUE(transport.Bodies().empty());
  clock_.Advance(1ns);
  ASSERT_TRUE(transport.WaitForEvents(3));
  ASSERT_EQ(transport.Bodies().size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(transport.Bodies()[0]).size(), 3u);
}

TEST_F(SinkBatchingTest, BodiesStayWithinMaxBytes) {
  SinkConfig config = Config();
  config.batch.max_bytes = 600;
  auto& transport = StartSink(config);
  Append(RayEvent::TASK_DEFINITION_EVENT, 0, 40);
  ASSERT_TRUE(transport.WaitForEvents(40));
  EXPECT_GT(transport.Bodies().size(), 1u);
  for (const auto& body : transport.Bodies()) {
    EXPECT_LE(body.size(), 600u);
    EXPECT_GT(nlohmann::json::parse(body).size(), 0u);  // never an empty array
  }
}

TEST_F(SinkBatchingTest, EventLargerThanMaxBytesIsDroppedAndCounted) {
  SinkConfig config = Config();
  config.batch.max_bytes = 1024;
  auto& transport = StartSink(config);
  RayEvent big;
  big.set_event_type(RayEvent::TASK_DEFINITION_EVENT);
  big.set_message(std::string(4096, 'x'));
  const std::string big_bytes = big.SerializeAsString();
  const std::string small_bytes = SerializedEvent(RayEvent::TASK_DEFINITION_EVENT, 1);
  std::vector<IncomingEvent> events{{big_bytes, RayEvent::TASK_DEFINITION_EVENT, 0, 0},
                                    {small_bytes, RayEvent::TASK_DEFINITION_EVENT, 0, 0}};
  ASSERT_TRUE(log_.Append(events).ok());
  ASSERT_TRUE(transport.WaitForEvents(1));
  EXPECT_EQ(sink_->drops().Total(DropReason::kTooLarge), 1u);
}

TEST_F(SinkBatchingTest, FilteredTypesNeverReachTheTransport) {
  SinkConfig config = Config();
  config.event_types = EventTypeFilter::Of({RayEvent::TASK_LIFECYCLE_EVENT});
  auto& transport = StartSink(config);
  Append(RayEvent::TASK_PROFILE_EVENT, 0, 5);
  Append(RayEvent::TASK_LIFECYCLE_EVENT, 5, 2);
  ASSERT_TRUE(transport.WaitForEvents(2));
  for (const auto& body : transport.Bodies()) {
    for (const auto& element : nlohmann::json::parse(body)) {
      EXPECT_EQ(element["eventType"], "TASK_LIFECYCLE_EVENT");
    }
  }
}

TEST_F(SinkBatchingTest, RetriesTheSameBatchUntilItIsDelivered) {
  SinkConfig config = Config();
  auto& transport = StartSink(config, /*failures=*/3);
  Append(RayEvent::TASK_DEFINITION_EVENT, 0, 5);
  ASSERT_TRUE(transport.WaitForEvents(5));
  // The transport sees the body before the sink counts it: finish the sink
  // so its counters are final.
  sink_->Drain(clock_.Now() + 5s);
  ASSERT_TRUE(sink_->WaitFinished(test::ManualClock::kRealTimeout));
  EXPECT_EQ(sink_->counters().failed_attempts.load(), 3u);
  EXPECT_EQ(sink_->counters().retries.load(), 3u);
  EXPECT_EQ(sink_->counters().sent_events.load(), 5u);
  EXPECT_EQ(sink_->counters().consecutive_failures.load(), 0u);
}

TEST_F(SinkBatchingTest, RetryLimitDropsTheBatchAndMovesOn) {
  SinkConfig config = Config();
  config.retry.max_retries = 1;
  auto& transport = StartSink(config, /*failures=*/2);
  Append(RayEvent::TASK_DEFINITION_EVENT, 0, 4);
  ASSERT_TRUE(transport.WaitForAttempts(2));
  Append(RayEvent::TASK_DEFINITION_EVENT, 4, 1);
  ASSERT_TRUE(transport.WaitForEvents(1));
  EXPECT_EQ(sink_->drops().Total(DropReason::kRetriesExhausted), 4u);
  EXPECT_EQ(nlohmann::json::parse(transport.Bodies()[0])[0]["message"], "m4");
}

TEST_F(SinkBatchingTest, DrainFlushesAPartialBatchAtOnce) {
  SinkConfig config = Config();
  config.batch.flush_interval = 60s;
  auto& transport = StartSink(config);
  Append(RayEvent::TASK_DEFINITION_EVENT, 0, 7);
  sink_->Drain(clock_.Now() + 5s);
  ASSERT_TRUE(sink_->WaitFinished(test::ManualClock::kRealTimeout));
  EXPECT_EQ(transport.Bodies().size(), 1u);
  EXPECT_EQ(sink_->counters().sent_events.load(), 7u);
}

}  // namespace
}  // namespace rayagg
