// Exponential backoff. The n-th retry's step is initial * 2^(n-1), capped at
// max. Full jitter (the default) waits a uniform draw from [0, step]; Ray's
// rule (ray_compat, or an explicit jitter_ratio) waits step * (1 ± ratio).
// Pure: the random draw is passed in.
#pragma once

#include <cstdint>
#include <optional>

#include "rayagg/config.h"

namespace rayagg {

class Backoff {
 public:
  // Ray's PUBLISHER_JITTER_RATIO default, used by ray_compat when no ratio is set.
  static constexpr double kRayJitterRatio = 0.1;

  Backoff(const RetryConfig& config, RetryPolicy policy);

  // `retry` is 1 for the first retry. `unit_random` is uniform in [0, 1).
  Duration Delay(uint64_t retry, double unit_random) const;

 private:
  Duration initial_;
  Duration max_;
  // nullopt: full jitter.
  std::optional<double> jitter_ratio_;
};

}  // namespace rayagg
