// The sink releases what it read only once it is delivered or dropped: the
// cursor's released position (rayagg/event_reader.h) follows deliveries,
// drops and the drain, and with two batches in flight it passes the first
// only when the first is done, whatever order they finish in.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <future>
#include <string>
#include <vector>

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

// Answers every attempt with `outcome`; optionally holds each answer until
// Open() (a gate on the sink's strand: cancelling a timer, not waiting one
// out).
class ScriptedTransport final : public BatchTransport {
 public:
  explicit ScriptedTransport(DeliveryOutcome outcome, bool gated = false)
      : outcome_(std::move(outcome)), gated_(gated) {}

  asio::awaitable<DeliveryOutcome> Deliver(std::string_view) override {
    if (gated_ && !opened_) {
      asio::steady_timer gate(co_await asio::this_coro::executor);
      gate.expires_at(asio::steady_timer::time_point::max());
      gate_ = &gate;
      boost::system::error_code ignored;
      co_await gate.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      gate_ = nullptr;
    }
    {
      MutexLock lock(mutex_);
      ++answered_;
    }
    changed_.SignalAll();
    co_return outcome_;
  }
  std::string Describe() const override { return "scripted"; }

  // Lets held and later attempts answer. Call on the sink's strand.
  void Open() {
    opened_ = true;
    if (gate_ != nullptr) gate_->cancel();
  }
  bool WaitForAnswers(int n, std::chrono::milliseconds timeout) {
    MutexLock lock(mutex_);
    return changed_.WaitFor(mutex_, timeout,
                            [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return answered_ >= n; });
  }

 private:
  const DeliveryOutcome outcome_;
  const bool gated_;
  // Strand-confined.
  bool opened_ = false;
  asio::steady_timer* gate_ = nullptr;
  Mutex mutex_;
  CondVar changed_;
  int answered_ ABSL_GUARDED_BY(mutex_) = 0;
};

DeliveryOutcome Answer(unsigned status) {
  return DeliveryOutcome{.delivered = status < 300, .failure = "status", .status = status};
}

class SinkReleaseTest : public ::testing::Test {
 protected:
  SinkReleaseTest()
      : logger_("test", std::make_shared<spdlog::sinks::null_sink_mt>()),
        log_(EventLog::Limits{100000, 1 << 30}) {}

  ~SinkReleaseTest() override {
    if (sink_) {
      // A test that failed before opening its gate must not leave a
      // delivery held: the sink could never finish.
      if (io_thread_) {
        OnStrand([this] {
          for (ScriptedTransport* gated : gated_) gated->Open();
        });
      }
      sink_->Drain(clock_.Now());
      sink_->WaitFinished(60s);
    }
  }

  static SinkConfig Config(uint32_t max_in_flight = 1) {
    SinkConfig config;
    config.name = "test";
    config.event_types = EventTypeFilter::All();
    config.batch.max_events = 10;
    config.batch.flush_interval = 1h;  // full batches only: no time in play
    config.max_in_flight = max_in_flight;
    config.retry.initial_backoff = 1ms;
    config.retry.max_backoff = 1ms;
    return config;
  }

  // The sink's cursor starts at the newest end: start it before appending.
  void Start(SinkConfig config, std::vector<std::unique_ptr<BatchTransport>> transports) {
    sink_ = std::make_unique<Sink>(asio::make_strand(io_), std::move(config), log_,
                                   std::move(transports), MakeFastJsonEncoder({}), logger_, clock_);
    sink_->Start();
    io_thread_.emplace(io_);
  }

  void Append(int count) {
    std::vector<std::string> payloads;
    for (int i = 0; i < count; ++i) {
      RayEvent event;
      event.set_event_id("event-" + std::to_string(appended_ + i));
      event.set_event_type(RayEvent::TASK_DEFINITION_EVENT);
      payloads.push_back(event.SerializeAsString());
    }
    std::vector<IncomingEvent> events;
    for (const auto& payload : payloads) {
      events.push_back(IncomingEvent{payload, RayEvent::TASK_DEFINITION_EVENT, 0, 0});
    }
    ASSERT_TRUE(log_.Append(events).ok());
    appended_ += count;
  }

  // Runs `work` on the sink's strand and waits for it: everything the strand
  // was doing when this was called (a delivery's release included) is done.
  void OnStrand(std::function<void()> work = [] {}) {
    std::promise<void> done;
    asio::post(sink_->executor(), [&] {
      work();
      done.set_value();
    });
    ASSERT_EQ(done.get_future().wait_for(60s), std::future_status::ready);
  }

  uint64_t Released() { return log_.ReleasedPosition(sink_->cursor()); }

  test::ManualClock clock_;  // outlives the io_context and the sink
  spdlog::logger logger_;
  EventLog log_;
  asio::io_context io_;
  std::unique_ptr<Sink> sink_;
  std::optional<test::IoThread> io_thread_;
  std::vector<ScriptedTransport*> gated_;  // opened at teardown
  int appended_ = 0;
};

TEST_F(SinkReleaseTest, DeliveredBatchesReleaseTheirRangeUpToTheEnd) {
  auto transport = std::make_unique<ScriptedTransport>(Answer(200));
  ScriptedTransport& answers = *transport;
  std::vector<std::unique_ptr<BatchTransport>> transports;
  transports.push_back(std::move(transport));
  Start(Config(), std::move(transports));
  Append(30);
  ASSERT_TRUE(answers.WaitForAnswers(3, 60s));
  OnStrand();
  EXPECT_EQ(sink_->counters().sent_events.load(), 30u);
  EXPECT_EQ(Released(), 30u);
}

TEST_F(SinkReleaseTest, RejectedBatchesAreReleasedToo) {
  auto transport = std::make_unique<ScriptedTransport>(Answer(400));
  ScriptedTransport& answers = *transport;
  std::vector<std::unique_ptr<BatchTransport>> transports;
  transports.push_back(std::move(transport));
  Start(Config(), std::move(transports));
  Append(20);
  ASSERT_TRUE(answers.WaitForAnswers(2, 60s));
  OnStrand();
  EXPECT_EQ(sink_->drops().Total(DropReason::kRejected), 20u);
  EXPECT_EQ(Released(), 20u);
}

// Two slots: the first batch is held, the second delivered. The released
// position stays before the first until it is delivered too.
TEST_F(SinkReleaseTest, WithTwoInFlightThePositionWaitsForTheEarlierBatch) {
  auto held = std::make_unique<ScriptedTransport>(Answer(200), /*gated=*/true);
  auto prompt = std::make_unique<ScriptedTransport>(Answer(200));
  ScriptedTransport& first = *held;
  ScriptedTransport& second = *prompt;
  gated_.push_back(&first);
  std::vector<std::unique_ptr<BatchTransport>> transports;
  transports.push_back(std::move(held));    // slot 0: batch [0, 10)
  transports.push_back(std::move(prompt));  // slot 1: batch [10, 20)
  Start(Config(/*max_in_flight=*/2), std::move(transports));
  Append(20);

  ASSERT_TRUE(second.WaitForAnswers(1, 60s));
  OnStrand();
  EXPECT_EQ(sink_->counters().sent_batches.load(), 1u);
  EXPECT_EQ(Released(), 0u);

  OnStrand([&] { first.Open(); });
  ASSERT_TRUE(first.WaitForAnswers(1, 60s));
  OnStrand();
  EXPECT_EQ(sink_->counters().sent_batches.load(), 2u);
  EXPECT_EQ(Released(), 20u);
}

// At the drain deadline the batch still retrying and everything unread are
// dropped as `shutdown` and released.
TEST_F(SinkReleaseTest, ShutdownDropsAtTheDrainDeadlineAreReleased) {
  auto transport = std::make_unique<ScriptedTransport>(Answer(503));
  ScriptedTransport& answers = *transport;
  std::vector<std::unique_ptr<BatchTransport>> transports;
  transports.push_back(std::move(transport));
  Start(Config(), std::move(transports));
  Append(25);
  ASSERT_TRUE(answers.WaitForAnswers(1, 60s));
  sink_->Drain(clock_.Now());  // already past
  ASSERT_TRUE(sink_->WaitFinished(60s));
  EXPECT_EQ(sink_->drops().Total(DropReason::kShutdown), 25u);
  EXPECT_EQ(Released(), 25u);
}

}  // namespace
}  // namespace rayagg
