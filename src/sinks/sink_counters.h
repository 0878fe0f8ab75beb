// What one sink did, for tests and /metrics. Written on the sink's strand
// (refusals on ingest threads), read from anywhere. Drops by reason and event
// type are in the sink's DropCounters (rayagg/drop_counters.h).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace rayagg {

struct SinkCounters {
  std::atomic<uint64_t> sent_events{0};
  std::atomic<uint64_t> sent_batches{0};
  std::atomic<uint64_t> sent_bytes{0};
  // Every unsuccessful attempt, whatever became of its batch (by reason:
  // SinkRequestStats::failures_by_reason).
  std::atomic<uint64_t> failed_attempts{0};
  // Attempts that were followed by another attempt of the same batch.
  std::atomic<uint64_t> retries{0};
  // Batches split in halves after a 413.
  std::atomic<uint64_t> split_batches{0};
  // Retryable failures since the last success (gauge).
  std::atomic<uint64_t> consecutive_failures{0};
  std::atomic<int64_t> last_success_unix_ms{0};
  // Batches being sent or waiting out a backoff (gauge, <= max_in_flight).
  std::atomic<uint64_t> in_flight_batches{0};
  // Ingest requests refused because this when_full: block sink was full.
  std::atomic<uint64_t> refused_requests{0};

  // A batch (or object) of `events` events and `bytes` bytes was delivered
  // at `now`: it counts, and ends the failure streak.
  void CountDelivered(uint64_t events, uint64_t bytes, std::chrono::system_clock::time_point now) {
    sent_events.fetch_add(events, std::memory_order_relaxed);
    sent_batches.fetch_add(1, std::memory_order_relaxed);
    sent_bytes.fetch_add(bytes, std::memory_order_relaxed);
    last_success_unix_ms.store(
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count(),
        std::memory_order_relaxed);
    consecutive_failures.store(0, std::memory_order_relaxed);
  }
};

}  // namespace rayagg
