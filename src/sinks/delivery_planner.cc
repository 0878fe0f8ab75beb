#include "sinks/delivery_planner.h"

#include <algorithm>

#include "sinks/delivery_policy.h"

namespace rayagg {
namespace {

DeliveryDecision Drop(FailureReason failure, DropReason reason, Duration elapsed) {
  return DeliveryDecision{.action = DeliveryDecision::Action::kDrop,
                          .failure = failure,
                          .drop_reason = reason,
                          .elapsed = elapsed};
}

}  // namespace

DeliveryPlanner::DeliveryPlanner(const RetryConfig& retry, RetryPolicy policy)
    : retry_(retry), policy_(policy), backoff_(retry, policy) {}

bool DeliveryPlanner::DrainExpired(const DeliveryTimes& times) {
  return times.drain_deadline.has_value() && times.now >= *times.drain_deadline;
}

SteadyTime DeliveryPlanner::FirstAttemptAt(SteadyTime rate_not_before, const DeliveryTimes& times) {
  if (!times.drain_deadline.has_value()) return rate_not_before;
  return std::min(rate_not_before, *times.drain_deadline);
}

DeliveryDecision DeliveryPlanner::AfterAttempt(const DeliveryOutcome& outcome, size_t events,
                                               const DeliveryHistory& history,
                                               const DeliveryTimes& times,
                                               double unit_random) const {
  const Classification classified = Classify(policy_, outcome);
  const FailureReason failure = classified.reason;
  const Duration elapsed = std::chrono::duration_cast<Duration>(times.now - history.first_attempt);
  switch (classified.verdict) {
    case Verdict::kSuccess:
      return DeliveryDecision{.action = DeliveryDecision::Action::kDone};
    case Verdict::kSplit:
      if (events > 1) {
        return DeliveryDecision{
            .action = DeliveryDecision::Action::kSplit, .failure = failure, .elapsed = elapsed};
      }
      return Drop(failure, DropReason::kTooLarge, elapsed);
    case Verdict::kReject:
      return Drop(failure, DropReason::kRejected, elapsed);
    case Verdict::kRetry:
      break;
  }

  const bool out_of_retries =
      retry_.max_retries >= 0 && history.retries >= static_cast<uint64_t>(retry_.max_retries);
  const bool out_of_time = retry_.max_elapsed.count() > 0 && elapsed >= retry_.max_elapsed;
  if (out_of_retries || out_of_time) return Drop(failure, DropReason::kRetriesExhausted, elapsed);
  // Draining and out of time: no retry could happen before the deadline.
  if (DrainExpired(times)) return Drop(failure, DropReason::kShutdown, elapsed);

  Duration delay = backoff_.Delay(history.retries + 1, unit_random);
  if (outcome.retry_after.has_value()) {
    // The larger of our backoff and what the collector asked, within the cap.
    if (const std::optional<Duration> asked =
            ParseRetryAfter(*outcome.retry_after, times.wall_now)) {
      delay = std::max(delay, std::min(*asked, retry_.max_retry_after));
    }
  }
  SteadyTime retry_at = times.now + delay;
  // One last attempt when max_elapsed runs out, rather than sleeping past it.
  if (retry_.max_elapsed.count() > 0) {
    retry_at = std::min(retry_at, history.first_attempt + retry_.max_elapsed);
  }
  // Draining: wait no longer than the deadline, where the batch is dropped
  // unless an earlier attempt delivers it.
  if (times.drain_deadline.has_value()) retry_at = std::min(retry_at, *times.drain_deadline);
  return DeliveryDecision{
      .action = DeliveryDecision::Action::kRetry,
      .failure = failure,
      .retry_at = retry_at,
      .wait = std::chrono::duration_cast<Duration>(retry_at - times.now),
      .elapsed = elapsed,
  };
}

}  // namespace rayagg
