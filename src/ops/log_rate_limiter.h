// Keeps a hot-path warning (a sink failing on every retry, senders sending
// bad requests in a loop) to at most one line per interval. The line that is
// let through says how many were left out since the previous one, so the
// count of what happened is never lost, only the repetition.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>

namespace rayagg {

class LogRateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LogRateLimiter(Clock::duration interval) : interval_(interval) {}

  // Whether to log now. If so, returns how many calls were suppressed since
  // the last one that logged (0 for the first); otherwise nullopt.
  // Thread-safe.
  std::optional<uint64_t> Allow(Clock::time_point now = Clock::now()) {
    std::lock_guard lock(mutex_);
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
  std::mutex mutex_;
  bool logged_once_ = false;         // guarded by mutex_
  Clock::time_point last_logged_{};  // guarded by mutex_
  uint64_t suppressed_ = 0;          // guarded by mutex_
};

}  // namespace rayagg
