#include "app/metrics_page.h"

#include <chrono>
#include <map>
#include <string_view>

#include "common/event_type_names.h"
#include "ops/prometheus_writer.h"

namespace rayagg {
namespace {

constexpr std::string_view kRayComponent = "aggregator_agent";

double UnixSecondsNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string TypeLabel(int32_t event_type) { return EventTypeName(event_type); }

void RenderIngest(PrometheusWriter& w, const IngestCounters& ingest) {
  w.Family("rayagg_ingest_requests_total", "counter", "Ingest requests received (gRPC and HTTP).");
  w.Sample("rayagg_ingest_requests_total", {}, static_cast<double>(ingest.requests.load()));
  w.Family("rayagg_ingest_http_requests_total", "counter", "Requests through HTTP JSON ingest.");
  w.Sample("rayagg_ingest_http_requests_total", {},
           static_cast<double>(ingest.http_requests.load()));
  w.Family("rayagg_ingest_requests_rejected_total", "counter",
           "Requests answered with an error, by reason.");
  w.Sample("rayagg_ingest_requests_rejected_total", {{"reason", "invalid_payload"}},
           static_cast<double>(ingest.rejected_requests.load()));
  w.Sample("rayagg_ingest_requests_rejected_total", {{"reason", "buffer_refused"}},
           static_cast<double>(ingest.refused_requests.load()));
  w.Sample("rayagg_ingest_requests_rejected_total", {{"reason", "unauthenticated"}},
           static_cast<double>(ingest.unauthenticated_requests.load()));
  w.Family("rayagg_events_received_total", "counter", "Events in valid requests.");
  w.Sample("rayagg_events_received_total", {}, static_cast<double>(ingest.received_events.load()));
  w.Family("rayagg_events_accepted_total", "counter", "Events handed to the buffer.");
  w.Sample("rayagg_events_accepted_total", {}, static_cast<double>(ingest.accepted_events.load()));
  w.Family("rayagg_ingest_dropped_events_total", "counter",
           "Events dropped before the buffer (e.g. HTTP elements that are not RayEvents).");
  for (const auto& [key, count] : ingest.drops.Snapshot()) {
    const std::string type = TypeLabel(key.second);
    w.Sample("rayagg_ingest_dropped_events_total",
             {{"reason", DropReasonName(key.first)}, {"event_type", type}},
             static_cast<double>(count));
  }
  w.Family("rayagg_sender_dropped_task_attempts_total", "counter",
           "Task attempts the senders report having dropped themselves.");
  w.Sample("rayagg_sender_dropped_task_attempts_total", {},
           static_cast<double>(ingest.sender_dropped_task_attempts.load()));
}

void RenderBuffer(PrometheusWriter& w, const EventLog::Snapshot& buffer,
                  const BufferConfig& config) {
  auto gauge = [&](std::string_view name, std::string_view help, double value) {
    w.Family(name, "gauge", help);
    w.Sample(name, {}, value);
  };
  auto counter = [&](std::string_view name, std::string_view help, double value) {
    w.Family(name, "counter", help);
    w.Sample(name, {}, value);
  };
  gauge("rayagg_buffer_events", "Events held.", static_cast<double>(buffer.held_events));
  gauge("rayagg_buffer_bytes", "Serialized event bytes held.",
        static_cast<double>(buffer.held_bytes));
  gauge("rayagg_buffer_reserved_bytes", "Memory reserved for held events.",
        static_cast<double>(buffer.reserved_bytes));
  gauge("rayagg_buffer_capacity_events", "buffer.max_events.",
        static_cast<double>(config.max_events));
  gauge("rayagg_buffer_capacity_bytes", "buffer.max_bytes.", static_cast<double>(config.max_bytes));
  counter("rayagg_buffer_appended_events_total", "Events passed to the buffer.",
          static_cast<double>(buffer.appended_events));
  counter("rayagg_events_deduplicated_total", "Re-sent events dropped as duplicates.",
          static_cast<double>(buffer.deduplicated_events));
  counter("rayagg_events_coalesced_total", "Events merged into an earlier event of their entity.",
          static_cast<double>(buffer.coalesced_events));
}

void RenderSinks(PrometheusWriter& w, const std::vector<std::unique_ptr<Sink>>& sinks) {
  auto per_sink = [&](std::string_view name, std::string_view type, std::string_view help,
                      auto value_of) {
    w.Family(name, type, help);
    for (const auto& sink : sinks) w.Sample(name, {{"sink", sink->name()}}, value_of(*sink));
  };
  per_sink("rayagg_sink_sent_events_total", "counter", "Events delivered.",
           [](const Sink& s) { return static_cast<double>(s.counters().sent_events.load()); });
  per_sink("rayagg_sink_sent_batches_total", "counter", "Requests (or file lines) delivered.",
           [](const Sink& s) { return static_cast<double>(s.counters().sent_batches.load()); });
  per_sink("rayagg_sink_sent_bytes_total", "counter", "JSON body bytes delivered.",
           [](const Sink& s) { return static_cast<double>(s.counters().sent_bytes.load()); });
  per_sink("rayagg_sink_failed_attempts_total", "counter", "Delivery attempts that failed.",
           [](const Sink& s) { return static_cast<double>(s.counters().failed_attempts.load()); });
  per_sink("rayagg_sink_retries_total", "counter", "Retries of a failed batch.",
           [](const Sink& s) { return static_cast<double>(s.counters().retries.load()); });
  per_sink("rayagg_sink_split_batches_total", "counter", "Batches split in halves after a 413.",
           [](const Sink& s) { return static_cast<double>(s.counters().split_batches.load()); });
  per_sink(
      "rayagg_sink_in_flight_batches", "gauge",
      "Batches being sent or waiting out a backoff (at most max_in_flight).",
      [](const Sink& s) { return static_cast<double>(s.counters().in_flight_batches.load()); });
  per_sink("rayagg_sink_refused_requests_total", "counter",
           "Ingest requests refused because this when_full: block sink was full.",
           [](const Sink& s) { return static_cast<double>(s.counters().refused_requests.load()); });
  per_sink(
      "rayagg_sink_consecutive_failures", "gauge", "Failed attempts since the last success.",
      [](const Sink& s) { return static_cast<double>(s.counters().consecutive_failures.load()); });
  per_sink("rayagg_sink_last_success_timestamp_seconds", "gauge",
           "Unix time of the last successful delivery; 0 before the first.", [](const Sink& s) {
             return static_cast<double>(s.counters().last_success_unix_ms.load()) / 1000.0;
           });

  w.Family("rayagg_sink_request_failures_total", "counter", "Failed attempts by reason.");
  for (const auto& sink : sinks) {
    for (size_t i = 0; i < kFailureReasonCount; ++i) {
      w.Sample(
          "rayagg_sink_request_failures_total",
          {{"sink", sink->name()}, {"reason", FailureReasonName(static_cast<FailureReason>(i))}},
          static_cast<double>(sink->request_stats().failures_by_reason[i].load()));
    }
  }
  w.Family("rayagg_sink_dropped_events_total", "counter",
           "Events this sink will never deliver, by reason and event type.");
  for (const auto& sink : sinks) {
    for (const auto& [key, count] : sink->drops().Snapshot()) {
      const std::string type = TypeLabel(key.second);
      w.Sample(
          "rayagg_sink_dropped_events_total",
          {{"sink", sink->name()}, {"reason", DropReasonName(key.first)}, {"event_type", type}},
          static_cast<double>(count));
    }
  }
  w.Family("rayagg_sink_request_duration_seconds", "histogram",
           "Time of each delivery attempt, by outcome.");
  for (const auto& sink : sinks) {
    for (const auto& [outcome, histogram] : {std::pair<std::string_view, const LatencyHistogram*>{
                                                 "success", &sink->request_stats().succeeded},
                                             {"failure", &sink->request_stats().failed}}) {
      const LatencyHistogram::Snapshot snapshot = histogram->Read();
      w.Histogram("rayagg_sink_request_duration_seconds",
                  {{"sink", sink->name()}, {"outcome", outcome}}, LatencyHistogram::kBucketSeconds,
                  snapshot.counts, snapshot.sum_seconds);
    }
  }
}

// Ray's own names for the same data (docs/METRICS.md, "Ray's names").
void RenderRayNames(PrometheusWriter& w, const MetricsInput& input) {
  const MetricLabels component = {{"Component", kRayComponent}};
  w.Family("ray_aggregator_agent_events_received_total", "counter",
           "Events received (Ray's name for rayagg_events_received_total).");
  w.Sample("ray_aggregator_agent_events_received_total", component,
           static_cast<double>(input.ingest.received_events.load()));
  w.Family("ray_aggregator_agent_published_events_total", "counter",
           "Events delivered per consumer (Ray's name).");
  for (const auto& sink : input.sinks) {
    w.Sample("ray_aggregator_agent_published_events_total",
             {{"Component", kRayComponent}, {"consumer", sink->name()}},
             static_cast<double>(sink->counters().sent_events.load()));
  }
  w.Family("ray_aggregator_agent_queue_dropped_events_total", "counter",
           "Events evicted unread from the full buffer (Ray's name).");
  w.Family("ray_aggregator_agent_publish_failures_total", "counter",
           "Events dropped after exhausting retries (Ray's name).");
  std::vector<std::pair<std::string, double>> publish_failures;
  for (const auto& sink : input.sinks) {
    double exhausted = 0;
    for (const auto& [key, count] : sink->drops().Snapshot()) {
      if (key.first == DropReason::kRetriesExhausted) exhausted += static_cast<double>(count);
      if (key.first != DropReason::kOverflow) continue;
      const std::string type = TypeLabel(key.second);
      w.Sample("ray_aggregator_agent_queue_dropped_events_total",
               {{"Component", kRayComponent}, {"consumer", sink->name()}, {"event_type", type}},
               static_cast<double>(count));
    }
    publish_failures.emplace_back(sink->name(), exhausted);
  }
  for (const auto& [name, exhausted] : publish_failures) {
    w.Sample("ray_aggregator_agent_publish_failures_total",
             {{"Component", kRayComponent}, {"consumer", name}}, exhausted);
  }
  w.Family("ray_aggregator_agent_publish_latency_seconds", "histogram",
           "Publish attempt latency (Ray's name).");
  for (const auto& sink : input.sinks) {
    for (const auto& [outcome, histogram] : {std::pair<std::string_view, const LatencyHistogram*>{
                                                 "success", &sink->request_stats().succeeded},
                                             {"failure", &sink->request_stats().failed}}) {
      const LatencyHistogram::Snapshot snapshot = histogram->Read();
      w.Histogram("ray_aggregator_agent_publish_latency_seconds",
                  {{"Component", kRayComponent}, {"consumer", sink->name()}, {"Outcome", outcome}},
                  LatencyHistogram::kBucketSeconds, snapshot.counts, snapshot.sum_seconds);
    }
  }
  w.Family("ray_aggregator_agent_consecutive_failures_since_last_success", "gauge",
           "Failed attempts since the last success (Ray's name).");
  for (const auto& sink : input.sinks) {
    w.Sample("ray_aggregator_agent_consecutive_failures_since_last_success",
             {{"Component", kRayComponent}, {"consumer", sink->name()}},
             static_cast<double>(sink->counters().consecutive_failures.load()));
  }
  w.Family("ray_aggregator_agent_time_since_last_success_seconds", "gauge",
           "Seconds since the last successful delivery (Ray's name).");
  const double now = UnixSecondsNow();
  for (const auto& sink : input.sinks) {
    const int64_t last_ms = sink->counters().last_success_unix_ms.load();
    if (last_ms == 0) continue;
    w.Sample("ray_aggregator_agent_time_since_last_success_seconds",
             {{"Component", kRayComponent}, {"consumer", sink->name()}},
             std::max(0.0, now - static_cast<double>(last_ms) / 1000.0));
  }
}

}  // namespace

std::string RenderMetrics(const MetricsInput& input) {
  PrometheusWriter w(input.constant_labels);
  RenderIngest(w, input.ingest);
  RenderBuffer(w, input.buffer, input.buffer_config);
  RenderSinks(w, input.sinks);
  w.Family("rayagg_build_info", "gauge", "Always 1; the version is a label.");
  w.Sample("rayagg_build_info", {{"version", RAYAGG_VERSION}}, 1);
  w.Family("rayagg_ready", "gauge", "1 while serving, 0 while draining.");
  w.Sample("rayagg_ready", {}, input.ready ? 1 : 0);
  w.Family("rayagg_config_reloads_total", "counter", "SIGHUP reloads by result.");
  w.Sample("rayagg_config_reloads_total", {{"result", "success"}},
           static_cast<double>(input.reloads_succeeded));
  w.Sample("rayagg_config_reloads_total", {{"result", "failure"}},
           static_cast<double>(input.reloads_failed));
  RenderRayNames(w, input);
  return w.text();
}

}  // namespace rayagg
