// The daemon's /metrics, declared once (ops/metric_table.h): every family —
// name, type, labels, help and where its value comes from — is one row of
// DaemonMetricFamilies(). The page is rendered from it, and
// tests/unit/app/daemon_metrics_test.cc checks docs/METRICS.md against it.
// Every value is read at scrape time; nothing is aggregated in the background.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "buffer/event_log.h"
#include "http/http_server.h"
#include "ingest/ingest_counters.h"
#include "objsink/object_sink.h"
#include "ops/metric_table.h"
#include "rayagg/config.h"
#include "sinks/sink.h"
#include "spool/spool.h"

namespace rayagg {

// One of the daemon's HTTP listeners, by the `listener` label value.
struct HttpListenerCounters {
  std::string_view name;  // "http_ingest" or "ops"
  const HttpServerCounters& counters;
  HttpConnectionCounts connections{};  // at the scrape
};

// What /metrics reads of one sink, whatever its kind.
struct SinkMetricsSource {
  std::string_view name;
  const SinkCounters& counters;
  const DropCounters& drops;
  const SinkRequestStats& request_stats;
  // Object-store sinks only.
  const ObjectSinkCounters* object = nullptr;
  // The sink's released position in the event log (its backlog with a spool).
  uint64_t released_position = 0;
  // Events it read back from an earlier run's spool records.
  uint64_t replayed_events = 0;
};

// What the daemon's metrics are read from, at one scrape.
struct MetricsInput {
  const IngestCounters& ingest;
  EventLog::Snapshot buffer;
  const BufferConfig& buffer_config;
  // Every sink, in config order.
  std::vector<SinkMetricsSource> sinks;
  // The listeners that run (a disabled one is left out).
  std::vector<HttpListenerCounters> http_listeners;
  bool ready = false;
  uint64_t reloads_succeeded = 0;
  uint64_t reloads_failed = 0;
  // When the scrape happens (Unix seconds), for "time since" gauges.
  double unix_now_seconds = 0;
  // The disk spool and the log it is fed from; null without a spool (its
  // families then have no samples).
  const spool::Spool* spool = nullptr;
  const EventLog* log = nullptr;
};

// Every family of the daemon's /metrics, in page order.
std::span<const MetricFamily<MetricsInput>> DaemonMetricFamilies();

// The /metrics page; `constant_labels` (ops.constant_labels) go on every sample.
std::string RenderMetrics(const MetricsInput& input,
                          const std::vector<std::pair<std::string, std::string>>& constant_labels);

}  // namespace rayagg
