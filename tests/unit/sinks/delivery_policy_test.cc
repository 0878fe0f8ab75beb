// The classification table of docs/DELIVERY.md, both policies, and
// Retry-After parsing.
#include "sinks/delivery_policy.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

using std::chrono::system_clock;

DeliveryOutcome Status(unsigned status) { return DeliveryOutcome{.status = status}; }

Verdict DefaultVerdict(unsigned status) {
  return Classify(RetryPolicy::kDefault, Status(status)).verdict;
}
Verdict RayVerdict(unsigned status) {
  return Classify(RetryPolicy::kRayCompat, Status(status)).verdict;
}

TEST(DeliveryPolicyTest, DefaultPolicyTable) {
  for (unsigned status : {200u, 201u, 202u, 204u, 299u}) {
    EXPECT_EQ(DefaultVerdict(status), Verdict::kSuccess) << status;
  }
  for (unsigned status : {408u, 429u, 500u, 502u, 503u, 504u, 599u}) {
    EXPECT_EQ(DefaultVerdict(status), Verdict::kRetry) << status;
  }
  EXPECT_EQ(DefaultVerdict(413), Verdict::kSplit);
  for (unsigned status : {300u, 301u, 302u, 307u, 308u, 400u, 401u, 403u, 404u, 422u, 501u}) {
    EXPECT_EQ(DefaultVerdict(status), Verdict::kReject) << status;
  }
}

TEST(DeliveryPolicyTest, RayCompatSucceedsBelow400AndRetriesEverythingElse) {
  for (unsigned status : {200u, 204u, 301u, 302u, 399u}) {
    EXPECT_EQ(RayVerdict(status), Verdict::kSuccess) << status;
  }
  for (unsigned status : {400u, 404u, 408u, 413u, 429u, 500u, 501u, 503u}) {
    EXPECT_EQ(RayVerdict(status), Verdict::kRetry) << status;
  }
}

TEST(DeliveryPolicyTest, NetworkErrorsAreRetriedUnderBothPolicies) {
  for (RetryPolicy policy : {RetryPolicy::kDefault, RetryPolicy::kRayCompat}) {
    const Classification timeout = Classify(
        policy, DeliveryOutcome{.failure = "timed out", .reason = FailureReason::kTimeout});
    EXPECT_EQ(timeout.verdict, Verdict::kRetry);
    EXPECT_EQ(timeout.reason, FailureReason::kTimeout);
    const Classification reset =
        Classify(policy, DeliveryOutcome{.failure = "reset", .reason = FailureReason::kConnection});
    EXPECT_EQ(reset.verdict, Verdict::kRetry);
    EXPECT_EQ(reset.reason, FailureReason::kConnection);
    EXPECT_EQ(Classify(policy, DeliveryOutcome{.delivered = true}).verdict, Verdict::kSuccess);
  }
}

TEST(DeliveryPolicyTest, FailureReasons) {
  EXPECT_EQ(Classify(RetryPolicy::kDefault, Status(503)).reason, FailureReason::kHttp5xx);
  EXPECT_EQ(Classify(RetryPolicy::kDefault, Status(501)).reason, FailureReason::kHttp501);
  EXPECT_EQ(Classify(RetryPolicy::kDefault, Status(429)).reason, FailureReason::kHttp429);
  EXPECT_EQ(Classify(RetryPolicy::kDefault, Status(408)).reason, FailureReason::kHttp408);
  EXPECT_EQ(Classify(RetryPolicy::kDefault, Status(413)).reason, FailureReason::kHttp413);
  EXPECT_EQ(Classify(RetryPolicy::kDefault, Status(404)).reason, FailureReason::kHttp4xx);
  EXPECT_EQ(Classify(RetryPolicy::kDefault, Status(308)).reason, FailureReason::kHttp3xx);
  EXPECT_EQ(FailureReasonName(FailureReason::kHttp5xx), "http_5xx");
}

TEST(DeliveryPolicyTest, RetryAfterDeltaSeconds) {
  const system_clock::time_point now{std::chrono::seconds(1'767'225'600)};  // any time will do
  EXPECT_EQ(ParseRetryAfter("120", now), Duration(120'000));
  EXPECT_EQ(ParseRetryAfter(" 0 ", now), Duration(0));
  EXPECT_EQ(ParseRetryAfter("99999999999999999999999", now), Duration::max());
  EXPECT_EQ(ParseRetryAfter("-1", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("1.5", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("soon", now), std::nullopt);
}

TEST(DeliveryPolicyTest, RetryAfterHttpDateInAllThreeForms) {
  // Sun, 06 Nov 1994 08:49:37 GMT
  const auto date = system_clock::from_time_t(784111777);
  const auto now = date - std::chrono::seconds(90);
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now), Duration(90'000));
  EXPECT_EQ(ParseRetryAfter("Sunday, 06-Nov-94 08:49:37 GMT", now), Duration(90'000));
  EXPECT_EQ(ParseRetryAfter("Sun Nov  6 08:49:37 1994", now), Duration(90'000));
  // A date already passed asks for no wait.
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", date + std::chrono::hours(1)),
            Duration(0));
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 PST", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994", now), std::nullopt);
}

// Found by tests/fuzz/http_response_fuzz: a date past 2262 overflowed
// system_clock's 64-bit nanoseconds (undefined behaviour).
TEST(DeliveryPolicyTest, RetryAfterDatesBeyondTheClocksRange) {
  const auto now = system_clock::from_time_t(784111777);
  // The distant future: as long as a wait can be (max_retry_after caps it).
  const std::optional<Duration> far = ParseRetryAfter("Thu, 03 Dec 4756 10:04:05 GMT", now);
  ASSERT_TRUE(far.has_value());
  EXPECT_GT(*far, Duration(std::chrono::hours(24 * 365 * 200)));
  // The distant past: no wait.
  EXPECT_EQ(ParseRetryAfter("Mon, 01 Jan 0001 00:00:00 GMT", now), Duration(0));
}

}  // namespace
}  // namespace rayagg
