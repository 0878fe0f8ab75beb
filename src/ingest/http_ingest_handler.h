// POST handler for Ray's JSON export (RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR
// pointed at us): a JSON array of RayEvents in proto3 JSON, lowerCamelCase or
// snake_case keys, optionally gzip/deflate encoded, transcoded straight to
// wire bytes (json/event_json_parser.h). Every element that maps to
// a RayEvent enters the event log like a gRPC event (dedup, coalescing, every
// sink). Ray's agent retries every status >= 400 forever, so a bad element is
// dropped, counted (reason bad_element) and listed in the 200 answer instead of
// failing the request:
//   200 {"accepted":N,"rejected":[{"index":I,"reason":"..."}]}
//   400 the body is not a JSON array; 413 body (also decoded) above the limit;
//   415 unsupported Content-Encoding, or a Content-Type a web page may send
//   to any site (browser_content_type.h: nothing is parsed or appended);
//   503 + Retry-After the event log refused.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "http/http_server.h"
#include "ingest/ingest_counters.h"
#include "ops/log_rate_limiter.h"
#include "rayagg/clock.h"
#include "rayagg/event_appender.h"
#include "rayagg/mutex.h"

namespace spdlog {
class logger;
}

namespace rayagg {

class WireSchema;

class HttpIngestHandler {
 public:
  // `clock` (for log rate limiting) outlives the handler.
  HttpIngestHandler(EventAppender& appender, IngestCounters& counters, spdlog::logger& logger,
                    uint64_t max_body_bytes, Clock& clock);

  ~HttpIngestHandler();

  // An HttpServer async route: parses on the calling (listener) thread and
  // answers through `respond` once the log has the events — with a spool,
  // once they are written, from the spool's writer thread, so the listener
  // never waits on the disk. Thread-safe (HttpServer may call it for several
  // connections at once).
  void HandleAsync(HttpRequest& request, HttpResponder respond);

 private:
  // A parser and its buffers, reused request after request: one per request
  // being handled at once, so no more than the server's threads.
  struct Workspace;
  std::unique_ptr<Workspace> Acquire();
  void Ingest(std::string& body, Workspace& workspace, HttpRequest& request,
              HttpResponder& respond);
  void Release(std::unique_ptr<Workspace> workspace);

  EventAppender& appender_;
  IngestCounters& counters_;
  spdlog::logger& logger_;
  const uint64_t max_body_bytes_;
  Clock& clock_;
  // A sender posting bad requests or elements in a loop (Ray's agent retries
  // forever) gets one warning per interval each, with a suppressed count, as
  // gRPC ingest does.
  LogRateLimiter reject_log_limiter_{std::chrono::seconds(10)};
  LogRateLimiter bad_element_log_limiter_{std::chrono::seconds(10)};
  std::shared_ptr<const WireSchema> schema_;
  Mutex idle_mutex_;
  std::vector<std::unique_ptr<Workspace>> idle_ ABSL_GUARDED_BY(idle_mutex_);
};

}  // namespace rayagg
