// DurationStats at the int64 edges: durations come from timestamps anyone
// with write access to the bucket chooses, and stats from index files, so
// sums and counts reach INT64_MAX and stop there (no overflow, which UBSan
// reports in the clang-asan leg), and percentiles stay defined. And its
// buckets as exact filters: a bucket's (lower_us, upper_us] selects, as a
// range of a real SQLite column of durations, exactly the bucket's count.
#include "history/index/duration_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "history/index/sqlite.h"
#include "support/temp_dir.h"

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
  EXPECT_NEAR(stats.Quantile(1.0), 2'000, 600);  // a bucket's middle (1-us buckets here)
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

// Durations spread over every scale: log-uniform from 1 ns to ~3 years,
// and some under 1 us.
std::vector<int64_t> RandomDurations(std::mt19937_64& random, size_t n) {
  std::vector<int64_t> out;
  std::uniform_real_distribution<double> exponent(0, 56);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(i % 10 == 0 ? static_cast<int64_t>(random() % 3000)
                              : static_cast<int64_t>(std::exp2(exponent(random))));
  }
  return out;
}

TEST(DurationStatsBuckets, BoundsAreWholeMicrosecondsWithNoGapsAndEveryPowerOfTwo) {
  EXPECT_EQ(DurationStats::BucketBoundsUs(0), (HistogramBucket{-1, 0, 0}));
  EXPECT_EQ(DurationStats::BucketBoundsUs(1), (HistogramBucket{0, 1, 0}));
  EXPECT_EQ(DurationStats::BucketOf(-5), 0);
  EXPECT_EQ(DurationStats::BucketOf(999), 0);
  EXPECT_EQ(DurationStats::BucketOf(1000), 1);
  EXPECT_EQ(DurationStats::BucketOf(kMax), DurationStats::LastBucket());
  EXPECT_EQ(DurationStats::BucketBoundsUs(DurationStats::LastBucket()).upper_us, kMax / 1000);
  int powers = 0;
  for (int b = 1; b <= DurationStats::LastBucket(); ++b) {
    const HistogramBucket bucket = DurationStats::BucketBoundsUs(b);
    EXPECT_EQ(bucket.lower_us, DurationStats::BucketBoundsUs(b - 1).upper_us) << b;
    EXPECT_LT(bucket.lower_us, bucket.upper_us) << b;
    const uint64_t first = static_cast<uint64_t>(bucket.lower_us + 1);
    if ((first & (first - 1)) == 0) ++powers;
  }
  EXPECT_EQ(powers, 54);  // 2^0 .. 2^53 us each start a bucket
}

TEST(DurationStatsBuckets, MembershipIsTheNsRangeOfTheBoundsAtEveryEdge) {
  for (int b = 0; b <= DurationStats::LastBucket(); ++b) {
    const HistogramBucket bounds = DurationStats::BucketBoundsUs(b);
    const NsRange range = DurationStats::NsRangeOfUs(bounds.lower_us, bounds.upper_us);
    ASSERT_LE(range.min_ns, range.max_ns) << b;
    EXPECT_EQ(DurationStats::BucketOf(range.min_ns), b);
    EXPECT_EQ(DurationStats::BucketOf(range.max_ns), b);
    // The predicate the query layer writes: ns >= (lower + 1) * 1000 AND
    // ns < (upper + 1) * 1000 (the last bucket has no upper end).
    EXPECT_EQ(range.min_ns, (bounds.lower_us + 1) * 1000);
    if (b < DurationStats::LastBucket()) {
      EXPECT_EQ(range.max_ns, (bounds.upper_us + 1) * 1000 - 1);
      EXPECT_EQ(DurationStats::BucketOf(range.max_ns + 1), b + 1);
    } else {
      EXPECT_EQ(range.max_ns, kMax);
    }
    if (b > 0) {
      EXPECT_EQ(DurationStats::BucketOf(range.min_ns - 1), b - 1);
    }
  }
  std::mt19937_64 random(30);
  for (int64_t ns : RandomDurations(random, 200'000)) {
    const int b = DurationStats::BucketOf(ns);
    const HistogramBucket bounds = DurationStats::BucketBoundsUs(b);
    const int64_t us = ns / 1000;
    EXPECT_TRUE(us > bounds.lower_us && us <= bounds.upper_us) << ns;
    const NsRange range = DurationStats::NsRangeOfUs(bounds.lower_us, bounds.upper_us);
    EXPECT_TRUE(ns >= range.min_ns && ns <= range.max_ns) << ns;
  }
  // Any bounds, not only a bucket's: nothing below 0 us, nothing above the
  // longest duration.
  EXPECT_EQ(DurationStats::NsRangeOfUs(-1, -1), (NsRange{0, -1}));
  EXPECT_EQ(DurationStats::NsRangeOfUs(5, 5), (NsRange{0, -1}));
  EXPECT_EQ(DurationStats::NsRangeOfUs(5, 6), (NsRange{6000, 6999}));
  EXPECT_EQ(DurationStats::NsRangeOfUs(kMax / 1000, kMax), (NsRange{0, -1}));
  EXPECT_EQ(DurationStats::NsRangeOfUs(kMin, kMax), (NsRange{0, kMax}));
}

TEST(DurationStatsBuckets, EachBucketsBoundsSelectItsCountFromASqliteColumn) {
  test::TempDir dir;
  absl::StatusOr<std::unique_ptr<SqliteDb>> db =
      SqliteDb::Open((dir.path() / "d.sqlite").string(), false);
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE d(ns INTEGER NOT NULL); CREATE INDEX d_ns ON d(ns);").ok());
  std::mt19937_64 random(31);
  std::vector<int64_t> durations = RandomDurations(random, 20'000);
  // Every bucket's edges, and durations the index does not know (-1).
  for (int b = 0; b <= DurationStats::LastBucket(); b += 7) {
    const HistogramBucket bounds = DurationStats::BucketBoundsUs(b);
    const NsRange range = DurationStats::NsRangeOfUs(bounds.lower_us, bounds.upper_us);
    durations.insert(durations.end(), {range.min_ns, range.max_ns});
  }
  DurationStats stats;
  ASSERT_TRUE((*db)->Exec("BEGIN").ok());
  SqliteStatement insert = *(*db)->Prepare("INSERT INTO d(ns) VALUES (?)");
  for (int64_t ns : durations) {
    stats.Add(ns);
    insert.Reset();
    insert.Bind(1, ns);
    ASSERT_TRUE(insert.Run().ok());
  }
  for (int i = 0; i < 100; ++i) {
    insert.Reset();
    insert.Bind(1, int64_t{-1});
    ASSERT_TRUE(insert.Run().ok());
  }
  ASSERT_TRUE((*db)->Exec("COMMIT").ok());
  SqliteStatement count = *(*db)->Prepare("SELECT count(*) FROM d WHERE ns BETWEEN ? AND ?");
  int64_t total = 0;
  for (const HistogramBucket& bucket : stats.Buckets()) {
    const NsRange range = DurationStats::NsRangeOfUs(bucket.lower_us, bucket.upper_us);
    count.Reset();
    count.Bind(1, range.min_ns).Bind(2, range.max_ns);
    ASSERT_TRUE(*count.Step());
    EXPECT_EQ(count.Int(0), bucket.count) << bucket.lower_us << " " << bucket.upper_us;
    total += bucket.count;
  }
  EXPECT_EQ(total, static_cast<int64_t>(durations.size()));
}

TEST(DurationStatsBuckets, PercentilesWithin4Point1PercentFrom12Microseconds) {
  std::mt19937_64 random(32);
  std::uniform_real_distribution<double> exponent(std::log2(12'000.0), 50);
  std::vector<int64_t> durations;
  DurationStats stats;
  for (int i = 0; i < 50'000; ++i) {
    durations.push_back(static_cast<int64_t>(std::exp2(exponent(random))));
    stats.Add(durations.back());
  }
  std::sort(durations.begin(), durations.end());
  for (double q : {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999}) {
    const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(durations.size())));
    const double want = static_cast<double>(durations[rank - 1]);
    EXPECT_NEAR(static_cast<double>(stats.Quantile(q)), want, want * 0.041) << q;
  }
  // Below 12 us, whole-microsecond buckets: within 0.6 us (a bucket's
  // geometric middle: 1.414 us for [1, 2) us).
  for (int64_t ns : {1'000, 1'999, 5'500, 11'999}) {
    DurationStats one;
    one.Add(ns);
    one.Add(ns + 1'000'000);  // the max is not the answer
    EXPECT_NEAR(static_cast<double>(one.Quantile(0.5)), static_cast<double>(ns), 600) << ns;
  }
}

}  // namespace
}  // namespace rayagg::history
