#include "sinks/backoff.h"

#include <algorithm>
#include <cmath>

namespace rayagg {

Backoff::Backoff(const RetryConfig& config, RetryPolicy policy)
    : initial_(config.initial_backoff),
      max_(config.max_backoff),
      jitter_ratio_(config.jitter_ratio.has_value()     ? config.jitter_ratio
                    : policy == RetryPolicy::kRayCompat ? std::optional<double>(kRayJitterRatio)
                                                        : std::nullopt) {}

Duration Backoff::Delay(uint64_t retry, double unit_random) const {
  const double exponent = static_cast<double>(std::min<uint64_t>(retry == 0 ? 0 : retry - 1, 62));
  const double step = std::min(static_cast<double>(initial_.count()) * std::exp2(exponent),
                               static_cast<double>(max_.count()));
  const double factor =
      jitter_ratio_.has_value() ? 1.0 + *jitter_ratio_ * (2.0 * unit_random - 1.0) : unit_random;
  return Duration(static_cast<int64_t>(std::llround(std::max(0.0, step * factor))));
}

}  // namespace rayagg
