// What one sink did, for tests and /metrics. Written on the sink's strand
// (refusals on ingest threads), read from anywhere. Drops by reason and event
// type are in the sink's DropCounters (rayagg/drop_counters.h).
#pragma once

#include <atomic>
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
};

}  // namespace rayagg
