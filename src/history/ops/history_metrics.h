// ray-task-history's counters, read at scrape time for /metrics
// (docs/HISTORY.md "Metrics"). Written by the indexer thread and the HTTP
// threads; every field is atomic.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/latency_histogram.h"
#include "ops/metric_table.h"

namespace rayagg::history {

enum class ApiRoute : int {
  kSessions,
  kCounts,
  kGroups,
  kTasks,
  kTask,
  kActor,
  kJob,
  kRayTasks,
  kRaySummarize,
  kActors,
  kJobs,
  kExport,
  kTaskCount,
  kUi,
  kCount
};
inline constexpr size_t kApiRouteCount = static_cast<size_t>(ApiRoute::kCount);
std::string_view ApiRouteName(ApiRoute route);

// Why the indexer gave up on an object (rayhist_objects_abandoned_total's
// `reason`; docs/HISTORY.md "Objects that cannot be read").
enum class AbandonReason : int {
  kNotFound,          // listed, then gone before it could be read
  kTooLarge,          // above indexing.max_object_bytes
  kInvalidKey,        // a key the store client refuses
  kPermissionDenied,  // 403 while the store served other objects
  kAttempts,          // failed indexing.max_object_attempts passes in a row
  kCount
};
inline constexpr size_t kAbandonReasonCount = static_cast<size_t>(AbandonReason::kCount);
std::string_view AbandonReasonName(AbandonReason reason);

struct HistoryMetrics {
  std::atomic<uint64_t> objects_indexed{0};
  std::atomic<uint64_t> object_bytes_read{0};
  std::atomic<uint64_t> events_folded{0};
  std::atomic<uint64_t> bad_lines{0};    // malformed lines/elements, skipped
  std::atomic<uint64_t> bad_objects{0};  // objects that could not be read to their end
  std::atomic<uint64_t> tasks_written{0};
  std::atomic<uint64_t> batches_committed{0};
  std::atomic<uint64_t> store_errors{0};  // failed List/Get calls
  std::atomic<uint64_t> list_requests{0};
  std::atomic<uint64_t> sessions_dropped{0};  // by retention or max_bytes
  std::atomic<uint64_t> polls{0};
  // Lag behind the store: wall-clock ms when the last full poll found
  // nothing left to read (0: never yet), and objects known but not indexed.
  std::atomic<int64_t> caught_up_at_ms{0};
  std::atomic<uint64_t> objects_pending{0};
  std::atomic<uint64_t> index_bytes{0};
  std::atomic<uint64_t> sessions{0};
  // Objects recorded as bad and passed, by AbandonReason.
  std::array<std::atomic<uint64_t>, kAbandonReasonCount> objects_abandoned{};
  std::atomic<uint64_t> prefixes_skipped{0};  // node/job directories that could not be listed
  std::atomic<uint64_t> passes_failed{0};     // passes that failed store-wide or on the index
  // The indexer's half of readiness: false while the last finished pass
  // failed store-wide or on the index (true before the first one ends).
  std::atomic<bool> last_pass_ok{true};
  std::atomic<int64_t> last_pass_success_ms{0};  // wall-clock ms, 0: none yet
  std::array<LatencyHistogram, kApiRouteCount> query_latency;
  std::array<std::atomic<uint64_t>, kApiRouteCount> query_errors{};
};

// One HTTP listener's own counters (its HttpServer's), read at scrape time
// by the API layer, which knows the server; plain numbers here so that the
// metrics do not depend on the HTTP library.
struct HttpListenerStats {
  std::string name{};  // the `listener` label: "api", "ops"
  uint64_t connections_accepted = 0;
  uint64_t connections_refused = 0;
  uint64_t evicted_idle = 0;
  uint64_t evicted_in_request = 0;
  uint64_t idle_timeouts = 0;
  uint64_t max_requests_reached = 0;
  uint64_t requests = 0;
  uint64_t misdirected = 0;   // Host missing or not in http.allowed_hosts
  uint64_t unauthorized = 0;  // no or a wrong bearer token
  uint64_t bad_requests = 0;
  uint64_t headers_too_large = 0;
  uint64_t too_many_header_fields = 0;
  uint64_t bodies_too_large = 0;
  uint64_t timeouts = 0;
  uint64_t handler_errors = 0;
  uint64_t stream_errors = 0;
  uint64_t open = 0;  // connections open now
  uint64_t idle = 0;
  uint64_t in_request = 0;
};

// The Prometheus page, rendered from the metrics table (ops/metric_table.h),
// with the HTTP counters of `listeners`.
std::string RenderHistoryMetrics(const HistoryMetrics& metrics, bool ready, int64_t now_ms,
                                 const std::vector<HttpListenerStats>& listeners = {});
// The table's families, for the test against docs/HISTORY.md.
std::vector<MetricDef> HistoryMetricDefs();

}  // namespace rayagg::history
