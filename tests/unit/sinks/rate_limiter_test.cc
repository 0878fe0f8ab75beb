#include "sinks/rate_limiter.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

using std::chrono::milliseconds;
using Clock = RateLimiter::Clock;
// Pure arithmetic on the time it is given: any time will do.
constexpr Clock::time_point kStart{std::chrono::hours(1000)};

TEST(RateLimiterTest, ZeroMeansNoLimit) {
  RateLimiter limiter(0, 1);
  const Clock::time_point now = kStart;
  for (int i = 0; i < 100; ++i) EXPECT_EQ(limiter.Reserve(1'000'000, now), now);
}

TEST(RateLimiterTest, BurstPassesThenTheRateHolds) {
  RateLimiter limiter(1000, 1000);  // 1000 events/s, a bucket of 1000
  const Clock::time_point start = kStart;
  EXPECT_EQ(limiter.Reserve(500, start), start);
  EXPECT_EQ(limiter.Reserve(500, start), start);  // the bucket is now empty
  EXPECT_EQ(limiter.Reserve(500, start), start + milliseconds(500));
  EXPECT_EQ(limiter.Reserve(500, start), start + milliseconds(1000));
}

TEST(RateLimiterTest, BucketRefillsWhileIdle) {
  RateLimiter limiter(100, 100);
  const Clock::time_point start = kStart;
  EXPECT_EQ(limiter.Reserve(100, start), start);
  // After 10 s idle the bucket is full again, never fuller.
  const Clock::time_point later = start + std::chrono::seconds(10);
  EXPECT_EQ(limiter.Reserve(100, later), later);
  EXPECT_EQ(limiter.Reserve(50, later), later + milliseconds(500));
}

TEST(RateLimiterTest, BookingAboveTheBurstWaitsForAFullBucketThenOverdraws) {
  RateLimiter limiter(100, 10);
  const Clock::time_point start = kStart;
  EXPECT_EQ(limiter.Reserve(1000, start), start);                           // full bucket: goes
  EXPECT_EQ(limiter.Reserve(10, start), start + std::chrono::seconds(10));  // after the debt
}

}  // namespace
}  // namespace rayagg
