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
  using Clock = std::chrono::steady_clock;

  explicit LogRateLimiter(Clock::duration interval) : interval_(interval) {}

  // Whether to log now. If so, returns how many calls were suppressed since
  // the last one that logged (0 for the first); otherwise nullopt.
  // Thread-safe.
  std::optional<uint64_t> Allow(Clock::time_point now = Clock::now()) {
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
  const Clock::duration interval_;
  Mutex mutex_;
  bool logged_once_ ABSL_GUARDED_BY(mutex_) = false;
  Clock::time_point last_logged_ ABSL_GUARDED_BY(mutex_){};
  uint64_t suppressed_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace rayagg
