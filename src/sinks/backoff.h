// Exponential backoff with Ray's publisher semantics: the n-th retry waits
// initial * 2^(n-1), capped at max, then scaled by a uniform factor in
// [1 - jitter, 1 + jitter]. Pure: the random draw is passed in.
#pragma once

#include <cstdint>

#include "rayagg/config.h"

namespace rayagg {

class Backoff {
 public:
  explicit Backoff(const RetryConfig& config);

  // `retry` is 1 for the first retry. `unit_random` is uniform in [0, 1).
  Duration Delay(uint64_t retry, double unit_random) const;

 private:
  Duration initial_;
  Duration max_;
  double jitter_ratio_;
};

}  // namespace rayagg
