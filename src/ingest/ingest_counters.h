// What ingest saw, for tests now and /metrics later. Lock-free: updated from
// gRPC's callback threads.
#pragma once

#include <atomic>
#include <cstdint>

namespace rayagg {

struct IngestCounters {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> received_events{0};     // events in valid requests
  std::atomic<uint64_t> accepted_events{0};     // handed to the event log
  std::atomic<uint64_t> rejected_requests{0};   // invalid payloads
  std::atomic<uint64_t> refused_requests{0};    // the log refused (backpressure)
  // task_events_metadata.dropped_task_attempts reported by senders; accepted
  // and counted, never exported over HTTP (as in Ray).
  std::atomic<uint64_t> sender_dropped_task_attempts{0};
};

}  // namespace rayagg
