#include "app/daemon_metrics.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "common/event_type_names.h"

namespace rayagg {
namespace {

using enum MetricType;
using Family = MetricFamily<MetricsInput>;

constexpr std::string_view kRayComponent = "aggregator_agent";

// ---- Collectors shared by several rows ----

template <auto Field>  // std::atomic<uint64_t> IngestCounters::*
void Ingest(const MetricsInput& in, MetricSamples& out) {
  out.Add({}, (in.ingest.*Field).load());
}

template <auto Field>  // uint64_t EventLog::Snapshot::*
void Buffer(const MetricsInput& in, MetricSamples& out) {
  out.Add({}, in.buffer.*Field);
}

template <auto Field>  // std::atomic<uint64_t> SinkCounters::*, label `sink`
void PerSink(const MetricsInput& in, MetricSamples& out) {
  for (const auto& sink : in.sinks) out.Add({sink.name}, (sink.counters.*Field).load());
}

template <auto Field>  // std::atomic<uint64_t> ObjectSinkCounters::*, label `sink`
void PerObjectSink(const MetricsInput& in, MetricSamples& out) {
  for (const auto& sink : in.sinks) {
    if (sink.object != nullptr) out.Add({sink.name}, (sink.object->*Field).load());
  }
}

template <auto Field>  // the same, under Ray's labels (Component, consumer)
void PerConsumer(const MetricsInput& in, MetricSamples& out) {
  for (const auto& sink : in.sinks) {
    out.Add({kRayComponent, sink.name}, (sink.counters.*Field).load());
  }
}

template <auto Field>  // std::atomic<uint64_t> HttpServerCounters::*, label `listener`
void PerListener(const MetricsInput& in, MetricSamples& out) {
  for (const HttpListenerCounters& listener : in.http_listeners) {
    out.Add({listener.name}, (listener.counters.*Field).load());
  }
}

// Drop counts by reason and event-type label. Numbers this build does not
// know share one label value (EventTypeLabel), so senders cannot grow the
// label set; counts that share a label are summed.
std::map<std::pair<DropReason, std::string>, uint64_t> DropsByLabel(const DropCounters& drops) {
  std::map<std::pair<DropReason, std::string>, uint64_t> by_label;
  for (const auto& [key, count] : drops.Snapshot()) {
    by_label[{key.first, EventTypeLabel(key.second)}] += count;
  }
  return by_label;
}

// Calls visit(sink name, outcome, histogram) for each sink's attempt
// latencies by outcome ("success", "failure").
template <typename Visit>
void ForEachAttemptLatency(const MetricsInput& in, Visit visit) {
  for (const auto& sink : in.sinks) {
    visit(sink.name, "success", sink.request_stats.succeeded.Read());
    visit(sink.name, "failure", sink.request_stats.failed.Read());
  }
}

// ---- The table: one row per family, in page order ----

// A spool statistic; no sample without a spool.
template <auto Field>
void Spool(const MetricsInput& in, MetricSamples& out) {
  if (in.spool != nullptr) out.Add({}, static_cast<double>(in.spool->Stats().*Field));
}

constexpr Family kFamilies[] = {
    // Ingest: what senders sent.
    {{"rayagg_ingest_requests_total", kCounter, {}, "Ingest requests received (gRPC and HTTP)."},
     Ingest<&IngestCounters::requests>},
    {{"rayagg_ingest_http_requests_total", kCounter, {}, "Requests through HTTP JSON ingest."},
     Ingest<&IngestCounters::http_requests>},
    {{"rayagg_ingest_requests_rejected_total",
      kCounter,
      {"reason"},
      "Requests answered with an error, by reason."},
     [](const MetricsInput& in, MetricSamples& out) {
       out.Add({"invalid_payload"}, in.ingest.rejected_requests.load());
       out.Add({"buffer_refused"}, in.ingest.refused_requests.load());
       out.Add({"unauthenticated"}, in.ingest.unauthenticated_requests.load());
       out.Add({"no_message"}, in.ingest.no_message_requests.load());
       out.Add({"unsupported_content_type"}, in.ingest.unsupported_content_type_requests.load());
     }},
    {{"rayagg_events_received_total", kCounter, {}, "Events in valid requests."},
     Ingest<&IngestCounters::received_events>},
    {{"rayagg_events_accepted_total", kCounter, {}, "Events handed to the buffer."},
     Ingest<&IngestCounters::accepted_events>},
    {{"rayagg_ingest_dropped_events_total",
      kCounter,
      {"reason", "event_type"},
      "Events dropped before the buffer (e.g. HTTP elements that are not RayEvents)."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const auto& [key, count] : DropsByLabel(in.ingest.drops)) {
         out.Add({DropReasonName(key.first), key.second}, count);
       }
     }},
    {{"rayagg_sender_dropped_task_attempts_total",
      kCounter,
      {},
      "Task attempts the senders report having dropped themselves."},
     Ingest<&IngestCounters::sender_dropped_task_attempts>},

    // Buffer: the event log shared by every sink.
    {{"rayagg_buffer_events", kGauge, {}, "Events held."},
     Buffer<&EventLog::Snapshot::held_events>},
    {{"rayagg_buffer_bytes", kGauge, {}, "Serialized event bytes held."},
     Buffer<&EventLog::Snapshot::held_bytes>},
    {{"rayagg_buffer_reserved_bytes", kGauge, {}, "Memory reserved for held events."},
     Buffer<&EventLog::Snapshot::reserved_bytes>},
    {{"rayagg_buffer_capacity_events", kGauge, {}, "buffer.max_events."},
     [](const MetricsInput& in, MetricSamples& out) { out.Add({}, in.buffer_config.max_events); }},
    {{"rayagg_buffer_capacity_bytes", kGauge, {}, "buffer.max_bytes."},
     [](const MetricsInput& in, MetricSamples& out) { out.Add({}, in.buffer_config.max_bytes); }},
    {{"rayagg_buffer_appended_events_total", kCounter, {}, "Events passed to the buffer."},
     Buffer<&EventLog::Snapshot::appended_events>},
    {{"rayagg_events_deduplicated_total", kCounter, {}, "Re-sent events dropped as duplicates."},
     Buffer<&EventLog::Snapshot::deduplicated_events>},
    {{"rayagg_events_coalesced_total",
      kCounter,
      {},
      "Events merged into an earlier event of their entity."},
     Buffer<&EventLog::Snapshot::coalesced_events>},

    // The disk spool (spool.dir set).
    {{"rayagg_spool_bytes", kGauge, {}, "Bytes of the spool's segment files."},
     Spool<&spool::SpoolStats::bytes>},
    {{"rayagg_spool_segments", kGauge, {}, "Segment files in the spool."},
     Spool<&spool::SpoolStats::segments>},
    {{"rayagg_spool_capacity_bytes", kGauge, {}, "spool.max_bytes."},
     [](const MetricsInput& in, MetricSamples& out) {
       if (in.spool != nullptr) out.Add({}, in.spool->options().max_bytes);
     }},
    {{"rayagg_spool_pending_bytes",
      kGauge,
      {},
      "Record bytes accepted but not yet durable as spool.sync promises."},
     [](const MetricsInput& in, MetricSamples& out) {
       if (in.spool != nullptr && in.log != nullptr) out.Add({}, in.log->PendingRecordBytes());
     }},
    {{"rayagg_spool_written_bytes_total", kCounter, {}, "Record bytes written (copies included)."},
     Spool<&spool::SpoolStats::written_bytes>},
    {{"rayagg_spool_write_duration_seconds", kHistogram, {}, "Time of each spool write."},
     [](const MetricsInput& in, MetricSamples& out) {
       if (in.spool == nullptr) return;
       const LatencyHistogram::Snapshot latency = in.spool->write_latency().Read();
       out.AddHistogram({}, LatencyHistogram::kBucketSeconds, latency.counts, latency.sum_seconds);
     }},
    {{"rayagg_spool_fsync_duration_seconds", kHistogram, {}, "Time of each spool fsync."},
     [](const MetricsInput& in, MetricSamples& out) {
       if (in.spool == nullptr) return;
       const LatencyHistogram::Snapshot latency = in.spool->sync_latency().Read();
       out.AddHistogram({}, LatencyHistogram::kBucketSeconds, latency.counts, latency.sum_seconds);
     }},
    {{"rayagg_spool_write_errors_total", kCounter, {}, "Failed spool writes."},
     Spool<&spool::SpoolStats::write_errors>},
    {{"rayagg_spool_fsync_errors_total", kCounter, {}, "Failed spool fsyncs."},
     Spool<&spool::SpoolStats::sync_errors>},
    {{"rayagg_spool_writable",
      kGauge,
      {},
      "1 while the spool writes, 0 while it is down (on_write_error applies)."},
     [](const MetricsInput& in, MetricSamples& out) {
       if (in.spool != nullptr) {
         out.Add({}, in.spool->health() == spool::SpoolHealth::kHealthy ? 1 : 0);
       }
     }},
    {{"rayagg_spool_evicted_segments_total",
      kCounter,
      {},
      "Segments deleted to keep the spool within spool.max_bytes."},
     Spool<&spool::SpoolStats::evicted_segments>},
    {{"rayagg_spool_recovering", kGauge, {}, "1 while recovery scans an earlier run's segments."},
     [](const MetricsInput& in, MetricSamples& out) {
       if (in.spool != nullptr) out.Add({}, in.spool->recovering() ? 1 : 0);
     }},
    {{"rayagg_spool_recovered_records", kGauge, {}, "Intact records recovery found at start."},
     Spool<&spool::SpoolStats::recovered_records>},
    {{"rayagg_spool_recovered_bytes", kGauge, {}, "Bytes recovery scanned at start."},
     Spool<&spool::SpoolStats::recovered_bytes>},
    {{"rayagg_spool_corrupt_regions", kGauge, {}, "Damaged regions recovery skipped at start."},
     Spool<&spool::SpoolStats::corrupt_regions>},
    {{"rayagg_spool_torn_bytes", kGauge, {}, "Bytes recovery cut from torn segment tails."},
     Spool<&spool::SpoolStats::torn_bytes>},
    {{"rayagg_spool_moved_aside_segments",
      kGauge,
      {},
      "Segments moved aside at start because the disk would not read them."},
     Spool<&spool::SpoolStats::moved_aside_segments>},
    {{"rayagg_sink_replayed_events_total",
      kCounter,
      {"sink"},
      "Events read back from an earlier run's spool records (spool only)."},
     [](const MetricsInput& in, MetricSamples& out) {
       if (in.spool == nullptr) return;
       for (const SinkMetricsSource& sink : in.sinks) out.Add({sink.name}, sink.replayed_events);
     }},
    {{"rayagg_sink_backlog_entries",
      kGauge,
      {"sink"},
      "Entries after the sink's released position (spool only)."},
     [](const MetricsInput& in, MetricSamples& out) {
       if (in.spool == nullptr || in.log == nullptr) return;
       const uint64_t next = in.buffer.next_sequence;
       const uint64_t first = std::min(in.spool->first_sequence(), next);
       const bool recovered = !in.spool->recovering();
       for (const SinkMetricsSource& sink : in.sinks) {
         const uint64_t released = std::min(sink.released_position, next);
         uint64_t backlog = next - released;
         if (released < first && recovered) {
           // This run's sequences start above a bound worked out from the
           // earlier run's file sizes: the sequences between its newest
           // entry and this run's first are no entry's.
           const uint64_t earlier_end = std::clamp(in.spool->recovered_end(), released, first);
           backlog = (next - first) + (earlier_end - released);
         }
         out.Add({sink.name}, backlog);
       }
     }},
    {{"rayagg_sink_oldest_unsent_age_seconds",
      kGauge,
      {"sink"},
      "Age of the segment holding the sink's oldest unsent event (spool only)."},
     [](const MetricsInput& in, MetricSamples& out) {
       if (in.spool == nullptr || in.log == nullptr) return;
       for (const SinkMetricsSource& sink : in.sinks) {
         const uint64_t released = sink.released_position;
         double age = 0;
         if (released < in.buffer.next_sequence) {
           const auto location = in.spool->segments().Locate(released);
           const auto segment =
               location ? in.spool->segments().Get(location->segment) : std::nullopt;
           if (segment && segment->created_unix_ms > 0) {
             age = std::max(
                 0.0, in.unix_now_seconds - static_cast<double>(segment->created_unix_ms) / 1000.0);
           }
         }
         out.Add({sink.name}, age);
       }
     }},

    // Sinks: one series set per configured sink.
    {{"rayagg_sink_sent_events_total", kCounter, {"sink"}, "Events delivered."},
     PerSink<&SinkCounters::sent_events>},
    {{"rayagg_sink_sent_batches_total", kCounter, {"sink"}, "Requests (or file lines) delivered."},
     PerSink<&SinkCounters::sent_batches>},
    {{"rayagg_sink_sent_bytes_total", kCounter, {"sink"}, "JSON body bytes delivered."},
     PerSink<&SinkCounters::sent_bytes>},
    {{"rayagg_sink_failed_attempts_total", kCounter, {"sink"}, "Delivery attempts that failed."},
     PerSink<&SinkCounters::failed_attempts>},
    {{"rayagg_sink_retries_total", kCounter, {"sink"}, "Retries of a failed batch."},
     PerSink<&SinkCounters::retries>},
    {{"rayagg_sink_split_batches_total",
      kCounter,
      {"sink"},
      "Batches split in halves after a 413."},
     PerSink<&SinkCounters::split_batches>},
    {{"rayagg_sink_in_flight_batches",
      kGauge,
      {"sink"},
      "Batches being sent or waiting out a backoff (at most max_in_flight)."},
     PerSink<&SinkCounters::in_flight_batches>},
    {{"rayagg_sink_refused_requests_total",
      kCounter,
      {"sink"},
      "Ingest requests refused because this when_full: block sink was full."},
     PerSink<&SinkCounters::refused_requests>},
    {{"rayagg_sink_consecutive_failures",
      kGauge,
      {"sink"},
      "Failed attempts since the last success."},
     PerSink<&SinkCounters::consecutive_failures>},
    {{"rayagg_sink_last_success_timestamp_seconds",
      kGauge,
      {"sink"},
      "Unix time of the last successful delivery; 0 before the first."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const auto& sink : in.sinks) {
         out.Add({sink.name},
                 static_cast<double>(sink.counters.last_success_unix_ms.load()) / 1000.0);
       }
     }},
    {{"rayagg_sink_request_failures_total",
      kCounter,
      {"sink", "reason"},
      "Failed attempts by reason."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const auto& sink : in.sinks) {
         for (size_t i = 0; i < kFailureReasonCount; ++i) {
           out.Add({sink.name, FailureReasonName(static_cast<FailureReason>(i))},
                   sink.request_stats.failures_by_reason[i].load());
         }
       }
     }},
    {{"rayagg_sink_dropped_events_total",
      kCounter,
      {"sink", "reason", "event_type"},
      "Events this sink will never deliver, by reason and event type."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const auto& sink : in.sinks) {
         for (const auto& [key, count] : DropsByLabel(sink.drops)) {
           out.Add({sink.name, DropReasonName(key.first), key.second}, count);
         }
       }
     }},
    {{"rayagg_sink_request_duration_seconds",
      kHistogram,
      {"sink", "outcome"},
      "Time of each delivery attempt, by outcome."},
     [](const MetricsInput& in, MetricSamples& out) {
       ForEachAttemptLatency(in, [&](std::string_view sink, std::string_view outcome,
                                     const LatencyHistogram::Snapshot& latency) {
         out.AddHistogram({sink, outcome}, LatencyHistogram::kBucketSeconds, latency.counts,
                          latency.sum_seconds);
       });
     }},

    // Object-store sinks (docs/OBJECT_STORE.md), label `sink`.
    {{"rayagg_object_sink_open_objects",
      kGauge,
      {"sink"},
      "Objects being filled (one per session, node and category)."},
     PerObjectSink<&ObjectSinkCounters::open_objects>},
    {{"rayagg_object_sink_held_bytes",
      kGauge,
      {"sink"},
      "Bytes held: open objects' JSON plus cut objects awaiting upload (stored bytes and 96 per "
      "event); bounded by object.max_open_bytes."},
     PerObjectSink<&ObjectSinkCounters::held_bytes>},
    {{"rayagg_object_sink_json_bytes_total",
      kCounter,
      {"sink"},
      "JSON Lines bytes uploaded, before compression."},
     PerObjectSink<&ObjectSinkCounters::json_bytes>},
    {{"rayagg_object_sink_session_markers_total", kCounter, {"sink"}, "Session markers written."},
     PerObjectSink<&ObjectSinkCounters::markers>},
    {{"rayagg_object_sink_writer_state_resets_total",
      kCounter,
      {"sink"},
      "Writer state files (spool on) found unreadable or corrupt at start: a new writer began."},
     PerObjectSink<&ObjectSinkCounters::writer_state_resets>},
    {{"rayagg_object_sink_writer_state_write_errors_total",
      kCounter,
      {"sink"},
      "Failed saves of the writer state file (spool on)."},
     PerObjectSink<&ObjectSinkCounters::writer_state_write_errors>},
    {{"rayagg_object_sink_upload_failures_total",
      kCounter,
      {"sink", "reason"},
      "Failed uploads by the store's reason (SlowDown, AccessDenied, timeout, connection, io "
      "...)."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const auto& sink : in.sinks) {
         if (sink.object == nullptr) continue;
         for (const auto& [reason, count] : sink.object->Failures()) {
           out.Add({sink.name, reason}, count);
         }
       }
     }},

    // The daemon's own HTTP listeners (HTTP ingest, ops), label `listener`.
    {{"rayagg_http_server_connections_accepted_total",
      kCounter,
      {"listener"},
      "Connections accepted."},
     PerListener<&HttpServerCounters::connections_accepted>},
    {{"rayagg_http_server_connections_refused_total",
      kCounter,
      {"listener"},
      "Connections closed at once: max_connections were open, none of them waiting."},
     PerListener<&HttpServerCounters::connections_refused>},
    {{"rayagg_http_server_connections_closed_total",
      kCounter,
      {"listener", "reason"},
      "Connections the server closed under its limits, by reason."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const HttpListenerCounters& listener : in.http_listeners) {
         const HttpServerCounters& c = listener.counters;
         out.Add({listener.name, "idle_timeout"}, c.idle_timeouts.load());
         out.Add({listener.name, "evicted_idle"}, c.evicted_idle.load());
         out.Add({listener.name, "evicted_in_request"}, c.evicted_in_request.load());
         out.Add({listener.name, "max_requests"}, c.max_requests_reached.load());
       }
     }},
    {{"rayagg_http_server_connections",
      kGauge,
      {"listener", "state"},
      "Open connections: idle (waiting for a request), in_request (one arriving), busy."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const HttpListenerCounters& listener : in.http_listeners) {
         const HttpConnectionCounts& c = listener.connections;
         const size_t waiting = c.idle + c.in_request;
         out.Add({listener.name, "idle"}, static_cast<double>(c.idle));
         out.Add({listener.name, "in_request"}, static_cast<double>(c.in_request));
         out.Add({listener.name, "busy"}, static_cast<double>(c.open - std::min(c.open, waiting)));
       }
     }},
    {{"rayagg_http_server_requests_total",
      kCounter,
      {"listener"},
      "Complete requests routed (any answer)."},
     PerListener<&HttpServerCounters::requests>},
    {{"rayagg_http_server_errors_total",
      kCounter,
      {"listener", "reason"},
      "Requests or connections the server itself ended, by reason."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const HttpListenerCounters& listener : in.http_listeners) {
         const HttpServerCounters& c = listener.counters;
         out.Add({listener.name, "bad_request"}, c.bad_requests.load());
         out.Add({listener.name, "header_too_large"}, c.headers_too_large.load());
         out.Add({listener.name, "too_many_header_fields"}, c.too_many_header_fields.load());
         out.Add({listener.name, "body_too_large"}, c.bodies_too_large.load());
         out.Add({listener.name, "unauthorized"}, c.unauthorized.load());
         out.Add({listener.name, "timeout"}, c.timeouts.load());
         out.Add({listener.name, "handler_error"}, c.handler_errors.load());
       }
     }},

    // Process.
    {{"rayagg_build_info", kGauge, {"version"}, "Always 1; the version is a label."},
     [](const MetricsInput&, MetricSamples& out) { out.Add({RAYAGG_VERSION}, 1); }},
    {{"rayagg_ready", kGauge, {}, "1 while serving, 0 while draining."},
     [](const MetricsInput& in, MetricSamples& out) { out.Add({}, in.ready ? 1 : 0); }},
    {{"rayagg_config_reloads_total", kCounter, {"result"}, "SIGHUP reloads by result."},
     [](const MetricsInput& in, MetricSamples& out) {
       out.Add({"success"}, in.reloads_succeeded);
       out.Add({"failure"}, in.reloads_failed);
     }},

    // Ray's own names for the same data (docs/METRICS.md, "Ray's names").
    {{"ray_aggregator_agent_events_received_total",
      kCounter,
      {"Component"},
      "Events received (Ray's name for rayagg_events_received_total)."},
     [](const MetricsInput& in, MetricSamples& out) {
       out.Add({kRayComponent}, in.ingest.received_events.load());
     }},
    {{"ray_aggregator_agent_published_events_total",
      kCounter,
      {"Component", "consumer"},
      "Events delivered per consumer (Ray's name)."},
     PerConsumer<&SinkCounters::sent_events>},
    {{"ray_aggregator_agent_queue_dropped_events_total",
      kCounter,
      {"Component", "consumer", "event_type"},
      "Events evicted unread from the full buffer (Ray's name)."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const auto& sink : in.sinks) {
         for (const auto& [key, count] : DropsByLabel(sink.drops)) {
           if (key.first != DropReason::kOverflow) continue;
           out.Add({kRayComponent, sink.name, key.second}, count);
         }
       }
     }},
    {{"ray_aggregator_agent_publish_failures_total",
      kCounter,
      {"Component", "consumer"},
      "Events dropped after exhausting retries (Ray's name)."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const auto& sink : in.sinks) {
         out.Add({kRayComponent, sink.name}, sink.drops.Total(DropReason::kRetriesExhausted));
       }
     }},
    {{"ray_aggregator_agent_publish_latency_seconds",
      kHistogram,
      {"Component", "consumer", "Outcome"},
      "Publish attempt latency (Ray's name)."},
     [](const MetricsInput& in, MetricSamples& out) {
       ForEachAttemptLatency(in, [&](std::string_view sink, std::string_view outcome,
                                     const LatencyHistogram::Snapshot& latency) {
         out.AddHistogram({kRayComponent, sink, outcome}, LatencyHistogram::kBucketSeconds,
                          latency.counts, latency.sum_seconds);
       });
     }},
    {{"ray_aggregator_agent_consecutive_failures_since_last_success",
      kGauge,
      {"Component", "consumer"},
      "Failed attempts since the last success (Ray's name)."},
     PerConsumer<&SinkCounters::consecutive_failures>},
    {{"ray_aggregator_agent_time_since_last_success_seconds",
      kGauge,
      {"Component", "consumer"},
      "Seconds since the last successful delivery (Ray's name)."},
     [](const MetricsInput& in, MetricSamples& out) {
       for (const auto& sink : in.sinks) {
         const int64_t last_ms = sink.counters.last_success_unix_ms.load();
         if (last_ms == 0) continue;  // absent before the first success
         out.Add({kRayComponent, sink.name},
                 std::max(0.0, in.unix_now_seconds - static_cast<double>(last_ms) / 1000.0));
       }
     }},
};

}  // namespace

std::span<const MetricFamily<MetricsInput>> DaemonMetricFamilies() { return kFamilies; }

std::string RenderMetrics(const MetricsInput& input,
                          const std::vector<std::pair<std::string, std::string>>& constant_labels) {
  return RenderMetricFamilies(DaemonMetricFamilies(), input, constant_labels);
}

}  // namespace rayagg
