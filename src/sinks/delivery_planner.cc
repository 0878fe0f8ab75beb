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
  return WithinDrain(rate_not_before, times);
}

bool DeliveryPlanner::RetriesExhausted(const RetryConfig& retry, uint64_t retries,
                                       Duration elapsed) {
  const bool out_of_retries =
      retry.max_retries >= 0 && retries >= static_cast<uint64_t>(retry.max_retries);
  const bool out_of_time = retry.max_elapsed.count() > 0 && elapsed >= retry.max_elapsed;
  return out_of_retries || out_of_time;
}

SteadyTime DeliveryPlanner::WithinMaxElapsed(const RetryConfig& retry, SteadyTime retry_at,
                                             SteadyTime first_attempt) {
  if (retry.max_elapsed.count() == 0) return retry_at;
  return std::min(retry_at, first_attempt + retry.max_elapsed);
}

SteadyTime DeliveryPlanner::WithinDrain(SteadyTime at, const DeliveryTimes& times) {
  if (!times.drain_deadline.has_value()) return at;
  return std::min(at, *times.drain_deadline);
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

  if (RetriesExhausted(retry_, history.retries, elapsed)) {
    return Drop(failure, DropReason::kRetriesExhausted, elapsed);
  }
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
  const SteadyTime retry_at =
      WithinDrain(WithinMaxElapsed(retry_, times.now + delay, history.first_attempt), times);
  return DeliveryDecision{
      .action = DeliveryDecision::Action::kRetry,
      .failure = failure,
      .retry_at = retry_at,
      .wait = std::chrono::duration_cast<Duration>(retry_at - times.now),
      .elapsed = elapsed,
  };
}

}  // namespace rayagg
