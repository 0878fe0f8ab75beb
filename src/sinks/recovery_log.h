// Which "sink recovered" lines reach the log. A failed attempt's warning is
// rate-limited (LogRateLimiter); a recovery line goes out only when a failure
// warning did since the last recovery line, once, at the first success after
// it. So under an endpoint that fails every other attempt the log gets at
// most one failure/recovery pair per rate-limit interval instead of a line
// after every success, and every recovery line answers a warning the
// operator saw. The line reports every failed attempt since the previous
// recovery line, announced or not.
//
// Not thread-safe: a sink calls it on its strand.
#pragma once

#include <cstdint>
#include <optional>

namespace rayagg {

class RecoveryLog {
 public:
  // A failed attempt; `warned` is whether its warning was logged.
  void Failed(bool warned) {
    ++failed_attempts_;
    warned_ = warned_ || warned;
  }

  // A successful attempt. When a recovery line is due, returns the number of
  // failed attempts it reports (and starts counting anew); else nullopt.
  std::optional<uint64_t> Succeeded() {
    if (!warned_) return std::nullopt;
    const uint64_t failed = failed_attempts_;
    failed_attempts_ = 0;
    warned_ = false;
    return failed;
  }

 private:
  uint64_t failed_attempts_ = 0;  // since the last recovery line
  bool warned_ = false;           // a failure warning was logged since then
};

}  // namespace rayagg
