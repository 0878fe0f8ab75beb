#include "history/history_metrics.h"

#include "ops/prometheus_writer.h"

namespace rayagg::history {

std::string_view ApiRouteName(ApiRoute route) {
  switch (route) {
    case ApiRoute::kSessions:
      return "sessions";
    case ApiRoute::kCounts:
      return "counts";
    case ApiRoute::kGroups:
      return "groups";
    case ApiRoute::kTasks:
      return "tasks";
    case ApiRoute::kTask:
      return "task";
    case ApiRoute::kActor:
      return "actor";
    case ApiRoute::kJob:
      return "job";
    case ApiRoute::kRayTasks:
      return "ray_tasks";
    case ApiRoute::kRaySummarize:
      return "ray_tasks_summarize";
    case ApiRoute::kCount:
      break;
  }
  return "unknown";
}

std::string RenderHistoryMetrics(const HistoryMetrics& m, bool ready, int64_t now_ms) {
  PrometheusWriter w({});
  auto counter = [&](std::string_view name, std::string_view help, uint64_t value) {
    w.Family(name, "counter", help);
    w.Sample(name, {}, static_cast<double>(value));
  };
  auto gauge = [&](std::string_view name, std::string_view help, double value) {
    w.Family(name, "gauge", help);
    w.Sample(name, {}, value);
  };
  gauge("rayhist_ready", "1 when the index is open and the API answers.", ready ? 1 : 0);
  counter("rayhist_objects_indexed_total", "Store objects read and committed to the index.",
          m.objects_indexed.load());
  counter("rayhist_object_bytes_read_total", "Bytes of store objects read (as stored).",
          m.object_bytes_read.load());
  counter("rayhist_events_folded_total", "Events folded into the index.", m.events_folded.load());
  counter("rayhist_bad_lines_total",
          "Lines or array elements skipped because they are not RayEvents (or too long).",
          m.bad_lines.load());
  counter("rayhist_bad_objects_total",
          "Objects that could not be read to their end (corrupt or truncated gzip).",
          m.bad_objects.load());
  counter("rayhist_tasks_written_total", "Task rows inserted or updated.", m.tasks_written.load());
  counter("rayhist_batches_committed_total", "Index transactions committed.",
          m.batches_committed.load());
  counter("rayhist_store_errors_total", "Store List/Get calls that failed.", m.store_errors.load());
  counter("rayhist_store_list_requests_total", "Store List calls made.", m.list_requests.load());
  counter("rayhist_sessions_dropped_total",
          "Sessions removed from the index by retention or index.max_bytes.",
          m.sessions_dropped.load());
  counter("rayhist_polls_total", "Passes over the store.", m.polls.load());
  const int64_t caught_up = m.caught_up_at_ms.load();
  gauge("rayhist_lag_seconds",
        "Seconds since the indexer last had read everything it had listed (-1: not yet).",
        caught_up == 0 ? -1.0 : static_cast<double>(now_ms - caught_up) / 1000.0);
  gauge("rayhist_objects_pending", "Objects listed but not yet indexed.",
        static_cast<double>(m.objects_pending.load()));
  gauge("rayhist_index_bytes", "Size of the index database files.",
        static_cast<double>(m.index_bytes.load()));
  gauge("rayhist_sessions", "Sessions in the index.", static_cast<double>(m.sessions.load()));
  w.Family("rayhist_query_duration_seconds", "histogram", "API answer latency by route.");
  for (size_t i = 0; i < kApiRouteCount; ++i) {
    const LatencyHistogram::Snapshot s = m.query_latency[i].Read();
    w.Histogram("rayhist_query_duration_seconds",
                {{"route", ApiRouteName(static_cast<ApiRoute>(i))}},
                LatencyHistogram::kBucketSeconds, s.counts, s.sum_seconds);
  }
  w.Family("rayhist_query_errors_total", "counter",
           "API answers that were errors (4xx/5xx) by route.");
  for (size_t i = 0; i < kApiRouteCount; ++i) {
    w.Sample("rayhist_query_errors_total", {{"route", ApiRouteName(static_cast<ApiRoute>(i))}},
             static_cast<double>(m.query_errors[i].load()));
  }
  return w.text();
}

}  // namespace rayagg::history
