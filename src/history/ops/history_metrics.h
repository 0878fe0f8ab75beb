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
  kCount
};
inline constexpr size_t kApiRouteCount = static_cast<size_t>(ApiRoute::kCount);
std::string_view ApiRouteName(ApiRoute route);

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
  std::array<LatencyHistogram, kApiRouteCount> query_latency;
  std::array<std::atomic<uint64_t>, kApiRouteCount> query_errors{};
};

// The Prometheus page, rendered from the metrics table (ops/metric_table.h).
std::string RenderHistoryMetrics(const HistoryMetrics& metrics, bool ready, int64_t now_ms);
// The table's families, for the test against docs/HISTORY.md.
std::vector<MetricDef> HistoryMetricDefs();

}  // namespace rayagg::history
