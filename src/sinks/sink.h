// One configured destination: its own cursor on the event log, batcher, JSON
// encoder, transport and retry state, running as one coroutine on its own
// strand, so a slow or dead destination never holds up another.
//
// The loop: wait for events -> collect a batch (max events, max JSON bytes,
// or flush_interval after its first event) -> encode -> deliver, retrying the
// same batch with backoff until it succeeds (or the retry limit / drain
// deadline) -> repeat. While a batch is retried the sink reads nothing more;
// the log keeps accepting and its overflow policy applies (Ray's behaviour).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "buffer/event_log.h"
#include "common/asio.h"
#include "json/event_json_encoder.h"
#include "rayagg/config.h"
#include "rayagg/drop_counters.h"
#include "sinks/backoff.h"
#include "sinks/batch_transport.h"
#include "ops/log_rate_limiter.h"
#include "sinks/sink_counters.h"
#include "sinks/sink_request_stats.h"

namespace spdlog {
class logger;
}

namespace rayagg {

class Sink {
 public:
  using Clock = std::chrono::steady_clock;

  // Registers the sink's cursor with `log` immediately, so it sees every event
  // appended after construction. `executor` should be a strand of its own.
  Sink(asio::any_io_executor executor, SinkConfig config, EventLog& log,
       std::unique_ptr<BatchTransport> transport, std::unique_ptr<EventJsonEncoder> encoder,
       spdlog::logger& logger);
  ~Sink();
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  // Starts the delivery coroutine. An exception escaping it is a bug: it is
  // rethrown from the io_context's run() so the process fails loudly.
  void Start();

  // Deliver what is buffered, then stop; give up (counting drops with reason
  // `shutdown`) at `deadline`. Thread-safe.
  void Drain(Clock::time_point deadline);

  // Waits until the loop has finished after Drain(), or `timeout` passes.
  bool WaitFinished(std::chrono::milliseconds timeout);

  // Replaces the settings (URL and transport, headers, token file, TLS, event
  // type filter, batching, retry, JSON keys) at the next point where no
  // delivery attempt is in flight: the cursor keeps its position and staged
  // events stay, so nothing buffered is lost. A backoff wait is cut short so
  // a fixed URL is tried at once. The name must not change. Thread-safe.
  void Reconfigure(SinkConfig config, std::unique_ptr<BatchTransport> transport,
                   std::unique_ptr<EventJsonEncoder> encoder);
  // Reconfigurations applied so far (tests wait on it).
  uint64_t reconfigurations() const { return reconfigurations_.load(); }
  const asio::any_io_executor& executor() const { return executor_; }

  const std::string& name() const { return name_; }
  const SinkCounters& counters() const { return counters_; }
  const DropCounters& drops() const { return drops_; }
  const SinkRequestStats& request_stats() const { return request_stats_; }

 private:
  asio::awaitable<void> Run();
  // Suspends until events may be available, `until` passes, or Drain().
  asio::awaitable<void> WaitForEvents(Clock::time_point until);
  // Tops the staging batch up to batch.max_events from the log.
  void Refill();
  // Encodes staged events into body_, within batch.max_bytes. Returns how
  // many events the body holds and records their types.
  size_t EncodeBatch();
  asio::awaitable<void> DeliverWithRetry(size_t event_count);
  // Counts everything this sink still holds or has unread as dropped.
  void DropUndelivered(DropReason reason);
  size_t StagedCount() const { return staged_.size() - staged_next_; }
  void OnEventsAvailable();
  bool DrainExpired() const;
  void MarkFinished();
  // Swaps in settings from Reconfigure(); on the strand, between attempts.
  void ApplyPendingSettings();

  struct PendingSettings {
    SinkConfig config;
    std::unique_ptr<BatchTransport> transport;
    std::unique_ptr<EventJsonEncoder> encoder;
  };
  std::optional<PendingSettings> pending_settings_;  // strand-confined
  std::atomic<uint64_t> reconfigurations_{0};

  asio::any_io_executor executor_;
  const std::string name_;  // fixed for life: metrics read it from other threads
  SinkConfig config_;       // strand-confined: replaced by ApplyPendingSettings()
  EventLog& log_;
  std::unique_ptr<BatchTransport> transport_;
  std::unique_ptr<EventJsonEncoder> encoder_;
  spdlog::logger& logger_;
  Backoff backoff_;
  std::mt19937_64 random_;

  SinkCounters counters_;
  DropCounters drops_;
  SinkRequestStats request_stats_;
  // Hot-path warnings: at most one line per interval, with a suppressed count.
  LogRateLimiter failure_log_limiter_{std::chrono::seconds(10)};
  LogRateLimiter drop_log_limiter_{std::chrono::seconds(10)};
  EventLog::CursorId cursor_;

  // Strand-confined state.
  asio::steady_timer wake_timer_;   // idle and batch-window waits; new events cancel it
  asio::steady_timer retry_timer_;  // backoff waits; only Drain() cuts them short
  bool full_by_bytes_ = false;      // the last body stopped at batch.max_bytes
  EventBatch staged_;          // read from the log, not yet delivered
  size_t staged_next_ = 0;     // first staged event not yet in a body
  std::string body_;
  // What body_ stands for, for drop accounting: each event's type and how
  // many received events it carries (more than one once coalesced), since
  // drops count received events.
  struct BodyEvent {
    int32_t event_type;
    uint32_t received;
  };
  std::vector<BodyEvent> body_events_;
  void DropBody(DropReason reason);
  bool draining_ = false;
  Clock::time_point drain_deadline_ = Clock::time_point::max();

  std::atomic<bool> wake_pending_{false};
  std::mutex finished_mutex_;
  std::condition_variable finished_cv_;
  bool finished_ = false;  // guarded by finished_mutex_
};

}  // namespace rayagg
