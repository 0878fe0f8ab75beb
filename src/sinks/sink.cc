#include "sinks/sink.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace rayagg {

Sink::Sink(asio::any_io_executor executor, SinkConfig config, EventReader& reader,
           std::vector<std::unique_ptr<BatchTransport>> transports,
           std::unique_ptr<EventJsonEncoder> encoder, spdlog::logger& logger, Clock& clock)
    : executor_(std::move(executor)),
      name_(config.name),
      config_(std::move(config)),
      reader_(reader),
      logger_(logger),
      clock_(clock),
      planner_(config_.retry, config_.retry_policy),
      random_(std::random_device{}()),
      // A burst of one second's worth (at least one batch) after an idle spell.
      rate_limiter_(config_.max_events_per_second,
                    std::max<uint64_t>(config_.max_events_per_second, config_.batch.max_events)),
      wake_timer_(clock_.MakeTimer(executor_)),
      slot_timer_(clock_.MakeTimer(executor_)) {
  const size_t slots =
      std::min<size_t>(std::max<uint32_t>(config_.max_in_flight, 1), transports.size());
  for (size_t i = 0; i < slots; ++i) {
    slots_.push_back(
        std::make_unique<Slot>(Slot{std::move(transports[i]), clock_.MakeTimer(executor_)}));
  }
  if (slots_.empty()) throw std::invalid_argument("Sink needs at least one transport");
  slot_count_ = slots_.size();
  cursor_ = reader_.AddCursor(config_.event_types, drops_, [this] { OnEventsAvailable(); });
  batcher_.emplace(reader_, cursor_, config_.batch, std::move(encoder), drops_);
  if (config_.when_full == WhenFull::kBlock) {
    reader_.BlockWhenFull(cursor_, config_.name, counters_.refused_requests);
  }
}

namespace {
std::vector<std::unique_ptr<BatchTransport>> OneTransport(
    std::unique_ptr<BatchTransport> transport) {
  std::vector<std::unique_ptr<BatchTransport>> transports;
  transports.push_back(std::move(transport));
  return transports;
}
}  // namespace

Sink::Sink(asio::any_io_executor executor, SinkConfig config, EventReader& reader,
           std::unique_ptr<BatchTransport> transport, std::unique_ptr<EventJsonEncoder> encoder,
           spdlog::logger& logger, Clock& clock)
    : Sink(std::move(executor), std::move(config), reader, OneTransport(std::move(transport)),
           std::move(encoder), logger, clock) {}

Sink::~Sink() { reader_.RemoveCursor(cursor_); }

void Sink::Start() {
  logger_.info(
      "sink started sink={} destination={} max_events={} flush_interval_ms={} max_in_flight={}",
      config_.name, slots_.front()->transport->Describe(), config_.batch.max_events,
      config_.batch.flush_interval.count(), slots_.size());
  asio::co_spawn(executor_, Run(), [this](std::exception_ptr error) {
    finished_.Notify();
    if (error) std::rethrow_exception(error);
  });
}

void Sink::Reconfigure(SinkConfig config, std::vector<std::unique_ptr<BatchTransport>> transports,
                       std::unique_ptr<EventJsonEncoder> encoder) {
  // shared_ptr: asio handlers must be copyable, unique_ptrs are not.
  auto settings = std::make_shared<PendingSettings>(
      PendingSettings{std::move(config), std::move(transports), std::move(encoder)});
  asio::post(executor_, [this, settings] {
    pending_settings_ = std::move(*settings);
    // Each slot takes its new transport before its next attempt; a backoff
    // wait is cut short so that attempt goes to the new settings at once.
    for (size_t i = 0; i < slots_.size() && i < pending_settings_->transports.size(); ++i) {
      slots_[i]->next_transport = std::move(pending_settings_->transports[i]);
      slots_[i]->timer->Cancel();
    }
    wake_timer_->Cancel();
  });
}

void Sink::ApplyPendingSettings() {
  if (!pending_settings_) return;
  PendingSettings settings = std::move(*pending_settings_);
  pending_settings_.reset();
  settings.config.name = name_;
  settings.config.max_in_flight = config_.max_in_flight;
  settings.config.when_full = config_.when_full;
  config_ = std::move(settings.config);
  batcher_->Reconfigure(config_.batch, std::move(settings.encoder));
  planner_ = DeliveryPlanner(config_.retry, config_.retry_policy);
  reader_.SetCursorFilter(cursor_, config_.event_types);
  reconfigurations_.fetch_add(1);
  logger_.info("sink reconfigured sink={} max_events={} flush_interval_ms={}", name_,
               config_.batch.max_events, config_.batch.flush_interval.count());
}

void Sink::Drain(SteadyTime deadline) {
  asio::post(executor_, [this, deadline] {
    draining_ = true;
    drain_deadline_ = deadline;
    wake_timer_->Cancel();
    // Backoff and rate waits are cut short so the next attempt (or the
    // give-up) happens before the deadline; later waits end by it, as the
    // planner computes them from TimesNow(), which now has the deadline.
    for (const auto& slot : slots_) slot->timer->Cancel();
  });
}

bool Sink::WaitFinished(std::chrono::milliseconds timeout) { return finished_.WaitFor(timeout); }

void Sink::OnEventsAvailable() {
  // Called on ingest threads for every Append this sink cares about; post at
  // most one wake-up at a time.
  if (wake_pending_.exchange(true)) return;
  asio::post(executor_, [this] {
    wake_pending_ = false;
    wake_timer_->Cancel();
  });
}

DeliveryTimes Sink::TimesNow() const {
  return DeliveryTimes{
      .now = clock_.Now(),
      .wall_now = clock_.WallNow(),
      .drain_deadline = draining_ ? std::optional<SteadyTime>(drain_deadline_) : std::nullopt,
  };
}

bool Sink::DrainExpired() const { return DeliveryPlanner::DrainExpired(TimesNow()); }

asio::awaitable<void> Sink::WaitForEvents(SteadyTime until) {
  // No suspension between this check and the wait below, and wake-ups run on
  // the same strand, so a notification cannot be lost in between.
  if (draining_ || pending_settings_ || reader_.HasUnread(cursor_)) co_return;
  wake_timer_->ExpiresAt(until);
  co_await wake_timer_->Wait();
}

asio::awaitable<Sink::Slot*> Sink::AcquireSlot() {
  while (true) {
    for (const auto& slot : slots_) {
      if (!slot->busy) co_return slot.get();
    }
    // A finishing delivery cancels the timer, on this strand: no lost wake-up.
    slot_timer_->ExpiresAt(SteadyTime::max());
    co_await slot_timer_->Wait();
  }
}

asio::awaitable<void> Sink::WaitAllDelivered() {
  while (busy_slots_ > 0) {
    slot_timer_->ExpiresAt(SteadyTime::max());
    co_await slot_timer_->Wait();
  }
}

asio::awaitable<void> Sink::SleepUntil(Slot& slot, SteadyTime until) {
  if (until <= clock_.Now()) co_return;
  slot.timer->ExpiresAt(until);
  co_await slot.timer->Wait();
}

OutgoingBatch Sink::EncodeBatch() {
  Batcher::EncodeDrops dropped;
  OutgoingBatch batch = batcher_->Encode(dropped);
  if (dropped.too_large > 0 || dropped.encode_errors > 0) {
    if (auto suppressed = drop_log_limiter_.Allow(clock_.Now())) {
      logger_.warn(
          "events dropped while encoding sink={} too_large={} max_bytes={} encode_errors={} "
          "first_encode_error={} suppressed_warnings={}",
          config_.name, dropped.too_large, config_.batch.max_bytes, dropped.encode_errors,
          dropped.first_encode_error, *suppressed);
    }
  }
  return batch;
}

void Sink::DropBatch(const OutgoingBatch& batch, DropReason reason) {
  for (size_t i = 0; i < batch.size(); ++i) drops_.Add(reason, batch.types[i], batch.received[i]);
}

void Sink::ReleaseBatch(const OutgoingBatch& batch) {
  if (!batcher_->Release(batch.range)) {
    logger_.error("bug: batch range released twice sink={} begin={} end={}", config_.name,
                  batch.range.begin, batch.range.end);
  }
}

asio::awaitable<void> Sink::DeliverBatch(Slot& slot, OutgoingBatch batch, SteadyTime not_before) {
  // Times read here, not when Run reserved the rate: a drain may have begun
  // in between (co_spawn starts this coroutine through a post).
  co_await SleepUntil(slot, DeliveryPlanner::FirstAttemptAt(not_before, TimesNow()));
  // Halves still to send, the next one last; at most log2(events) + 1 deep.
  std::vector<OutgoingBatch> pending;
  pending.push_back(std::move(batch));
  while (!pending.empty()) {
    OutgoingBatch current = std::move(pending.back());
    pending.pop_back();
    const AttemptEnd end = co_await DeliverWithRetry(slot, current);
    if (end == AttemptEnd::kSplit) {
      counters_.split_batches.fetch_add(1, std::memory_order_relaxed);
      const size_t middle = current.size() / 2;
      pending.push_back(current.Slice(middle, current.size()));
      pending.push_back(current.Slice(0, middle));
    } else if (end == AttemptEnd::kKept) {
      // Not released: the next run resumes before it.
    } else {
      ReleaseBatch(current);  // delivered or dropped
      batcher_->Recycle(std::move(current), slots_.size());
    }
  }
}

asio::awaitable<Sink::AttemptEnd> Sink::DeliverWithRetry(Slot& slot, const OutgoingBatch& batch) {
  // The planner decides; this performs the attempts, counts, logs and waits.
  DeliveryHistory history{.first_attempt = clock_.Now()};
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  while (true) {
    if (DrainExpired()) {
      if (reader_.KeepsUnsentAcrossRestarts()) co_return AttemptEnd::kKept;
      DropBatch(batch, DropReason::kShutdown);
      co_return AttemptEnd::kDone;
    }
    // No call is in flight on this slot: a transport from Reconfigure()
    // applies here (the body keeps the encoding it was built with).
    if (slot.next_transport) slot.transport = std::move(slot.next_transport);
    const SteadyTime started = clock_.Now();
    const DeliveryOutcome outcome = co_await slot.transport->Deliver(batch.body);
    const DeliveryTimes times = TimesNow();
    const DeliveryDecision decision =
        planner_.AfterAttempt(outcome, batch.size(), history, times, unit(random_));
    const auto attempt_time = times.now - started;  // measured, for the metrics and the log
    request_stats_.Record(attempt_time, decision.action == DeliveryDecision::Action::kDone,
                          decision.failure);
    switch (decision.action) {
      case DeliveryDecision::Action::kDone:
        CountDelivered(batch);
        co_return AttemptEnd::kDone;
      case DeliveryDecision::Action::kSplit:
        counters_.failed_attempts.fetch_add(1, std::memory_order_relaxed);
        co_return AttemptEnd::kSplit;
      case DeliveryDecision::Action::kDrop:
        counters_.failed_attempts.fetch_add(1, std::memory_order_relaxed);
        if (decision.drop_reason == DropReason::kShutdown && reader_.KeepsUnsentAcrossRestarts()) {
          co_return AttemptEnd::kKept;
        }
        DropAfterAttempt(batch, outcome, decision, history);
        co_return AttemptEnd::kDone;
      case DeliveryDecision::Action::kRetry:
        counters_.failed_attempts.fetch_add(1, std::memory_order_relaxed);
        break;
    }
    ++history.retries;
    counters_.retries.fetch_add(1, std::memory_order_relaxed);
    const uint64_t failures = counters_.consecutive_failures.fetch_add(1) + 1;
    const std::optional<uint64_t> suppressed = failure_log_limiter_.Allow(clock_.Now());
    recovery_log_.Failed(/*warned=*/suppressed.has_value());
    if (suppressed) {
      logger_.warn(
          "delivery failed, will retry sink={} failure={} reason={} consecutive_failures={} "
          "attempt_ms={} retry_in_ms={} suppressed_warnings={}",
          config_.name, outcome.failure, FailureReasonName(decision.failure), failures,
          std::chrono::duration_cast<std::chrono::milliseconds>(attempt_time).count(),
          decision.wait.count(), *suppressed);
    }
    co_await SleepUntil(slot, decision.retry_at);
  }
}

void Sink::CountDelivered(const OutgoingBatch& batch) {
  counters_.CountDelivered(batch.size(), batch.body.size(), clock_.WallNow());
  if (const std::optional<uint64_t> failed = recovery_log_.Succeeded()) {
    logger_.info("sink recovered sink={} failed_attempts={}", config_.name, *failed);
  }
}

void Sink::DropAfterAttempt(const OutgoingBatch& batch, const DeliveryOutcome& outcome,
                            const DeliveryDecision& decision, const DeliveryHistory& history) {
  DropBatch(batch, decision.drop_reason);
  const std::string_view reason_name = FailureReasonName(decision.failure);
  switch (decision.drop_reason) {
    case DropReason::kTooLarge:
      if (auto suppressed = drop_log_limiter_.Allow(clock_.Now())) {
        logger_.warn(
            "event dropped: the endpoint answered 413 to it alone sink={} bytes={} "
            "suppressed_warnings={}",
            config_.name, batch.body.size(), *suppressed);
      }
      return;
    case DropReason::kRejected:
      if (auto suppressed = drop_log_limiter_.Allow(clock_.Now())) {
        logger_.warn(
            "batch dropped: the endpoint rejected it sink={} failure={} reason={} events={} "
            "suppressed_warnings={}",
            config_.name, outcome.failure, reason_name, batch.size(), *suppressed);
      }
      return;
    default:
      break;
  }
  // A failure that would have been retried, but the retry limits or the
  // drain deadline ended the batch: it counts towards the sink's failure
  // streak like a retry does.
  counters_.consecutive_failures.fetch_add(1, std::memory_order_relaxed);
  const std::optional<uint64_t> suppressed = failure_log_limiter_.Allow(clock_.Now());
  recovery_log_.Failed(/*warned=*/suppressed.has_value());
  if (!suppressed) return;
  if (decision.drop_reason == DropReason::kShutdown) {
    logger_.warn(
        "batch dropped: delivery failed at the drain deadline sink={} events={} failure={} "
        "reason={} suppressed_warnings={}",
        config_.name, batch.size(), outcome.failure, reason_name, *suppressed);
    return;
  }
  logger_.warn(
      "batch dropped after {} retries in {} ms sink={} events={} failure={} reason={} "
      "suppressed_warnings={}",
      history.retries, decision.elapsed.count(), config_.name, batch.size(), outcome.failure,
      reason_name, *suppressed);
}

asio::awaitable<void> Sink::Run() {
  while (true) {
    // A slot first: with every slot busy (sending or backing off) the sink
    // reads nothing, so retries never grow memory.
    Slot* slot = co_await AcquireSlot();
    ApplyPendingSettings();
    batcher_->Refill();
    if (batcher_->staged_count() == 0) {
      if (draining_) break;
      co_await WaitForEvents(SteadyTime::max());
      continue;
    }
    // Batch window: flush_interval from the first event, unless the batch is
    // already full or the sink is draining.
    if (!batcher_->full_by_bytes()) {
      const SteadyTime window_end = clock_.Now() + config_.batch.flush_interval;
      while (!draining_ && batcher_->staged_count() < config_.batch.max_events &&
             clock_.Now() < window_end) {
        co_await WaitForEvents(window_end);
        batcher_->Refill();
      }
    }
    if (DrainExpired()) break;
    OutgoingBatch batch = EncodeBatch();
    if (batch.size() == 0) continue;
    const SteadyTime not_before = rate_limiter_.Reserve(batch.size(), clock_.Now());
    slot->busy = true;
    ++busy_slots_;
    counters_.in_flight_batches.fetch_add(1, std::memory_order_relaxed);
    // Not detached: Run waits for every delivery (WaitAllDelivered) before it
    // ends, and the handler runs on this strand.
    asio::co_spawn(executor_, DeliverBatch(*slot, std::move(batch), not_before),
                   asio::bind_executor(executor_, [this, slot](std::exception_ptr error) {
                     slot->busy = false;
                     --busy_slots_;
                     counters_.in_flight_batches.fetch_sub(1, std::memory_order_relaxed);
                     slot_timer_->Cancel();
                     if (error) std::rethrow_exception(error);
                   }));
  }
  co_await WaitAllDelivered();
  // With a spool the unsent events stay on disk, unreleased, for the next run.
  if (DrainExpired() && !reader_.KeepsUnsentAcrossRestarts()) {
    batcher_->DropUndelivered(DropReason::kShutdown);
  }
  logger_.info("sink stopped sink={} sent_events={} dropped_events={}", config_.name,
               counters_.sent_events.load(), drops_.Total());
}

}  // namespace rayagg
