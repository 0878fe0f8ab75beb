// Keeps a hot-path warning (a sink failing on every retry, senders sending
// bad requests in a loop) to at most one line per interval. The line that is
// let through says how many were left out since the previous one, so the
// count of what happened is never lost, only the repetition.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "rayagg/mutex.h"

namespace rayagg {

class LogRateLimiter {
 public:
  // Steady time, as rayagg::Clock::Now() gives it (include/rayagg/clock.h).
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit LogRateLimiter(std::chrono::steady_clock::duration interval) : interval_(interval) {}

  // Whether to log at `now` (its caller's clock's Now()). If so, returns how many calls were
  // suppressed since the last one that logged (0 for the first); otherwise nullopt. Thread-safe.
  std::optional<uint64_t> Allow(TimePoint now) {
    MutexLock lock(mutex_);
    if (logged_once_ && now - last_logged_ < interval_) {
      ++suppressed_;
      return std::nullopt;
    }
    logged_once_ = true;
    last_logged_ = now;
    const uint64_t suppressed = suppressed_;
    suppressed_ = 0;
    return suppressed;
  }

 private:
  const std::chrono::steady_clock::duration interval_;
  Mutex mutex_;
  bool logged_once_ ABSL_GUARDED_BY(mutex_) = false;
  TimePoint last_logged_ ABSL_GUARDED_BY(mutex_){};
  uint64_t suppressed_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace rayagg
