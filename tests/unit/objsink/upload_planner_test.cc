// Every row of the upload table (docs/DELIVERY.md, "Object stores"), the
// retry limits and the drain deadline.
#include "objsink/upload_planner.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

using namespace std::chrono_literals;
using Action = UploadDecision::Action;

constexpr SteadyTime kStart{std::chrono::hours(1000)};

RetryConfig Retry() {
  RetryConfig retry;
  retry.initial_backoff = 100ms;
  retry.max_backoff = 5s;
  retry.jitter_ratio = 0.0;  // exact steps
  return retry;
}

DeliveryTimes At(SteadyTime now, std::optional<SteadyTime> drain = std::nullopt) {
  return DeliveryTimes{.now = now, .wall_now = {}, .drain_deadline = drain};
}

absl::Status Error(absl::StatusCode code) { return absl::Status(code, "test"); }

TEST(UploadPlannerTest, OkIsDone) {
  UploadHistory history{.first_attempt = kStart};
  EXPECT_EQ(UploadPlanner(Retry()).AfterAttempt(absl::OkStatus(), history, At(kStart), 0.5).action,
            Action::kDone);
}

TEST(UploadPlannerTest, TransientErrorsBackOff) {
  for (absl::StatusCode code :
       {absl::StatusCode::kUnavailable, absl::StatusCode::kDeadlineExceeded,
        absl::StatusCode::kInternal, absl::StatusCode::kResourceExhausted}) {
    UploadPlanner planner(Retry());
    UploadHistory history{.first_attempt = kStart};
    UploadDecision first = planner.AfterAttempt(Error(code), history, At(kStart), 0.5);
    EXPECT_EQ(first.action, Action::kRetry);
    EXPECT_FALSE(first.needs_operator);
    EXPECT_EQ(first.retry_at, kStart + 100ms);
    UploadDecision second = planner.AfterAttempt(Error(code), history, At(kStart), 0.5);
    EXPECT_EQ(second.retry_at, kStart + 200ms);
    EXPECT_EQ(history.retries, 2u);
  }
}

TEST(UploadPlannerTest, OperatorErrorsRetryAtMaxBackoffWithoutLimit) {
  RetryConfig retry = Retry();
  retry.max_retries = 1;
  retry.max_elapsed = 1s;
  for (absl::StatusCode code :
       {absl::StatusCode::kUnauthenticated, absl::StatusCode::kPermissionDenied,
        absl::StatusCode::kFailedPrecondition, absl::StatusCode::kNotFound}) {
    UploadPlanner planner(retry);
    UploadHistory history{.first_attempt = kStart};
    for (int i = 0; i < 10; ++i) {
      const SteadyTime now = kStart + std::chrono::hours(i);
      UploadDecision decision = planner.AfterAttempt(Error(code), history, At(now), 0.5);
      ASSERT_EQ(decision.action, Action::kRetry);
      EXPECT_TRUE(decision.needs_operator);
      EXPECT_EQ(decision.retry_at, now + 5s);
    }
  }
}

TEST(UploadPlannerTest, DataLossIsRetriedThreeTimesThenRejected) {
  UploadPlanner planner(Retry());
  UploadHistory history{.first_attempt = kStart};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(
        planner.AfterAttempt(Error(absl::StatusCode::kDataLoss), history, At(kStart), 0.5).action,
        Action::kRetry);
  }
  const UploadDecision last =
      planner.AfterAttempt(Error(absl::StatusCode::kDataLoss), history, At(kStart), 0.5);
  EXPECT_EQ(last.action, Action::kDrop);
  EXPECT_EQ(last.drop_reason, DropReason::kRejected);
}

TEST(UploadPlannerTest, InvalidArgumentIsRejectedAndATakenNameIsRenamed) {
  UploadPlanner planner(Retry());
  UploadHistory history{.first_attempt = kStart};
  const UploadDecision invalid =
      planner.AfterAttempt(Error(absl::StatusCode::kInvalidArgument), history, At(kStart), 0.5);
  EXPECT_EQ(invalid.action, Action::kDrop);
  EXPECT_EQ(invalid.drop_reason, DropReason::kRejected);
  EXPECT_EQ(planner.AfterAttempt(Error(absl::StatusCode::kAlreadyExists), history, At(kStart), 0.5)
                .action,
            Action::kRekey);
}

TEST(UploadPlannerTest, RetryLimitsEndTransientRetries) {
  RetryConfig retry = Retry();
  retry.max_retries = 2;
  UploadPlanner planner(retry);
  UploadHistory history{.first_attempt = kStart};
  const absl::Status unavailable = Error(absl::StatusCode::kUnavailable);
  EXPECT_EQ(planner.AfterAttempt(unavailable, history, At(kStart), 0.5).action, Action::kRetry);
  EXPECT_EQ(planner.AfterAttempt(unavailable, history, At(kStart), 0.5).action, Action::kRetry);
  const UploadDecision out = planner.AfterAttempt(unavailable, history, At(kStart), 0.5);
  EXPECT_EQ(out.action, Action::kDrop);
  EXPECT_EQ(out.drop_reason, DropReason::kRetriesExhausted);

  retry.max_retries = -1;
  retry.max_elapsed = 1s;
  UploadPlanner timed(retry);
  UploadHistory timed_history{.first_attempt = kStart};
  const UploadDecision capped =
      timed.AfterAttempt(unavailable, timed_history, At(kStart + 950ms), 0.5);
  EXPECT_EQ(capped.retry_at, kStart + 1s);  // one last attempt at the limit
  EXPECT_EQ(timed.AfterAttempt(unavailable, timed_history, At(kStart + 1s), 0.5).drop_reason,
            DropReason::kRetriesExhausted);
}

TEST(UploadPlannerTest, DrainingCapsWaitsAtTheDeadlineAndDropsAfterIt) {
  UploadPlanner planner(Retry());
  UploadHistory history{.first_attempt = kStart};
  const UploadDecision capped = planner.AfterAttempt(Error(absl::StatusCode::kPermissionDenied),
                                                     history, At(kStart, kStart + 1s), 0.5);
  EXPECT_EQ(capped.retry_at, kStart + 1s);
  const UploadDecision dropped = planner.AfterAttempt(Error(absl::StatusCode::kUnavailable),
                                                      history, At(kStart + 1s, kStart + 1s), 0.5);
  EXPECT_EQ(dropped.action, Action::kDrop);
  EXPECT_EQ(dropped.drop_reason, DropReason::kShutdown);
}

}  // namespace
}  // namespace rayagg
