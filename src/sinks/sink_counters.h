// What one sink did, for tests now and /metrics later. Written on the sink's
// strand, read from anywhere.
#pragma once

#include <atomic>
#include <cstdint>

namespace rayagg {

struct SinkCounters {
  std::atomic<uint64_t> sent_events{0};
  std::atomic<uint64_t> sent_batches{0};
  std::atomic<uint64_t> sent_bytes{0};
  std::atomic<uint64_t> failed_attempts{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> consecutive_failures{0};
  std::atomic<int64_t> last_success_unix_ms{0};
};

}  // namespace rayagg
