// DurationStats at the int64 edges: durations come from timestamps anyone
// with write access to the bucket chooses, and stats from index files, so
// sums and counts reach INT64_MAX and stop there (no overflow, which UBSan
// reports in the clang-asan leg), and percentiles stay defined.
#include "history/index/duration_stats.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace rayagg::history {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(DurationStatsTest, AddsAndSubtractsExactlyBelowTheLimits) {
  DurationStats stats;
  stats.Add(2'000);
  stats.Add(5'000, 3);
  EXPECT_EQ(stats.count(), 4);
  EXPECT_EQ(stats.sum_ns(), 17'000);
  EXPECT_EQ(stats.max_ns(), 5'000);
  DurationStats other;
  other.Add(5'000, 3);
  stats.Merge(other, -1);
  EXPECT_EQ(stats.count(), 1);
  EXPECT_EQ(stats.sum_ns(), 2'000);
  EXPECT_NEAR(stats.Quantile(1.0), 2'000, 2'000 * 0.045);  // a bucket's middle
}

TEST(DurationStatsTest, SumSaturatesAtInt64Max) {
  DurationStats stats;
  stats.Add(kMax);
  EXPECT_EQ(stats.sum_ns(), kMax);
  stats.Add(kMax);  // kMax + kMax
  EXPECT_EQ(stats.sum_ns(), kMax);
  EXPECT_EQ(stats.count(), 2);
  EXPECT_EQ(stats.max_ns(), kMax);
  stats.Add(kMax / 2 + 1, 3);  // the product overflows before the sum
  EXPECT_EQ(stats.sum_ns(), kMax);
  EXPECT_EQ(stats.count(), 5);
  // Read from the histogram: the largest bucket's middle, near kMax.
  EXPECT_GT(stats.Quantile(0.5), kMax / 4);
  EXPECT_GT(stats.Quantile(1.0), stats.Quantile(0.5));
}

TEST(DurationStatsTest, CountsSaturateInBothDirections) {
  DurationStats stats;
  stats.Add(1'000, kMax);
  stats.Add(1'000, kMax);
  EXPECT_EQ(stats.count(), kMax);
  EXPECT_EQ(stats.sum_ns(), kMax);
  // The quantile's rank is computed in double: at kMax it is 2^63, which
  // has no int64 value.
  EXPECT_EQ(stats.Quantile(1.0), 1'000);
  EXPECT_EQ(stats.Quantile(0.5), 1'000);
  EXPECT_EQ(stats.Octaves().size(), 1u);

  DurationStats removed;
  removed.Add(1'000, kMin);
  removed.Add(1'000, -1);
  EXPECT_EQ(removed.count(), kMin);
  EXPECT_EQ(removed.Quantile(0.5), 0);  // nothing counted: no quantile
}

TEST(DurationStatsTest, MergeSaturatesIncludingTheNegationOfInt64Min) {
  DurationStats huge;
  huge.Add(kMax, kMax);
  DurationStats stats;
  stats.Add(kMax);
  stats.Merge(huge);
  EXPECT_EQ(stats.count(), kMax);
  EXPECT_EQ(stats.sum_ns(), kMax);

  DurationStats most_negative;
  most_negative.Add(0, kMin);  // count kMin: -count is not an int64
  DurationStats target;
  target.Merge(most_negative, -1);
  EXPECT_EQ(target.count(), kMax);
  target.Merge(most_negative, -1);
  EXPECT_EQ(target.count(), kMax);
}

TEST(DurationStatsTest, EncodedExtremesDecodeToTheSameStats) {
  DurationStats stats;
  stats.Add(kMax, 2);
  stats.Add(0, 5);
  std::string encoded;
  stats.EncodeTo(encoded);
  std::string_view in = encoded;
  DurationStats decoded;
  ASSERT_TRUE(decoded.DecodeFrom(in).ok());
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(decoded, stats);
}

// A stored histogram whose bucket numbers run past the bucket of INT64_MAX
// is corrupt, whatever the deltas add up to.
TEST(DurationStatsTest, BucketsBeyondTheLargestDurationAreCorrupt) {
  std::string encoded;
  encoded.push_back(2);  // count 1 (zigzag)
  encoded.push_back(0);  // sum 0
  encoded.push_back(0);  // max 0
  encoded.push_back(2);  // two buckets
  for (int i = 0; i < 2; ++i) {
    encoded.push_back(static_cast<char>(0x80 | (4000 & 0x7f)));  // delta 4000 (<= 4096)
    encoded.push_back(static_cast<char>(4000 >> 7));
    encoded.push_back(2);  // count 1
  }
  std::string_view in = encoded;
  DurationStats decoded;
  EXPECT_FALSE(decoded.DecodeFrom(in).ok());
}

}  // namespace
}  // namespace rayagg::history
