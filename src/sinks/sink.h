// One configured destination: its own cursor on the event log, batcher, JSON
// encoder, transports and retry state, running as coroutines on its own
// strand, so a slow or dead destination never holds up another.
//
// The loop: wait for a free in-flight slot (max_in_flight) -> wait for events
// -> collect a batch (max events, max JSON bytes, or flush_interval after its
// first event) -> encode -> book it with the rate limiter -> hand it to a
// delivery coroutine on the slot, which retries it as the DeliveryPlanner
// decides (docs/DELIVERY.md) until it succeeds, is dropped (rejected, too
// large, retry limits) or the drain deadline passes -> repeat. A batch
// waiting out a backoff keeps its slot, so with every slot busy the sink
// reads nothing more; the log keeps accepting and the sink's when_full
// policy applies.
//
// The sink reads through EventReader and stages and cuts batches with its
// Batcher (sinks/batcher.h); it releases a batch's position range when the
// batch (or a 413 half) is delivered or dropped, and at the drain deadline
// what it drops as undelivered.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "ops/log_rate_limiter.h"
#include "rayagg/asio.h"
#include "rayagg/batch_transport.h"
#include "rayagg/clock.h"
#include "rayagg/config.h"
#include "rayagg/drop_counters.h"
#include "rayagg/event_json_encoder.h"
#include "rayagg/event_reader.h"
#include "rayagg/mutex.h"
#include "rayagg/notification.h"
#include "sinks/batcher.h"
#include "sinks/delivery_planner.h"
#include "sinks/outgoing_batch.h"
#include "sinks/rate_limiter.h"
#include "sinks/recovery_log.h"
#include "sinks/sink_counters.h"
#include "sinks/sink_request_stats.h"

namespace spdlog {
class logger;
}

namespace rayagg {

class Sink {
 public:
  // Registers the sink's cursor with `reader` (the event log) immediately, so
  // it sees every event appended after construction. `executor` should be a strand of its own.
  // One transport per in-flight slot: at most transports.size() (and
  // max_in_flight) batches are delivered at once; at least one is required.
  // Every time the sink reads and every wait it does (batch window, backoff,
  // rate limit, drain deadline) goes through `clock`, which outlives it.
  Sink(asio::any_io_executor executor, SinkConfig config, EventReader& reader,
       std::vector<std::unique_ptr<BatchTransport>> transports,
       std::unique_ptr<EventJsonEncoder> encoder, spdlog::logger& logger, Clock& clock);
  // A single slot.
  Sink(asio::any_io_executor executor, SinkConfig config, EventReader& reader,
       std::unique_ptr<BatchTransport> transport, std::unique_ptr<EventJsonEncoder> encoder,
       spdlog::logger& logger, Clock& clock);
  ~Sink();
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  // Starts the delivery coroutine. An exception escaping it is a bug: it is
  // rethrown from the io_context's run() so the process fails loudly.
  void Start();

  // Deliver what is buffered, then stop; give up (counting drops with reason
  // `shutdown`) at `deadline`, a time of the sink's clock. Thread-safe.
  void Drain(SteadyTime deadline);

  // Waits until the loop has finished after Drain(), or `timeout` of real
  // time passes (a guard for the caller's thread, not a sink deadline).
  bool WaitFinished(std::chrono::milliseconds timeout);

  // Replaces the settings (URL and transports, headers, token file, TLS,
  // event type filter, batching, retry, JSON keys) without losing buffered
  // events: config, encoder and filter at the next point where no batch is
  // being built, each slot's transport before that slot's next attempt. A
  // backoff wait is cut short so a fixed URL is tried at once. The name,
  // max_in_flight (the slot count) and when_full stay as they were. One
  // transport per slot. Thread-safe.
  void Reconfigure(SinkConfig config, std::vector<std::unique_ptr<BatchTransport>> transports,
                   std::unique_ptr<EventJsonEncoder> encoder);
  // Reconfigurations applied so far (tests wait on it).
  uint64_t reconfigurations() const { return reconfigurations_.load(); }
  const asio::any_io_executor& executor() const { return executor_; }
  // In-flight slots, fixed for life (max_in_flight at construction).
  size_t slot_count() const { return slot_count_; }

  const std::string& name() const { return name_; }
  const SinkCounters& counters() const { return counters_; }
  const DropCounters& drops() const { return drops_; }
  const SinkRequestStats& request_stats() const { return request_stats_; }
  // The cursor this sink reads through (tests check its released position).
  EventReader::CursorId cursor() const { return cursor_; }

 private:
  // One in-flight slot: a transport (an HTTP connection) and its backoff timer.
  struct Slot {
    std::unique_ptr<BatchTransport> transport;
    std::unique_ptr<Timer> timer;
    // From Reconfigure(): replaces `transport` before the slot's next attempt.
    std::unique_ptr<BatchTransport> next_transport =
        nullptr;  // backoff and rate waits; Drain() cuts them short
    bool busy = false;
  };
  // kKept: undelivered at the drain deadline, left to the next run (a
  // reader that keeps unsent events across restarts): not released.
  enum class AttemptEnd { kDone, kSplit, kKept };

  asio::awaitable<void> Run();
  // Suspends until events may be available, `until` passes, or Drain().
  asio::awaitable<void> WaitForEvents(SteadyTime until);
  // Suspends until a slot is free; returns it.
  asio::awaitable<Slot*> AcquireSlot();
  // Suspends until no batch is in flight.
  asio::awaitable<void> WaitAllDelivered();
  // Cuts the next batch (Batcher::Encode) and logs what it dropped.
  OutgoingBatch EncodeBatch();
  // Delivers `batch` (and the halves a 413 splits it into) on `slot`.
  asio::awaitable<void> DeliverBatch(Slot& slot, OutgoingBatch batch, SteadyTime not_before);
  // Attempts `batch` until the planner says it is done, split or dropped.
  asio::awaitable<AttemptEnd> DeliverWithRetry(Slot& slot, const OutgoingBatch& batch);
  void CountDelivered(const OutgoingBatch& batch);
  // Counts and logs a drop the planner decided after an attempt.
  void DropAfterAttempt(const OutgoingBatch& batch, const DeliveryOutcome& outcome,
                        const DeliveryDecision& decision, const DeliveryHistory& history);
  // Waits on the slot's timer until `until`, a time from the planner (so never
  // past the drain deadline), or until Drain() cancels the wait.
  asio::awaitable<void> SleepUntil(Slot& slot, SteadyTime until);
  void DropBatch(const OutgoingBatch& batch, DropReason reason);
  // Releases the range of a batch that was delivered or dropped.
  void ReleaseBatch(const OutgoingBatch& batch);
  void OnEventsAvailable();
  // Now, and the drain deadline while draining: what the planner decides by.
  DeliveryTimes TimesNow() const;
  bool DrainExpired() const;
  // Swaps in settings from Reconfigure(); on the strand, between batches.
  void ApplyPendingSettings();

  struct PendingSettings {
    SinkConfig config;
    std::vector<std::unique_ptr<BatchTransport>> transports;
    std::unique_ptr<EventJsonEncoder> encoder;
  };
  std::optional<PendingSettings> pending_settings_;  // strand-confined
  std::atomic<uint64_t> reconfigurations_{0};

  asio::any_io_executor executor_;
  const std::string name_;  // fixed for life: metrics read it from other threads
  SinkConfig config_;       // strand-confined: replaced by ApplyPendingSettings()
  EventReader& reader_;
  spdlog::logger& logger_;
  Clock& clock_;
  DeliveryPlanner planner_;  // strand-confined: replaced with the retry settings
  std::mt19937_64 random_;

  SinkCounters counters_;
  DropCounters drops_;
  SinkRequestStats request_stats_;
  // Hot-path warnings: at most one line per interval, with a suppressed count.
  LogRateLimiter failure_log_limiter_{std::chrono::seconds(10)};
  LogRateLimiter drop_log_limiter_{std::chrono::seconds(10)};
  RecoveryLog recovery_log_;  // strand-confined
  EventReader::CursorId cursor_;
  std::optional<Batcher> batcher_;  // set once the cursor exists; strand-confined

  // Strand-confined state.
  size_t slot_count_ = 0;
  std::vector<std::unique_ptr<Slot>> slots_;
  size_t busy_slots_ = 0;
  RateLimiter rate_limiter_;
  std::unique_ptr<Timer> wake_timer_;  // idle and batch-window waits; new events cancel it
  std::unique_ptr<Timer> slot_timer_;  // waits for a free slot; a finished delivery cancels it
  bool draining_ = false;
  SteadyTime drain_deadline_ = SteadyTime::max();

  std::atomic<bool> wake_pending_{false};
  Notification finished_;
};

}  // namespace rayagg
