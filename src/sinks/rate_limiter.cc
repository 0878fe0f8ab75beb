#include "sinks/rate_limiter.h"

#include <algorithm>

namespace rayagg {

RateLimiter::RateLimiter(uint64_t per_second, uint64_t burst)
    : per_second_(per_second), burst_(std::max<uint64_t>(burst, 1)) {}

RateLimiter::Clock::duration RateLimiter::Cost(uint64_t events) const {
  // In double: events * 1e9 would overflow 64 bits for huge bookings.
  const double seconds = static_cast<double>(events) / static_cast<double>(per_second_);
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

RateLimiter::Clock::time_point RateLimiter::Reserve(uint64_t events, Clock::time_point now) {
  if (per_second_ == 0) return now;
  const Clock::time_point start = std::max(full_at_, now);
  // The bucket holds `burst_` events and is full at `start`: the booking may
  // go once enough of it has refilled (all of it for a booking above the burst).
  const Clock::time_point allowed =
      std::max(now, start + Cost(std::min(events, burst_)) - Cost(burst_));
  full_at_ = start + Cost(events);
  return allowed;
}

}  // namespace rayagg
