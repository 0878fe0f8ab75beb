#include "sinks/backoff.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

RetryConfig RayDefaults() { return RetryConfig{}; }

TEST(BackoffTest, DoublesFromInitialWithoutJitterAtMidpoint) {
  Backoff backoff(RayDefaults());
  // unit_random 0.5 means a jitter factor of exactly 1.
  EXPECT_EQ(backoff.Delay(1, 0.5), Duration(10));
  EXPECT_EQ(backoff.Delay(2, 0.5), Duration(20));
  EXPECT_EQ(backoff.Delay(3, 0.5), Duration(40));
  EXPECT_EQ(backoff.Delay(9, 0.5), Duration(2560));
}

TEST(BackoffTest, CapsAtMaxBackoff) {
  Backoff backoff(RayDefaults());
  EXPECT_EQ(backoff.Delay(10, 0.5), Duration(5000));
  EXPECT_EQ(backoff.Delay(1000, 0.5), Duration(5000));
  EXPECT_EQ(backoff.Delay(~uint64_t{0}, 0.5), Duration(5000));
}

TEST(BackoffTest, JitterStaysWithinRatio) {
  Backoff backoff(RayDefaults());
  EXPECT_EQ(backoff.Delay(4, 0.0), Duration(72));    // 80 ms - 10 %
  EXPECT_EQ(backoff.Delay(4, 0.999999), Duration(88));  // just under 80 ms + 10 %
  EXPECT_EQ(backoff.Delay(20, 0.0), Duration(4500));
}

TEST(BackoffTest, ZeroJitterIsDeterministic) {
  RetryConfig config;
  config.jitter_ratio = 0;
  config.initial_backoff = Duration(100);
  config.max_backoff = Duration(250);
  Backoff backoff(config);
  EXPECT_EQ(backoff.Delay(1, 0.0), Duration(100));
  EXPECT_EQ(backoff.Delay(2, 0.9), Duration(200));
  EXPECT_EQ(backoff.Delay(3, 0.3), Duration(250));
}

}  // namespace
}  // namespace rayagg
