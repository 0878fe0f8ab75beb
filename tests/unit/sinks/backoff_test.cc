#include "sinks/backoff.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

RetryConfig RayDefaults() { return RetryConfig{}; }

TEST(BackoffTest, DoublesFromInitialWithoutJitterAtMidpoint) {
  Backoff backoff(RayDefaults(), RetryPolicy::kRayCompat);
  // unit_random 0.5 means a jitter factor of exactly 1.
  EXPECT_EQ(backoff.Delay(1, 0.5), Duration(10));
  EXPECT_EQ(backoff.Delay(2, 0.5), Duration(20));
  EXPECT_EQ(backoff.Delay(3, 0.5), Duration(40));
  EXPECT_EQ(backoff.Delay(9, 0.5), Duration(2560));
}

TEST(BackoffTest, CapsAtMaxBackoff) {
  Backoff backoff(RayDefaults(), RetryPolicy::kRayCompat);
  EXPECT_EQ(backoff.Delay(10, 0.5), Duration(5000));
  EXPECT_EQ(backoff.Delay(1000, 0.5), Duration(5000));
  EXPECT_EQ(backoff.Delay(~uint64_t{0}, 0.5), Duration(5000));
}

TEST(BackoffTest, JitterStaysWithinRatio) {
  Backoff backoff(RayDefaults(), RetryPolicy::kRayCompat);
  EXPECT_EQ(backoff.Delay(4, 0.0), Duration(72));       // 80 ms - 10 %
  EXPECT_EQ(backoff.Delay(4, 0.999999), Duration(88));  // just under 80 ms + 10 %
  EXPECT_EQ(backoff.Delay(20, 0.0), Duration(4500));
}

TEST(BackoffTest, ZeroJitterIsDeterministic) {
  RetryConfig config;
  config.jitter_ratio = 0;
  config.initial_backoff = Duration(100);
  config.max_backoff = Duration(250);
  Backoff backoff(config, RetryPolicy::kDefault);
  EXPECT_EQ(backoff.Delay(1, 0.0), Duration(100));
  EXPECT_EQ(backoff.Delay(2, 0.9), Duration(200));
  EXPECT_EQ(backoff.Delay(3, 0.3), Duration(250));
}

TEST(BackoffTest, FullJitterByDefaultDrawsFromZeroToTheStep) {
  Backoff backoff(RetryConfig{}, RetryPolicy::kDefault);
  EXPECT_EQ(backoff.Delay(1, 0.0), Duration(0));
  EXPECT_EQ(backoff.Delay(4, 0.5), Duration(40));  // half of the 80 ms step
  EXPECT_EQ(backoff.Delay(4, 0.999999), Duration(80));
  EXPECT_EQ(backoff.Delay(100, 0.25), Duration(1250));  // a quarter of the 5 s cap
}

TEST(BackoffTest, RayCompatUsesRaysTenPercentUnlessARatioIsSet) {
  Backoff ray(RetryConfig{}, RetryPolicy::kRayCompat);
  EXPECT_EQ(ray.Delay(4, 0.0), Duration(72));
  RetryConfig config;
  config.jitter_ratio = 0.5;  // e.g. from PUBLISHER_JITTER_RATIO
  Backoff with_ratio(config, RetryPolicy::kDefault);
  EXPECT_EQ(with_ratio.Delay(4, 0.0), Duration(40));
  EXPECT_EQ(with_ratio.Delay(4, 0.5), Duration(80));
}

}  // namespace
}  // namespace rayagg
