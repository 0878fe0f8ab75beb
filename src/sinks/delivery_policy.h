// What an attempt's outcome means for its batch, per retry_policy
// (docs/DELIVERY.md has the table), and how long a Retry-After asks to wait.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "rayagg/batch_transport.h"
#include "rayagg/config.h"

namespace rayagg {

enum class Verdict {
  kSuccess,
  kRetry,   // the same batch again after a backoff
  kSplit,   // too large for the collector: retry each half
  kReject,  // the collector refuses it for good: drop and count (`rejected`)
};

struct Classification {
  Verdict verdict;
  FailureReason reason;  // meaningless for kSuccess
};

Classification Classify(RetryPolicy policy, const DeliveryOutcome& outcome);

// The wait a Retry-After value asks for: delta-seconds ("120") or an
// HTTP-date (IMF-fixdate, RFC 850 or asctime form) relative to `now`; a date
// in the past means 0. nullopt when the value is neither.
std::optional<Duration> ParseRetryAfter(std::string_view value,
                                        std::chrono::system_clock::time_point now);

}  // namespace rayagg
