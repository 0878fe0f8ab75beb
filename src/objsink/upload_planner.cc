#include "objsink/upload_planner.h"

namespace rayagg {
namespace {

UploadDecision Drop(DropReason reason) {
  return UploadDecision{.action = UploadDecision::Action::kDrop, .drop_reason = reason};
}

}  // namespace

UploadPlanner::UploadPlanner(const RetryConfig& retry)
    : retry_(retry), backoff_(retry, RetryPolicy::kDefault) {}

UploadDecision UploadPlanner::AfterAttempt(const absl::Status& status, UploadHistory& history,
                                           const DeliveryTimes& times, double unit_random) const {
  using Code = absl::StatusCode;
  if (status.ok()) return UploadDecision{.action = UploadDecision::Action::kDone};
  if (DeliveryPlanner::DrainExpired(times)) return Drop(DropReason::kShutdown);
  if (status.code() == Code::kAlreadyExists) {
    return UploadDecision{.action = UploadDecision::Action::kRekey};
  }
  if (status.code() == Code::kInvalidArgument) return Drop(DropReason::kRejected);

  Duration delay{0};
  bool needs_operator = false;
  switch (status.code()) {
    case Code::kUnauthenticated:
    case Code::kPermissionDenied:
    case Code::kFailedPrecondition:
    case Code::kNotFound:
      // Without limit: what is held is delivered once an operator fixes it.
      needs_operator = true;
      delay = retry_.max_backoff;
      break;
    case Code::kDataLoss:
      if (history.data_loss_count + 1 >= kMaxDataLossAttempts) return Drop(DropReason::kRejected);
      [[fallthrough]];
    default: {
      const Duration elapsed =
          std::chrono::duration_cast<Duration>(times.now - history.first_attempt);
      if (DeliveryPlanner::RetriesExhausted(retry_, history.retries, elapsed)) {
        return Drop(DropReason::kRetriesExhausted);
      }
      delay = backoff_.Delay(history.retries + 1, unit_random);
      break;
    }
  }
  if (status.code() == Code::kDataLoss) ++history.data_loss_count;
  ++history.retries;
  SteadyTime retry_at = times.now + delay;
  // Failures that need an operator are retried without limit: max_elapsed
  // does not bring their next attempt forward.
  if (!needs_operator) {
    retry_at = DeliveryPlanner::WithinMaxElapsed(retry_, retry_at, history.first_attempt);
  }
  retry_at = DeliveryPlanner::WithinDrain(retry_at, times);
  return UploadDecision{.action = UploadDecision::Action::kRetry,
                        .needs_operator = needs_operator,
                        .retry_at = retry_at,
                        .wait = std::chrono::duration_cast<Duration>(retry_at - times.now)};
}

}  // namespace rayagg
