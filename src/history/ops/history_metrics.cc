#include "history/ops/history_metrics.h"

#include <algorithm>

#include "ops/metric_table.h"

namespace rayagg::history {
namespace {

struct Scrape {
  const HistoryMetrics& m;
  bool ready;
  int64_t now_ms;
  const std::vector<HttpListenerStats>& listeners;
};

template <uint64_t HttpListenerStats::*field>
void PerListener(const Scrape& s, MetricSamples& out) {
  for (const HttpListenerStats& listener : s.listeners) out.Add({listener.name}, listener.*field);
}

template <std::atomic<uint64_t> HistoryMetrics::*field>
void Counter(const Scrape& s, MetricSamples& out) {
  out.Add({}, (s.m.*field).load());
}

// Every family ray-task-history exports; docs/HISTORY.md's metrics table
// lists the same (tests/unit/history/history_metrics_test.cc compares them).
constexpr MetricFamily<Scrape> kHistoryFamilies[] = {
    {{"rayhist_ready",
      MetricType::kGauge,
      {},
      "1 when the index is open and the last indexing pass did not fail store-wide."},
     [](const Scrape& s, MetricSamples& out) {
       out.Add({}, s.ready && s.m.last_pass_ok.load() ? 1 : 0);
     }},
    {{"rayhist_objects_indexed_total",
      MetricType::kCounter,
      {},
      "Store objects read and committed to the index."},
     &Counter<&HistoryMetrics::objects_indexed>},
    {{"rayhist_object_bytes_read_total",
      MetricType::kCounter,
      {},
      "Bytes of store objects read (as stored)."},
     &Counter<&HistoryMetrics::object_bytes_read>},
    {{"rayhist_events_folded_total", MetricType::kCounter, {}, "Events folded into the index."},
     &Counter<&HistoryMetrics::events_folded>},
    {{"rayhist_bad_lines_total",
      MetricType::kCounter,
      {},
      "Lines or array elements skipped because they are not RayEvents (or too long)."},
     &Counter<&HistoryMetrics::bad_lines>},
    {{"rayhist_bad_objects_total",
      MetricType::kCounter,
      {},
      "Objects that could not be read to their end (corrupt or truncated gzip)."},
     &Counter<&HistoryMetrics::bad_objects>},
    {{"rayhist_tasks_written_total", MetricType::kCounter, {}, "Task rows inserted or updated."},
     &Counter<&HistoryMetrics::tasks_written>},
    {{"rayhist_batches_committed_total", MetricType::kCounter, {}, "Index transactions committed."},
     &Counter<&HistoryMetrics::batches_committed>},
    {{"rayhist_store_errors_total", MetricType::kCounter, {}, "Store List/Get calls that failed."},
     &Counter<&HistoryMetrics::store_errors>},
    {{"rayhist_store_list_requests_total", MetricType::kCounter, {}, "Store List calls made."},
     &Counter<&HistoryMetrics::list_requests>},
    {{"rayhist_sessions_dropped_total",
      MetricType::kCounter,
      {},
      "Sessions removed from the index by retention or index.max_bytes."},
     &Counter<&HistoryMetrics::sessions_dropped>},
    {{"rayhist_polls_total", MetricType::kCounter, {}, "Passes over the store."},
     &Counter<&HistoryMetrics::polls>},
    {{"rayhist_lag_seconds",
      MetricType::kGauge,
      {},
      "Seconds since the indexer last had read everything it had listed (-1: not yet)."},
     [](const Scrape& s, MetricSamples& out) {
       const int64_t caught_up = s.m.caught_up_at_ms.load();
       out.Add({}, caught_up == 0 ? -1.0 : static_cast<double>(s.now_ms - caught_up) / 1000.0);
     }},
    {{"rayhist_objects_pending", MetricType::kGauge, {}, "Objects listed but not yet indexed."},
     [](const Scrape& s, MetricSamples& out) { out.Add({}, s.m.objects_pending.load()); }},
    {{"rayhist_index_bytes", MetricType::kGauge, {}, "Size of the index database files."},
     [](const Scrape& s, MetricSamples& out) { out.Add({}, s.m.index_bytes.load()); }},
    {{"rayhist_sessions", MetricType::kGauge, {}, "Sessions known to the indexer."},
     [](const Scrape& s, MetricSamples& out) { out.Add({}, s.m.sessions.load()); }},
    {{"rayhist_objects_abandoned_total",
      MetricType::kCounter,
      {"reason"},
      "Objects recorded as bad and passed over, by reason."},
     [](const Scrape& s, MetricSamples& out) {
       for (size_t i = 0; i < kAbandonReasonCount; ++i) {
         out.Add({AbandonReasonName(static_cast<AbandonReason>(i))},
                 s.m.objects_abandoned[i].load());
       }
     }},
    {{"rayhist_prefixes_skipped_total",
      MetricType::kCounter,
      {},
      "Node or job directories skipped because they could not be listed (each pass)."},
     &Counter<&HistoryMetrics::prefixes_skipped>},
    {{"rayhist_passes_failed_total",
      MetricType::kCounter,
      {},
      "Indexing passes that failed store-wide or on the index."},
     &Counter<&HistoryMetrics::passes_failed>},
    {{"rayhist_last_pass_success_timestamp_seconds",
      MetricType::kGauge,
      {},
      "When the last indexing pass ended without failing (Unix seconds; 0: none yet)."},
     [](const Scrape& s, MetricSamples& out) {
       out.Add({}, static_cast<double>(s.m.last_pass_success_ms.load()) / 1000.0);
     }},
    {{"rayhist_query_duration_seconds",
      MetricType::kHistogram,
      {"route"},
      "API answer latency by route."},
     [](const Scrape& s, MetricSamples& out) {
       for (size_t i = 0; i < kApiRouteCount; ++i) {
         const LatencyHistogram::Snapshot snapshot = s.m.query_latency[i].Read();
         out.AddHistogram({ApiRouteName(static_cast<ApiRoute>(i))},
                          LatencyHistogram::kBucketSeconds, snapshot.counts, snapshot.sum_seconds);
       }
     }},
    {{"rayhist_query_errors_total",
      MetricType::kCounter,
      {"route"},
      "API answers that were errors (4xx/5xx) by route."},
     [](const Scrape& s, MetricSamples& out) {
       for (size_t i = 0; i < kApiRouteCount; ++i) {
         out.Add({ApiRouteName(static_cast<ApiRoute>(i))}, s.m.query_errors[i].load());
       }
     }},

    // The HTTP server's own counters, per listener (api, ops), as the
    // daemon's rayagg_http_server_* families.
    {{"rayhist_http_connections_accepted_total",
      MetricType::kCounter,
      {"listener"},
      "Connections accepted."},
     &PerListener<&HttpListenerStats::connections_accepted>},
    {{"rayhist_http_connections_refused_total",
      MetricType::kCounter,
      {"listener"},
      "Connections closed at once: the connection limit was reached and none waited."},
     &PerListener<&HttpListenerStats::connections_refused>},
    {{"rayhist_http_connections_closed_total",
      MetricType::kCounter,
      {"listener", "reason"},
      "Connections the server closed under its limits, by reason."},
     [](const Scrape& s, MetricSamples& out) {
       for (const HttpListenerStats& l : s.listeners) {
         out.Add({l.name, "idle_timeout"}, l.idle_timeouts);
         out.Add({l.name, "evicted_idle"}, l.evicted_idle);
         out.Add({l.name, "evicted_in_request"}, l.evicted_in_request);
         out.Add({l.name, "max_requests"}, l.max_requests_reached);
       }
     }},
    {{"rayhist_http_connections",
      MetricType::kGauge,
      {"listener", "state"},
      "Open connections: idle (waiting for a request), in_request (one arriving), busy."},
     [](const Scrape& s, MetricSamples& out) {
       for (const HttpListenerStats& l : s.listeners) {
         const uint64_t waiting = l.idle + l.in_request;
         out.Add({l.name, "idle"}, static_cast<double>(l.idle));
         out.Add({l.name, "in_request"}, static_cast<double>(l.in_request));
         out.Add({l.name, "busy"}, static_cast<double>(l.open - std::min(l.open, waiting)));
       }
     }},
    {{"rayhist_http_requests_total",
      MetricType::kCounter,
      {"listener"},
      "Complete requests routed (any answer)."},
     &PerListener<&HttpListenerStats::requests>},
    {{"rayhist_http_misdirected_total",
      MetricType::kCounter,
      {"listener"},
      "Requests refused because their Host is not in http.allowed_hosts (421) or missing (400)."},
     &PerListener<&HttpListenerStats::misdirected>},
    {{"rayhist_http_unauthorized_total",
      MetricType::kCounter,
      {"listener"},
      "Requests refused for a missing or wrong bearer token (401)."},
     &PerListener<&HttpListenerStats::unauthorized>},
    {{"rayhist_http_errors_total",
      MetricType::kCounter,
      {"listener", "reason"},
      "Requests or connections the server itself ended, by reason."},
     [](const Scrape& s, MetricSamples& out) {
       for (const HttpListenerStats& l : s.listeners) {
         out.Add({l.name, "bad_request"}, l.bad_requests);
         out.Add({l.name, "header_too_large"}, l.headers_too_large);
         out.Add({l.name, "too_many_header_fields"}, l.too_many_header_fields);
         out.Add({l.name, "body_too_large"}, l.bodies_too_large);
         out.Add({l.name, "timeout"}, l.timeouts);
         out.Add({l.name, "handler_error"}, l.handler_errors);
         out.Add({l.name, "stream_error"}, l.stream_errors);
       }
     }},
};

}  // namespace

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
    case ApiRoute::kActors:
      return "actors";
    case ApiRoute::kJobs:
      return "jobs";
    case ApiRoute::kExport:
      return "export";
    case ApiRoute::kTaskCount:
      return "tasks_count";
    case ApiRoute::kUi:
      return "ui";
    case ApiRoute::kCount:
      break;
  }
  return "unknown";
}

std::string_view AbandonReasonName(AbandonReason reason) {
  switch (reason) {
    case AbandonReason::kNotFound:
      return "not_found";
    case AbandonReason::kTooLarge:
      return "too_large";
    case AbandonReason::kInvalidKey:
      return "invalid_key";
    case AbandonReason::kPermissionDenied:
      return "permission_denied";
    case AbandonReason::kAttempts:
      return "attempts";
    case AbandonReason::kCount:
      break;
  }
  return "unknown";
}

std::string RenderHistoryMetrics(const HistoryMetrics& metrics, bool ready, int64_t now_ms,
                                 const std::vector<HttpListenerStats>& listeners) {
  return RenderMetricFamilies<Scrape>(kHistoryFamilies, Scrape{metrics, ready, now_ms, listeners},
                                      {});
}

std::vector<MetricDef> HistoryMetricDefs() { return MetricDefsOf<Scrape>(kHistoryFamilies); }

}  // namespace rayagg::history
