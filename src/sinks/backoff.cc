#include "sinks/backoff.h"

#include <algorithm>
#include <cmath>

namespace rayagg {

Backoff::Backoff(const RetryConfig& config)
    : initial_(config.initial_backoff), max_(config.max_backoff),
      jitter_ratio_(config.jitter_ratio) {}

Duration Backoff::Delay(uint64_t retry, double unit_random) const {
  const double exponent = static_cast<double>(std::min<uint64_t>(retry == 0 ? 0 : retry - 1, 62));
  const double base = std::min(static_cast<double>(initial_.count()) * std::exp2(exponent),
                               static_cast<double>(max_.count()));
  const double factor = 1.0 + jitter_ratio_ * (2.0 * unit_random - 1.0);
  return Duration(static_cast<int64_t>(std::llround(std::max(0.0, base * factor))));
}

}  // namespace rayagg
