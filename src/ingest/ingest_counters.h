// What ingest saw, for tests and /metrics (app/daemon_metrics.cc). Lock-free:
// updated from gRPC's callback threads and the HTTP listener.
#pragma once

#include <atomic>
#include <cstdint>

#include "rayagg/drop_counters.h"

namespace rayagg {

struct IngestCounters {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> received_events{0};    // events in valid requests
  std::atomic<uint64_t> accepted_events{0};    // handed to the event log
  std::atomic<uint64_t> rejected_requests{0};  // invalid payloads
  std::atomic<uint64_t> refused_requests{0};   // the log refused (backpressure)
  // HTTP requests refused (415) for a Content-Type a web page may send to
  // any site without asking (ingest/browser_content_type.h).
  std::atomic<uint64_t> unsupported_content_type_requests{0};
  // task_events_metadata.dropped_task_attempts reported by senders; accepted
  // and counted, never exported over HTTP (as in Ray).
  std::atomic<uint64_t> sender_dropped_task_attempts{0};
  // Requests that came through HTTP JSON ingest (also counted in `requests`).
  std::atomic<uint64_t> http_requests{0};
  // Events dropped before the event log, by (reason, event type): HTTP
  // elements that do not map to a RayEvent (reason bad_element; event type 0
  // when the element's type is unknown).
  DropCounters drops;
  // gRPC calls refused with UNAUTHENTICATED (RAY_AUTH_MODE=token, wrong or
  // no token). HTTP ingest checks no token: Ray's HTTP publisher sends none.
  std::atomic<uint64_t> unauthenticated_requests{0};
  // gRPC calls whose message never arrived: gRPC cut them off (over
  // grpc.memory_limit_bytes it resets streams and closes connections) or the
  // client went away. Not invalid payloads: there was none to judge.
  std::atomic<uint64_t> no_message_requests{0};
};

}  // namespace rayagg
