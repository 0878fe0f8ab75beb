// Per-attempt statistics of one sink, for /metrics: how long each delivery
// attempt took (by outcome) and why failed ones failed. Lock-free; written
// on the sink's strand, read by scrapes from any thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "common/latency_histogram.h"
#include "sinks/batch_transport.h"

namespace rayagg {

struct SinkRequestStats {
  LatencyHistogram succeeded;
  LatencyHistogram failed;
  std::array<std::atomic<uint64_t>, kFailureReasonCount> failures_by_reason{};

  void Record(std::chrono::nanoseconds elapsed, const DeliveryOutcome& outcome) {
    if (outcome.delivered) {
      succeeded.Observe(elapsed);
      return;
    }
    failed.Observe(elapsed);
    failures_by_reason[static_cast<size_t>(outcome.reason)].fetch_add(1,
                                                                      std::memory_order_relaxed);
  }
};

}  // namespace rayagg
