#include "sinks/sink.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace rayagg {
namespace {

int64_t UnixMillisNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Sink::Sink(asio::any_io_executor executor, SinkConfig config, EventLog& log,
           std::unique_ptr<BatchTransport> transport, std::unique_ptr<EventJsonEncoder> encoder,
           spdlog::logger& logger)
    : executor_(std::move(executor)),
      name_(config.name),
      config_(std::move(config)),
      log_(log),
      transport_(std::move(transport)),
      encoder_(std::move(encoder)),
      logger_(logger),
      backoff_(config_.retry),
      random_(std::random_device{}()),
      wake_timer_(executor_),
      retry_timer_(executor_) {
  cursor_ = log_.AddCursor(config_.event_types, drops_, [this] { OnEventsAvailable(); });
}

Sink::~Sink() { log_.RemoveCursor(cursor_); }

void Sink::Start() {
  logger_.info("sink started sink={} destination={} max_events={} flush_interval_ms={}",
               config_.name, transport_->Describe(), config_.batch.max_events,
               config_.batch.flush_interval.count());
  asio::co_spawn(executor_, Run(), [this](std::exception_ptr error) {
    MarkFinished();
    if (error) std::rethrow_exception(error);
  });
}

void Sink::Reconfigure(SinkConfig config, std::unique_ptr<BatchTransport> transport,
                       std::unique_ptr<EventJsonEncoder> encoder) {
  // shared_ptr: asio handlers must be copyable, unique_ptrs are not.
  auto settings = std::make_shared<PendingSettings>(
      PendingSettings{std::move(config), std::move(transport), std::move(encoder)});
  asio::post(executor_, [this, settings] {
    pending_settings_ = std::move(*settings);
    wake_timer_.cancel();
    retry_timer_.cancel();
  });
}

void Sink::ApplyPendingSettings() {
  if (!pending_settings_) return;
  PendingSettings settings = std::move(*pending_settings_);
  pending_settings_.reset();
  settings.config.name = name_;
  config_ = std::move(settings.config);
  transport_ = std::move(settings.transport);
  encoder_ = std::move(settings.encoder);
  backoff_ = Backoff(config_.retry);
  log_.SetCursorFilter(cursor_, config_.event_types);
  reconfigurations_.fetch_add(1);
  logger_.info("sink reconfigured sink={} destination={} max_events={} flush_interval_ms={}",
               name_, transport_->Describe(), config_.batch.max_events,
               config_.batch.flush_interval.count());
}

void Sink::Drain(Clock::time_point deadline) {
  asio::post(executor_, [this, deadline] {
    draining_ = true;
    drain_deadline_ = deadline;
    wake_timer_.cancel();
    // A backoff wait is cut short so the next attempt (or the give-up) happens
    // before the deadline; DeliverWithRetry caps later waits at the deadline.
    retry_timer_.cancel();
  });
}

bool Sink::WaitFinished(std::chrono::milliseconds timeout) {
  std::unique_lock lock(finished_mutex_);
  return finished_cv_.wait_for(lock, timeout, [this] { return finished_; });
}

void Sink::MarkFinished() {
  {
    std::lock_guard lock(finished_mutex_);
    finished_ = true;
  }
  finished_cv_.notify_all();
}

void Sink::OnEventsAvailable() {
  // Called on ingest threads for every Append this sink cares about; post at
  // most one wake-up at a time.
  if (wake_pending_.exchange(true)) return;
  asio::post(executor_, [this] {
    wake_pending_ = false;
    wake_timer_.cancel();
  });
}

bool Sink::DrainExpired() const { return draining_ && Clock::now() >= drain_deadline_; }

asio::awaitable<void> Sink::WaitForEvents(Clock::time_point until) {
  // No suspension between this check and the wait below, and wake-ups run on
  // the same strand, so a notification cannot be lost in between.
  if (draining_ || pending_settings_ || log_.HasUnread(cursor_)) co_return;
  wake_timer_.expires_at(until);
  boost::system::error_code ignored;
  co_await wake_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
}

void Sink::Refill() {
  if (staged_next_ > 0 && staged_next_ < staged_.size()) {
    // Events left over after a body hit batch.max_bytes: keep them in front.
    EventBatch rest;
    for (size_t i = staged_next_; i < staged_.size(); ++i) {
      rest.Add(staged_.event_type(i), staged_.bytes(i), staged_.received_count(i));
    }
    staged_ = std::move(rest);
    staged_next_ = 0;
  } else if (staged_next_ == staged_.size()) {
    staged_.Clear();
    staged_next_ = 0;
  }
  const size_t want = config_.batch.max_events - std::min<size_t>(config_.batch.max_events,
                                                                  StagedCount());
  if (want > 0) log_.Read(cursor_, want, staged_);
}

size_t Sink::EncodeBatch() {
  body_.clear();
  body_events_.clear();
  full_by_bytes_ = false;
  body_.reserve(std::min<size_t>(config_.batch.max_bytes, staged_.byte_size() * 2 + 2));
  body_.push_back('[');
  size_t count = 0;
  while (staged_next_ < staged_.size()) {
    const size_t mark = body_.size();
    const int32_t type = staged_.event_type(staged_next_);
    if (count > 0) body_.push_back(',');
    if (absl::Status encoded = encoder_->AppendEvent(staged_.bytes(staged_next_), body_);
        !encoded.ok()) {
      body_.resize(mark);
      drops_.Add(DropReason::kEncodeError, type, staged_.received_count(staged_next_));
      logger_.error("event dropped: cannot encode as JSON sink={} reason={}", config_.name,
                    std::string(encoded.message()));
      ++staged_next_;
      continue;
    }
    if (body_.size() + 1 > config_.batch.max_bytes) {  // +1 for the closing ']'
      body_.resize(mark);
      if (count == 0) {
        drops_.Add(DropReason::kTooLarge, type, staged_.received_count(staged_next_));
        if (auto suppressed = drop_log_limiter_.Allow()) {
          logger_.warn(
              "event dropped: larger than batch.max_bytes sink={} max_bytes={} "
              "suppressed_warnings={}",
              config_.name, config_.batch.max_bytes, *suppressed);
        }
        ++staged_next_;
        continue;
      }
      full_by_bytes_ = true;
      break;
    }
    body_events_.push_back({type, staged_.received_count(staged_next_)});
    ++count;
    ++staged_next_;
  }
  body_.push_back(']');
  return count;
}

void Sink::DropUndelivered(DropReason reason) {
  for (size_t i = staged_next_; i < staged_.size(); ++i) {
    drops_.Add(reason, staged_.event_type(i), staged_.received_count(i));
  }
  staged_.Clear();
  staged_next_ = 0;
  EventBatch unread;
  while (log_.Read(cursor_, 4096, unread) > 0) {
    for (size_t i = 0; i < unread.size(); ++i) {
      drops_.Add(reason, unread.event_type(i), unread.received_count(i));
    }
    unread.Clear();
  }
}

void Sink::DropBody(DropReason reason) {
  for (const BodyEvent& event : body_events_) drops_.Add(reason, event.event_type, event.received);
}

asio::awaitable<void> Sink::DeliverWithRetry(size_t event_count) {
  uint64_t retry = 0;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  while (true) {
    if (DrainExpired()) {
      DropBody(DropReason::kShutdown);
      co_return;
    }
    // Between attempts no transport call is in flight: new settings apply
    // here (the body keeps the encoding it was built with).
    ApplyPendingSettings();
    const auto started = Clock::now();
    DeliveryOutcome outcome = co_await transport_->Deliver(body_);
    request_stats_.Record(Clock::now() - started, outcome);
    if (outcome.delivered) {
      counters_.sent_events.fetch_add(event_count, std::memory_order_relaxed);
      counters_.sent_batches.fetch_add(1, std::memory_order_relaxed);
      counters_.sent_bytes.fetch_add(body_.size(), std::memory_order_relaxed);
      counters_.last_success_unix_ms.store(UnixMillisNow(), std::memory_order_relaxed);
      const uint64_t failures = counters_.consecutive_failures.exchange(0);
      if (failures > 0) {
        logger_.info("sink recovered sink={} failed_attempts={}", config_.name, failures);
      }
      co_return;
    }
    counters_.failed_attempts.fetch_add(1, std::memory_order_relaxed);
    const uint64_t failures = counters_.consecutive_failures.fetch_add(1) + 1;
    if (config_.retry.max_retries >= 0 && retry >= static_cast<uint64_t>(config_.retry.max_retries)) {
      DropBody(DropReason::kRetriesExhausted);
      if (auto suppressed = failure_log_limiter_.Allow()) {
        logger_.warn("batch dropped after {} retries sink={} events={} failure={} "
                     "suppressed_warnings={}",
                     retry, config_.name, event_count, outcome.failure, *suppressed);
      }
      co_return;
    }
    ++retry;
    counters_.retries.fetch_add(1, std::memory_order_relaxed);
    const Duration delay = backoff_.Delay(retry, unit(random_));
    if (auto suppressed = failure_log_limiter_.Allow()) {
      logger_.warn(
          "delivery failed, will retry sink={} failure={} consecutive_failures={} "
          "attempt_ms={} retry_in_ms={} suppressed_warnings={}",
          config_.name, outcome.failure, failures,
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count(),
          delay.count(), *suppressed);
    }
    Clock::time_point wake_at = Clock::now() + delay;
    if (draining_) wake_at = std::min(wake_at, drain_deadline_);
    retry_timer_.expires_at(wake_at);
    boost::system::error_code ignored;
    co_await retry_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
}

asio::awaitable<void> Sink::Run() {
  while (true) {
    ApplyPendingSettings();
    Refill();
    if (StagedCount() == 0) {
      if (draining_) break;
      co_await WaitForEvents(Clock::time_point::max());
      continue;
    }
    // Batch window: flush_interval from the first event, unless the batch is
    // already full or the sink is draining.
    if (!full_by_bytes_) {
      const auto window_end = Clock::now() + config_.batch.flush_interval;
      while (!draining_ && StagedCount() < config_.batch.max_events && Clock::now() < window_end) {
        co_await WaitForEvents(window_end);
        Refill();
      }
    }
    if (DrainExpired()) break;
    const size_t count = EncodeBatch();
    if (count > 0) co_await DeliverWithRetry(count);
  }
  if (DrainExpired()) DropUndelivered(DropReason::kShutdown);
  logger_.info("sink stopped sink={} sent_events={} dropped_events={}", config_.name,
               counters_.sent_events.load(), drops_.Total());
}

}  // namespace rayagg
