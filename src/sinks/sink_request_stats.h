// Per-attempt statistics of one sink, for /metrics: how long each delivery
// attempt took (by outcome) and why failed ones failed. Lock-free; written
// on the sink's strand, read by scrapes from any thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "common/latency_histogram.h"
#include "rayagg/batch_transport.h"

namespace rayagg {

struct SinkRequestStats {
  LatencyHistogram succeeded;
  LatencyHistogram failed;
  std::array<std::atomic<uint64_t>, kFailureReasonCount> failures_by_reason{};

  // `delivered` and `reason` as the sink's retry policy classified the attempt.
  void Record(std::chrono::nanoseconds elapsed, bool delivered, FailureReason reason) {
    if (delivered) {
      succeeded.Observe(elapsed);
      return;
    }
    failed.Observe(elapsed);
    failures_by_reason[static_cast<size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
  }

  uint64_t Failures(FailureReason reason) const {
    return failures_by_reason[static_cast<size_t>(reason)].load(std::memory_order_relaxed);
  }
};

}  // namespace rayagg
