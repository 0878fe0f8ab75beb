// Sink::Reconfigure (what SIGHUP does to each sink) racing with ingest and
// delivery, against in-memory transports: nothing is lost or sent twice, and
// the new settings apply. The daemon-level reload tests need gRPC; this one
// runs under ThreadSanitizer too (label tsan), so the hand-over between the
// reloading thread, ingest threads and the sink's strand is checked there.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "buffer/event_log.h"
#include "rayagg/event_json_encoder.h"
#include "rayagg/mutex.h"
#include "sinks/sink.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/condition_wait.h"
#include "support/manual_clock.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;
using namespace std::chrono_literals;

constexpr auto kWaitTimeout = test::kConditionTimeout;

// What every transport of the test received: event message -> deliveries.
class Deliveries {
 public:
  void Record(std::string_view body, int transport) {
    MutexLock lock(mutex_);
    for (const auto& element : nlohmann::json::parse(body)) {
      ++count_[element["message"].get<std::string>()];
      last_transport_ = transport;
      ++total_;
    }
    changed_.SignalAll();
  }
  bool WaitForTotal(size_t n) {
    MutexLock lock(mutex_);
    return changed_.WaitFor(mutex_, kWaitTimeout,
                            [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return total_ >= n; });
  }
  std::map<std::string, int> Counts() const {
    MutexLock lock(mutex_);
    return count_;
  }
  int LastTransport() const {
    MutexLock lock(mutex_);
    return last_transport_;
  }

 private:
  mutable Mutex mutex_;
  CondVar changed_;
  std::map<std::string, int> count_ ABSL_GUARDED_BY(mutex_);
  size_t total_ ABSL_GUARDED_BY(mutex_) = 0;
  int last_transport_ ABSL_GUARDED_BY(mutex_) = -1;
};

class RecordingTransport final : public BatchTransport {
 public:
  RecordingTransport(Deliveries& deliveries, int id) : deliveries_(deliveries), id_(id) {}
  asio::awaitable<DeliveryOutcome> Deliver(std::string_view body) override {
    deliveries_.Record(body, id_);
    co_return DeliveryOutcome{.delivered = true};
  }
  std::string Describe() const override { return "memory " + std::to_string(id_); }

 private:
  Deliveries& deliveries_;
  const int id_;
};

class SinkReloadTest : public ::testing::Test {
 protected:
  SinkReloadTest()
      : logger_("test", std::make_shared<spdlog::sinks::null_sink_mt>()),
        log_(EventLog::Limits{100000, 1 << 30}) {}

  ~SinkReloadTest() override {
    if (sink_) {
      sink_->Drain(clock_.Now() + 5s);
      sink_->WaitFinished(kWaitTimeout);
    }
    work_.reset();
    io_.stop();
    for (auto& thread : threads_) thread.join();
  }

  static SinkConfig Config() {
    SinkConfig config;
    config.name = "reloaded";
    config.event_types = EventTypeFilter::All();
    config.batch.max_events = 7;
    config.batch.flush_interval = 0ms;  // the manual clock stands still
    return config;
  }

  std::vector<std::unique_ptr<BatchTransport>> Transports(int id) {
    std::vector<std::unique_ptr<BatchTransport>> transports;
    const size_t slots = sink_ ? sink_->slot_count() : 2;
    for (size_t i = 0; i < slots; ++i) {
      transports.push_back(std::make_unique<RecordingTransport>(deliveries_, id));
    }
    return transports;
  }

  void StartSink(SinkConfig config) {
    config.max_in_flight = 2;
    sink_ = std::make_unique<Sink>(asio::make_strand(io_), std::move(config), log_, Transports(0),
                                   MakeProtobufJsonEncoder({}), logger_, clock_);
    sink_->Start();
    // Two io threads: the sink's strand hops between them.
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }

  // Applied on the sink's strand; polled, as nothing signals it.
  bool WaitForReconfigurations(uint64_t n) {
    return test::WaitFor([&] { return sink_->reconfigurations() >= n; });
  }

  void Append(RayEvent::EventType type, const std::string& prefix, int first, int count) {
    std::vector<std::string> payloads;
    for (int i = first; i < first + count; ++i) {
      RayEvent event;
      event.set_event_id(prefix + std::to_string(i));
      event.set_event_type(type);
      event.set_message(prefix + std::to_string(i));
      payloads.push_back(event.SerializeAsString());
    }
    std::vector<IncomingEvent> events;
    for (const auto& payload : payloads) events.push_back(IncomingEvent{payload, type, 0, 0});
    ASSERT_TRUE(log_.Append(events).ok());
  }

  test::ManualClock clock_;  // outlives the io_context and the sink
  spdlog::logger logger_;
  EventLog log_;
  Deliveries deliveries_;
  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      io_.get_executor()};
  std::unique_ptr<Sink> sink_;
  std::vector<std::thread> threads_;
};

TEST_F(SinkReloadTest, ReconfiguringWhileEventsArriveLosesAndRepeatsNothing) {
  StartSink(Config());
  constexpr int kRequests = 40;
  constexpr int kPerRequest = 10;
  constexpr int kReloads = 5;
  {
    std::jthread ingest([this] {
      for (int r = 0; r < kRequests; ++r) {
        Append(RayEvent::TASK_DEFINITION_EVENT, "e", r * kPerRequest, kPerRequest);
      }
    });
    for (int id = 1; id <= kReloads; ++id) {
      SinkConfig config = Config();
      config.batch.max_events = 3 + static_cast<size_t>(id);
      sink_->Reconfigure(std::move(config), Transports(id), MakeProtobufJsonEncoder({}));
      // One at a time: a reload posted before the last one applied replaces it.
      ASSERT_TRUE(WaitForReconfigurations(static_cast<uint64_t>(id)));
    }
  }
  ASSERT_TRUE(deliveries_.WaitForTotal(kRequests * kPerRequest));
  sink_->Drain(clock_.Now() + 5s);
  ASSERT_TRUE(sink_->WaitFinished(kWaitTimeout));
  const auto counts = deliveries_.Counts();
  EXPECT_EQ(counts.size(), size_t{kRequests * kPerRequest});
  for (const auto& [message, deliveries] : counts) EXPECT_EQ(deliveries, 1) << message;
  EXPECT_EQ(sink_->reconfigurations(), uint64_t{kReloads});
  EXPECT_EQ(sink_->drops().Total(), 0u);
}

TEST_F(SinkReloadTest, EventsAfterTheReloadUseTheNewTransportAndFilter) {
  StartSink(Config());
  SinkConfig config = Config();
  config.event_types = EventTypeFilter::Of({RayEvent::NODE_DEFINITION_EVENT});
  sink_->Reconfigure(std::move(config), Transports(1), MakeProtobufJsonEncoder({}));
  ASSERT_TRUE(WaitForReconfigurations(1));
  Append(RayEvent::TASK_DEFINITION_EVENT, "filtered", 0, 3);
  Append(RayEvent::NODE_DEFINITION_EVENT, "node", 0, 2);
  ASSERT_TRUE(deliveries_.WaitForTotal(2));
  sink_->Drain(clock_.Now() + 5s);
  ASSERT_TRUE(sink_->WaitFinished(kWaitTimeout));
  const auto counts = deliveries_.Counts();
  EXPECT_EQ(counts, (std::map<std::string, int>{{"node0", 1}, {"node1", 1}}));
  EXPECT_EQ(deliveries_.LastTransport(), 1);
}

}  // namespace
}  // namespace rayagg
