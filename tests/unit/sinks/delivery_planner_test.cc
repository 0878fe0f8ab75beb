// The delivery planner against docs/DELIVERY.md: every row of "What an
// answer means" under both retry policies, then the retry limits,
// max_elapsed, Retry-After, the jitter's bounds and the drain deadline.
// Times are plain values: nothing here waits or reads a clock.
#include "sinks/delivery_planner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

namespace rayagg {
namespace {

using Action = DeliveryDecision::Action;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

// An arbitrary steady time for the first attempt.
const SteadyTime kStart = SteadyTime{} + hours(1);
// Sun, 06 Nov 1994 08:49:37 GMT.
const WallTime kWallNow = std::chrono::system_clock::from_time_t(784111777);
// The largest draw below 1.
const double kAlmostOne = std::nextafter(1.0, 0.0);

DeliveryOutcome Status(unsigned status, std::optional<std::string> retry_after = std::nullopt) {
  return DeliveryOutcome{.failure = "status " + std::to_string(status),
                         .status = status,
                         .retry_after = std::move(retry_after)};
}
DeliveryOutcome NetworkFailure(std::string failure, FailureReason reason) {
  return DeliveryOutcome{.failure = std::move(failure), .reason = reason};
}

// Backoff without jitter, so a retry's time says which rule set it:
// 100 ms doubling to 1.6 s.
RetryConfig Steady() {
  RetryConfig retry;
  retry.initial_backoff = milliseconds(100);
  retry.max_backoff = milliseconds(1600);
  retry.jitter_ratio = 0;
  return retry;
}

DeliveryTimes At(SteadyTime now, std::optional<SteadyTime> drain_deadline = std::nullopt) {
  return DeliveryTimes{.now = now, .wall_now = kWallNow, .drain_deadline = drain_deadline};
}

// ---------------------------------------------------------------------------
// "What an answer means": one case per row, status and policy.

struct Expected {
  Action action;
  FailureReason failure = FailureReason::kOther;
  DropReason drop_reason = DropReason::kShutdown;
};
const Expected kDone{Action::kDone};
Expected Retry(FailureReason failure) { return {Action::kRetry, failure}; }
Expected Split() { return {Action::kSplit, FailureReason::kHttp413}; }
Expected Dropped(FailureReason failure, DropReason reason) {
  return {Action::kDrop, failure, reason};
}

struct Row {
  std::string name;  // the row of the table, and what makes it specific
  DeliveryOutcome outcome;
  size_t events;
  Expected by_default;
  Expected by_ray_compat;
};

std::vector<Row> StatusRows(const std::string& row, std::vector<unsigned> statuses, size_t events,
                            Expected by_default, Expected by_ray_compat) {
  std::vector<Row> rows;
  for (unsigned status : statuses) {
    rows.push_back(
        {row + "_" + std::to_string(status), Status(status), events, by_default, by_ray_compat});
  }
  return rows;
}

std::vector<Row> AnswerTable() {
  std::vector<Row> rows;
  auto add = [&rows](std::vector<Row> more) { rows.insert(rows.end(), more.begin(), more.end()); };
  add(StatusRows("Success2xx", {200, 201, 202, 204, 299}, 10, kDone, kDone));
  add(StatusRows("Redirect3xx", {300, 301, 302, 303, 307, 308}, 10,
                 Dropped(FailureReason::kHttp3xx, DropReason::kRejected), kDone));
  add(StatusRows("RequestTimeout408", {408}, 10, Retry(FailureReason::kHttp408),
                 Retry(FailureReason::kHttp408)));
  add(StatusRows("TooManyRequests429", {429}, 10, Retry(FailureReason::kHttp429),
                 Retry(FailureReason::kHttp429)));
  add(StatusRows("TooLarge413OnManyEvents", {413}, 10, Split(), Retry(FailureReason::kHttp413)));
  add(StatusRows("TooLarge413OnTwoEvents", {413}, 2, Split(), Retry(FailureReason::kHttp413)));
  add(StatusRows("TooLarge413OnOneEvent", {413}, 1,
                 Dropped(FailureReason::kHttp413, DropReason::kTooLarge),
                 Retry(FailureReason::kHttp413)));
  add(StatusRows("Other4xx", {400, 401, 403, 404, 409, 422, 451, 499}, 10,
                 Dropped(FailureReason::kHttp4xx, DropReason::kRejected),
                 Retry(FailureReason::kHttp4xx)));
  add(StatusRows("ServerError5xx", {500, 502, 503, 504, 599}, 10, Retry(FailureReason::kHttp5xx),
                 Retry(FailureReason::kHttp5xx)));
  add(StatusRows("NotImplemented501", {501}, 10,
                 Dropped(FailureReason::kHttp501, DropReason::kRejected),
                 Retry(FailureReason::kHttp501)));
  for (const char* failure :
       {"ConnectionRefused", "ConnectionReset", "ClosedMidAnswer", "DnsFailure"}) {
    rows.push_back({failure, NetworkFailure(failure, FailureReason::kConnection), 10,
                    Retry(FailureReason::kConnection), Retry(FailureReason::kConnection)});
  }
  rows.push_back({"TimedOut", NetworkFailure("timed out", FailureReason::kTimeout), 10,
                  Retry(FailureReason::kTimeout), Retry(FailureReason::kTimeout)});
  // Not in the table, which is about HTTP: the file transport's two answers.
  rows.push_back({"FileWritten", DeliveryOutcome{.delivered = true}, 10, kDone, kDone});
  rows.push_back({"FileWriteFailed", NetworkFailure("no space", FailureReason::kIo), 10,
                  Retry(FailureReason::kIo), Retry(FailureReason::kIo)});
  return rows;
}

struct AnswerCase {
  Row row;
  RetryPolicy policy;
};

std::vector<AnswerCase> AnswerCases() {
  std::vector<AnswerCase> cases;
  for (const Row& row : AnswerTable()) {
    cases.push_back({row, RetryPolicy::kDefault});
    cases.push_back({row, RetryPolicy::kRayCompat});
  }
  return cases;
}

// Names the case in gtest's output instead of dumping its bytes.
void PrintTo(const AnswerCase& answer, std::ostream* out) {
  *out << answer.row.name << (answer.policy == RetryPolicy::kDefault ? " default" : " ray_compat");
}

class AnswerTableTest : public testing::TestWithParam<AnswerCase> {};

TEST_P(AnswerTableTest, DecidesAsTheTableSays) {
  const AnswerCase& test = GetParam();
  const Expected& expected =
      test.policy == RetryPolicy::kDefault ? test.row.by_default : test.row.by_ray_compat;
  const DeliveryPlanner planner(Steady(), test.policy);
  const SteadyTime now = kStart + milliseconds(30);
  const DeliveryDecision decision = planner.AfterAttempt(
      test.row.outcome, test.row.events, DeliveryHistory{.first_attempt = kStart}, At(now), 0.5);
  ASSERT_EQ(decision.action, expected.action);
  if (expected.action == Action::kDone) return;
  EXPECT_EQ(decision.failure, expected.failure);
  EXPECT_EQ(decision.elapsed, milliseconds(30));
  if (expected.action == Action::kDrop) {
    EXPECT_EQ(decision.drop_reason, expected.drop_reason);
  }
  if (expected.action == Action::kRetry) {
    // The first retry waits the initial backoff.
    EXPECT_EQ(decision.retry_at, now + milliseconds(100));
    EXPECT_EQ(decision.wait, milliseconds(100));
  }
}

INSTANTIATE_TEST_SUITE_P(DeliveryPlanner, AnswerTableTest, testing::ValuesIn(AnswerCases()),
                         [](const testing::TestParamInfo<AnswerCase>& answer) {
                           return answer.param.row.name +
                                  (answer.param.policy == RetryPolicy::kDefault ? "_Default"
                                                                                : "_RayCompat");
                         });

// ---------------------------------------------------------------------------
// Retry limits.

DeliveryDecision AfterFailure(const DeliveryPlanner& planner, DeliveryHistory history,
                              const DeliveryTimes& times, double unit_random = 0.5,
                              std::optional<std::string> retry_after = std::nullopt) {
  return planner.AfterAttempt(Status(503, std::move(retry_after)), 10, history, times, unit_random);
}

TEST(DeliveryPlannerTest, UnlimitedRetriesByDefault) {
  const DeliveryPlanner planner(Steady(), RetryPolicy::kDefault);
  for (uint64_t retries : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{1} << 40}) {
    EXPECT_EQ(AfterFailure(planner, {kStart, retries}, At(kStart)).action, Action::kRetry)
        << retries;
  }
}

TEST(DeliveryPlannerTest, MaxRetriesAllowsThatManyRetriesThenDrops) {
  RetryConfig retry = Steady();
  retry.max_retries = 3;
  const DeliveryPlanner planner(retry, RetryPolicy::kDefault);
  for (uint64_t retries = 0; retries < 3; ++retries) {
    EXPECT_EQ(AfterFailure(planner, {kStart, retries}, At(kStart)).action, Action::kRetry)
        << retries;
  }
  const DeliveryDecision last = AfterFailure(planner, {kStart, 3}, At(kStart + seconds(2)));
  EXPECT_EQ(last.action, Action::kDrop);
  EXPECT_EQ(last.drop_reason, DropReason::kRetriesExhausted);
  EXPECT_EQ(last.failure, FailureReason::kHttp5xx);
  EXPECT_EQ(last.elapsed, seconds(2));
}

TEST(DeliveryPlannerTest, MaxRetriesZeroDropsAfterTheFirstFailure) {
  RetryConfig retry = Steady();
  retry.max_retries = 0;
  const DeliveryPlanner planner(retry, RetryPolicy::kRayCompat);
  const DeliveryDecision decision = AfterFailure(planner, {kStart, 0}, At(kStart));
  EXPECT_EQ(decision.action, Action::kDrop);
  EXPECT_EQ(decision.drop_reason, DropReason::kRetriesExhausted);
}

TEST(DeliveryPlannerTest, RetryLimitsDoNotApplyToAnswersThatAreNotRetried) {
  RetryConfig retry = Steady();
  retry.max_retries = 0;
  const DeliveryPlanner planner(retry, RetryPolicy::kDefault);
  EXPECT_EQ(planner.AfterAttempt(Status(413), 4, {kStart, 0}, At(kStart), 0.5).action,
            Action::kSplit);
  const DeliveryDecision rejected =
      planner.AfterAttempt(Status(400), 4, {kStart, 0}, At(kStart), 0.5);
  EXPECT_EQ(rejected.action, Action::kDrop);
  EXPECT_EQ(rejected.drop_reason, DropReason::kRejected);
}

TEST(DeliveryPlannerTest, BackoffDoublesWithEachRetryUpToItsCap) {
  const DeliveryPlanner planner(Steady(), RetryPolicy::kDefault);
  const SteadyTime now = kStart + seconds(10);
  const std::vector<milliseconds> waits = {milliseconds(100),  milliseconds(200),
                                           milliseconds(400),  milliseconds(800),
                                           milliseconds(1600), milliseconds(1600)};
  for (uint64_t retries = 0; retries < waits.size(); ++retries) {
    const DeliveryDecision decision = AfterFailure(planner, {kStart, retries}, At(now));
    EXPECT_EQ(decision.retry_at, now + waits[retries]) << retries;
    EXPECT_EQ(decision.wait, waits[retries]) << retries;
  }
}

// ---------------------------------------------------------------------------
// max_elapsed.

RetryConfig WithMaxElapsed() {
  RetryConfig retry = Steady();
  retry.max_elapsed = seconds(1);
  return retry;
}

TEST(DeliveryPlannerTest, MaxElapsedDoesNotShortenAWaitThatEndsBeforeIt) {
  const DeliveryPlanner planner(WithMaxElapsed(), RetryPolicy::kDefault);
  const DeliveryDecision decision =
      AfterFailure(planner, {kStart, 1}, At(kStart + milliseconds(300)));
  EXPECT_EQ(decision.action, Action::kRetry);
  EXPECT_EQ(decision.retry_at, kStart + milliseconds(500));  // 300 + 200 ms
}

TEST(DeliveryPlannerTest, MaxElapsedMakesTheLastAttemptAtTheLimitRatherThanSleepingPastIt) {
  const DeliveryPlanner planner(WithMaxElapsed(), RetryPolicy::kDefault);
  // The third retry would wait 400 ms, until 1.1 s.
  const DeliveryDecision decision =
      AfterFailure(planner, {kStart, 2}, At(kStart + milliseconds(700)));
  EXPECT_EQ(decision.action, Action::kRetry);
  EXPECT_EQ(decision.retry_at, kStart + seconds(1));
  EXPECT_EQ(decision.wait, milliseconds(300));
}

TEST(DeliveryPlannerTest, MaxElapsedDropsWhenTheAttemptAtTheLimitFails) {
  const DeliveryPlanner planner(WithMaxElapsed(), RetryPolicy::kRayCompat);
  for (const SteadyTime now : {kStart + seconds(1), kStart + milliseconds(1300)}) {
    const DeliveryDecision decision = AfterFailure(planner, {kStart, 3}, At(now));
    EXPECT_EQ(decision.action, Action::kDrop);
    EXPECT_EQ(decision.drop_reason, DropReason::kRetriesExhausted);
    EXPECT_EQ(decision.elapsed, now - kStart);
  }
}

TEST(DeliveryPlannerTest, MaxElapsedZeroMeansNoLimit) {
  const DeliveryPlanner planner(Steady(), RetryPolicy::kDefault);
  const DeliveryDecision decision = AfterFailure(planner, {kStart, 9}, At(kStart + hours(24)));
  EXPECT_EQ(decision.action, Action::kRetry);
  EXPECT_EQ(decision.retry_at, kStart + hours(24) + milliseconds(1600));
}

// ---------------------------------------------------------------------------
// Retry-After: the larger of the backoff and the asked wait, within
// max_retry_after (default one minute).

milliseconds RetryAfterWait(const std::string& value, RetryPolicy policy = RetryPolicy::kDefault,
                            unsigned status = 503) {
  const DeliveryPlanner planner(Steady(), policy);
  const DeliveryDecision decision =
      planner.AfterAttempt(Status(status, value), 10, {kStart, 0}, At(kStart), 0.5);
  EXPECT_EQ(decision.action, Action::kRetry) << value;
  EXPECT_EQ(decision.retry_at, kStart + decision.wait) << value;
  return decision.wait;
}

TEST(DeliveryPlannerTest, RetryAfterDeltaSeconds) {
  EXPECT_EQ(RetryAfterWait("3"), seconds(3));
  EXPECT_EQ(RetryAfterWait("3", RetryPolicy::kRayCompat), seconds(3));
  EXPECT_EQ(RetryAfterWait("3", RetryPolicy::kDefault, 429), seconds(3));
  // ray_compat retries a 413 and honours its Retry-After too.
  EXPECT_EQ(RetryAfterWait("3", RetryPolicy::kRayCompat, 413), seconds(3));
}

TEST(DeliveryPlannerTest, RetryAfterHttpDate) {
  EXPECT_EQ(RetryAfterWait("Sun, 06 Nov 1994 08:49:44 GMT"), seconds(7));
  EXPECT_EQ(RetryAfterWait("Sunday, 06-Nov-94 08:49:44 GMT"), seconds(7));
  EXPECT_EQ(RetryAfterWait("Sun Nov  6 08:49:44 1994"), seconds(7));
}

TEST(DeliveryPlannerTest, RetryAfterDateInThePastLeavesTheBackoff) {
  EXPECT_EQ(RetryAfterWait("Sun, 06 Nov 1994 08:49:30 GMT"), milliseconds(100));
}

TEST(DeliveryPlannerTest, RetryAfterOverTheCapIsCutToIt) {
  EXPECT_EQ(RetryAfterWait("120"), seconds(60));
  EXPECT_EQ(RetryAfterWait("99999999999999999999999"), seconds(60));
  EXPECT_EQ(RetryAfterWait("Mon, 07 Nov 1994 08:49:37 GMT"), seconds(60));
  RetryConfig retry = Steady();
  retry.max_retry_after = seconds(5);
  const DeliveryPlanner planner(retry, RetryPolicy::kDefault);
  EXPECT_EQ(AfterFailure(planner, {kStart, 0}, At(kStart), 0.5, "30").wait, seconds(5));
}

TEST(DeliveryPlannerTest, RetryAfterSmallerThanTheBackoffLeavesTheBackoff) {
  const DeliveryPlanner planner(Steady(), RetryPolicy::kDefault);
  // The fifth retry backs off 1.6 s.
  EXPECT_EQ(AfterFailure(planner, {kStart, 4}, At(kStart), 0.5, "1").wait, milliseconds(1600));
  EXPECT_EQ(AfterFailure(planner, {kStart, 4}, At(kStart), 0.5, "0").wait, milliseconds(1600));
}

TEST(DeliveryPlannerTest, UnparsableRetryAfterIsIgnored) {
  for (const char* value : {"soon", "", "1.5", "-1", "Sun, 06 Nov 1994 08:49:44 PST"}) {
    EXPECT_EQ(RetryAfterWait(value), milliseconds(100)) << value;
  }
}

TEST(DeliveryPlannerTest, RetryAfterOnAnAnswerThatIsNotRetriedChangesNothing) {
  const DeliveryPlanner planner(Steady(), RetryPolicy::kDefault);
  const DeliveryDecision decision =
      planner.AfterAttempt(Status(400, "5"), 10, {kStart, 0}, At(kStart), 0.5);
  EXPECT_EQ(decision.action, Action::kDrop);
  EXPECT_EQ(decision.drop_reason, DropReason::kRejected);
}

TEST(DeliveryPlannerTest, RetryAfterStillEndsAtMaxElapsed) {
  const DeliveryPlanner planner(WithMaxElapsed(), RetryPolicy::kDefault);
  const DeliveryDecision decision = AfterFailure(planner, {kStart, 0}, At(kStart), 0.5, "30");
  EXPECT_EQ(decision.action, Action::kRetry);
  EXPECT_EQ(decision.retry_at, kStart + seconds(1));
}

// ---------------------------------------------------------------------------
// Jitter: the draw spans the whole range and never leaves it.

TEST(DeliveryPlannerTest, FullJitterSpansZeroToTheStep) {
  RetryConfig retry = Steady();
  retry.jitter_ratio.reset();  // full jitter, the default policy's choice
  const DeliveryPlanner planner(retry, RetryPolicy::kDefault);
  // Third retry: a 400 ms step.
  EXPECT_EQ(AfterFailure(planner, {kStart, 2}, At(kStart), 0.0).retry_at, kStart);
  EXPECT_EQ(AfterFailure(planner, {kStart, 2}, At(kStart), kAlmostOne).wait, milliseconds(400));
  // At the cap.
  EXPECT_EQ(AfterFailure(planner, {kStart, 50}, At(kStart), 0.0).wait, milliseconds(0));
  EXPECT_EQ(AfterFailure(planner, {kStart, 50}, At(kStart), kAlmostOne).wait, milliseconds(1600));
}

TEST(DeliveryPlannerTest, RayCompatJittersTenPercentEitherWay) {
  RetryConfig retry = Steady();
  retry.jitter_ratio.reset();
  const DeliveryPlanner planner(retry, RetryPolicy::kRayCompat);
  EXPECT_EQ(AfterFailure(planner, {kStart, 2}, At(kStart), 0.0).wait, milliseconds(360));
  EXPECT_EQ(AfterFailure(planner, {kStart, 2}, At(kStart), kAlmostOne).wait, milliseconds(440));
  EXPECT_EQ(AfterFailure(planner, {kStart, 50}, At(kStart), 0.0).wait, milliseconds(1440));
  EXPECT_EQ(AfterFailure(planner, {kStart, 50}, At(kStart), kAlmostOne).wait, milliseconds(1760));
}

TEST(DeliveryPlannerTest, AConfiguredJitterRatioAppliesUnderEitherPolicy) {
  RetryConfig retry = Steady();
  retry.jitter_ratio = 0.5;
  for (RetryPolicy policy : {RetryPolicy::kDefault, RetryPolicy::kRayCompat}) {
    const DeliveryPlanner planner(retry, policy);
    EXPECT_EQ(AfterFailure(planner, {kStart, 2}, At(kStart), 0.0).wait, milliseconds(200));
    EXPECT_EQ(AfterFailure(planner, {kStart, 2}, At(kStart), kAlmostOne).wait, milliseconds(600));
  }
}

// ---------------------------------------------------------------------------
// Drain: retries wait no longer than the deadline; at or after it the batch
// is dropped (`shutdown`).

TEST(DeliveryPlannerTest, DrainExpiredOnlyAtOrAfterTheDeadline) {
  const SteadyTime deadline = kStart + seconds(5);
  EXPECT_FALSE(DeliveryPlanner::DrainExpired(At(kStart + hours(100))));
  EXPECT_FALSE(DeliveryPlanner::DrainExpired(At(deadline - milliseconds(1), deadline)));
  EXPECT_TRUE(DeliveryPlanner::DrainExpired(At(deadline, deadline)));
  EXPECT_TRUE(DeliveryPlanner::DrainExpired(At(deadline + seconds(1), deadline)));
}

TEST(DeliveryPlannerTest, DrainingCapsTheRetryAtTheDeadline) {
  const DeliveryPlanner planner(Steady(), RetryPolicy::kDefault);
  const SteadyTime deadline = kStart + milliseconds(150);
  const DeliveryDecision capped = AfterFailure(planner, {kStart, 1}, At(kStart, deadline));
  EXPECT_EQ(capped.action, Action::kRetry);
  EXPECT_EQ(capped.retry_at, deadline);  // not 200 ms
  EXPECT_EQ(capped.wait, milliseconds(150));
  // Retry-After too.
  EXPECT_EQ(AfterFailure(planner, {kStart, 0}, At(kStart, deadline), 0.5, "30").retry_at, deadline);
}

TEST(DeliveryPlannerTest, DrainingLeavesAnEarlierRetryAlone) {
  const DeliveryPlanner planner(Steady(), RetryPolicy::kDefault);
  const DeliveryDecision decision =
      AfterFailure(planner, {kStart, 0}, At(kStart, kStart + seconds(5)));
  EXPECT_EQ(decision.retry_at, kStart + milliseconds(100));
}

TEST(DeliveryPlannerTest, ARateWaitEndsByTheDrainDeadline) {
  const SteadyTime deadline = kStart + seconds(5);
  const SteadyTime rate_not_before = kStart + seconds(8);
  EXPECT_EQ(DeliveryPlanner::FirstAttemptAt(rate_not_before, At(kStart)), rate_not_before);
  EXPECT_EQ(DeliveryPlanner::FirstAttemptAt(rate_not_before, At(kStart, deadline)), deadline);
  EXPECT_EQ(DeliveryPlanner::FirstAttemptAt(kStart + seconds(1), At(kStart, deadline)),
            kStart + seconds(1));
}

TEST(DeliveryPlannerTest, AFailureAtOrAfterTheDrainDeadlineDropsTheBatch) {
  for (RetryPolicy policy : {RetryPolicy::kDefault, RetryPolicy::kRayCompat}) {
    const DeliveryPlanner planner(Steady(), policy);
    const SteadyTime deadline = kStart + seconds(5);
    for (const SteadyTime now : {deadline, deadline + seconds(1)}) {
      const DeliveryDecision decision = AfterFailure(planner, {kStart, 7}, At(now, deadline));
      EXPECT_EQ(decision.action, Action::kDrop);
      EXPECT_EQ(decision.drop_reason, DropReason::kShutdown);
      EXPECT_EQ(decision.failure, FailureReason::kHttp5xx);
    }
  }
}

TEST(DeliveryPlannerTest, AnAnswerAfterTheDrainDeadlineStillCounts) {
  const DeliveryPlanner planner(Steady(), RetryPolicy::kDefault);
  const SteadyTime deadline = kStart + seconds(5);
  const DeliveryTimes late = At(deadline + seconds(1), deadline);
  EXPECT_EQ(planner.AfterAttempt(Status(200), 10, {kStart, 3}, late, 0.5).action, Action::kDone);
  EXPECT_EQ(planner.AfterAttempt(Status(413), 10, {kStart, 3}, late, 0.5).action, Action::kSplit);
  EXPECT_EQ(planner.AfterAttempt(Status(400), 10, {kStart, 3}, late, 0.5).drop_reason,
            DropReason::kRejected);
}

TEST(DeliveryPlannerTest, ExhaustedRetriesAreCountedAsSuchEvenWhenTheDrainDeadlinePassed) {
  RetryConfig retry = Steady();
  retry.max_retries = 2;
  const DeliveryPlanner planner(retry, RetryPolicy::kDefault);
  const SteadyTime deadline = kStart + seconds(5);
  const DeliveryDecision decision = AfterFailure(planner, {kStart, 2}, At(deadline, deadline));
  EXPECT_EQ(decision.drop_reason, DropReason::kRetriesExhausted);
}

}  // namespace
}  // namespace rayagg
