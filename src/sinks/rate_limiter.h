// A token bucket for a sink's delivered events (max_events_per_second), as
// the generic cell rate algorithm: it remembers when the bucket will next be
// full instead of counting tokens. A burst of up to `burst` events passes at
// once, then the average rate holds. Pure: the caller passes the time.
#pragma once

#include <chrono>
#include <cstdint>

namespace rayagg {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // `per_second` 0 means no limit. `burst` is at least 1.
  RateLimiter(uint64_t per_second, uint64_t burst);

  // Books `events` and returns when they may be sent (`now` when allowed at
  // once). Bookings are served in call order; a booking larger than the
  // burst waits until the bucket is full, then overdraws it.
  Clock::time_point Reserve(uint64_t events, Clock::time_point now);

 private:
  Clock::duration Cost(uint64_t events) const;

  const uint64_t per_second_;
  const uint64_t burst_;
  // When the bucket would be full again given every booking so far.
  Clock::time_point full_at_{};
};

}  // namespace rayagg
