// A duration distribution that can be added to and subtracted from (the
// index keeps one per group and state, and a task that changes state moves
// its contribution): count, sum, max and a log-scale histogram with 8 buckets
// per power of two from 1 us, so a percentile read from it is within 4.5 %
// of the true value. Max is exact while tasks are only added; after a
// subtraction it stays an upper bound.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace rayagg::history {

class DurationStats {
 public:
  static constexpr int kBucketsPerOctave = 8;

  void Add(int64_t duration_ns, int64_t times = 1);
  void Merge(const DurationStats& other, int64_t sign = 1);
  // Nothing at all: a delta whose count and buckets cancel out (one task
  // left a group as another entered it, in the same bucket) still moves
  // the sum.
  bool empty() const { return count_ == 0 && sum_ns_ == 0 && buckets_.empty(); }

  int64_t count() const { return count_; }
  int64_t sum_ns() const { return sum_ns_; }
  int64_t max_ns() const { return max_ns_; }
  // The q-quantile (0 < q <= 1) in ns, 0 when empty.
  int64_t Quantile(double q) const;
  // Buckets by power of two: (upper bound in ns, count), for a chart.
  std::vector<std::pair<int64_t, int64_t>> Octaves() const;

  // Bucket index of a duration, and the upper bound of a bucket.
  static int BucketOf(int64_t duration_ns);
  static int64_t UpperBound(int bucket);

  void EncodeTo(std::string& out) const;
  // Reads what EncodeTo wrote from the front of `in` and advances it.
  absl::Status DecodeFrom(std::string_view& in);

  friend bool operator==(const DurationStats&, const DurationStats&) = default;

 private:
  int64_t count_ = 0;
  int64_t sum_ns_ = 0;
  int64_t max_ns_ = 0;
  std::map<int, int64_t> buckets_;  // only non-zero counts
};

}  // namespace rayagg::history
