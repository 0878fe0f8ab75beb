// DescribeConfig: the effective configuration for the startup log and
// --check-config. Shows no secrets: URL credentials are masked.
#include <string>
#include <string_view>
#include <vector>

#include "common/text.h"
#include "config/event_type_list.h"
#include "config/load_config.h"
#include "config/object_sink_config.h"
#include "config/units.h"
#include "sinks/rules/sink_url.h"

namespace rayagg {

namespace {

std::string HostPort(const std::string& host, uint16_t port) {
  // IPv6 literals need brackets to be read back as host:port.
  if (host.find(':') != std::string::npos) return strings::Cat("[", host, "]:", port);
  return strings::Cat(host, ":", port);
}

// An HTTP listener's `limits:` (docs/SECURITY.md), on a line of its own.
std::string DescribeListenerLimits(std::string_view listener, const HttpListenerLimits& limits) {
  const std::string requests = limits.max_requests_per_connection == 0
                                   ? std::string("unlimited requests")
                                   : strings::Cat(limits.max_requests_per_connection, " requests");
  return strings::Cat("  ", listener, " limits: ", limits.max_connections,
                      " connections, header <= ", FormatByteSize(limits.max_header_bytes), " in ",
                      limits.max_header_fields, " fields, ", requests,
                      " per connection, idle timeout ", FormatDuration(limits.idle_timeout),
                      ", read timeout ", FormatDuration(limits.read_timeout));
}

std::string DescribeGrpcLimits(const GrpcConfig& grpc) {
  return strings::Cat("  gRPC limits: ", grpc.max_concurrent_streams,
                      " concurrent streams per connection, memory ",
                      FormatByteSize(grpc.memory_limit_bytes), ", handshake timeout ",
                      FormatDuration(grpc.handshake_timeout),
                      ", client pings >= ", FormatDuration(grpc.keepalive_min_interval), " apart");
}

// Header names, token file path, compression and TLS settings. Never a
// header value or a token: either may be a secret.
std::string DescribeHttpOptions(const SinkConfig& sink) {
  std::vector<std::string> parts;
  if (!sink.headers.empty()) {
    std::vector<std::string_view> names;
    for (const auto& header : sink.headers) names.push_back(header.first);
    parts.push_back(strings::Cat("headers ", strings::Join(names, ", "), " (values hidden)"));
  }
  if (!sink.bearer_token_file.empty()) {
    parts.push_back(strings::Cat("bearer token from ", sink.bearer_token_file));
  }
  if (sink.compression == Compression::kGzip) parts.push_back("gzip");
  const TlsConfig& tls = sink.tls;
  if (tls.insecure_skip_verify) parts.push_back("TLS verification OFF (insecure_skip_verify)");
  if (!tls.ca_file.empty()) parts.push_back(strings::Cat("CA file ", tls.ca_file));
  if (!tls.cert_file.empty()) {
    parts.push_back(strings::Cat("client certificate ", tls.cert_file, " key ", tls.key_file));
  }
  if (!tls.server_name.empty()) parts.push_back(strings::Cat("TLS server name ", tls.server_name));
  return strings::Join(parts, "; ");
}

// Object-store sinks: layout identity, object limits, S3 endpoint and where
// the credentials come from (never the credentials).
void DescribeObjectSink(const SinkConfig& sink, std::vector<std::string>& lines) {
  const ClusterConfig& cluster = sink.cluster;
  const ObjectBatchConfig& object = sink.object;
  lines.push_back(strings::Cat(
      "    kuberay layout for ", cluster.kind.empty() ? "raycluster" : cluster.kind, " ",
      cluster.namespace_name, "/", cluster.owner.empty() ? "" : cluster.owner + "/", cluster.name,
      sink.node_id.empty() ? "" : strings::Cat(", node ", sink.node_id), "; event types ",
      FormatEventTypeFilter(sink.event_types), "; objects cut after ",
      FormatDuration(object.max_age), " or at ", FormatByteSize(object.max_bytes), ", ",
      FormatByteSize(object.max_open_bytes), " held at most; ", object.gzip ? "gzip" : "no gzip"));
  if (!strings::EqualsIgnoreCase(sink.url.substr(0, 5), "s3://")) return;
  const S3Config& s3 = sink.s3;
  const std::string credentials =
      !s3.access_key_id_file.empty()
          ? strings::Cat("credentials from ", s3.access_key_id_file, " and ",
                         s3.secret_access_key_file)
          : std::string(s3.access_key_id.empty() ? "no credentials"
                                                 : "credentials from the environment");
  lines.push_back(strings::Cat(
      "    S3 endpoint ", s3.endpoint.empty() ? "AWS" : s3.endpoint, ", region ", s3.region, ", ",
      s3.addressing == S3Config::Addressing::kPath ? "path" : "virtual-hosted", " addressing",
      s3.connect_address.empty() ? "" : strings::Cat(", connecting to ", s3.connect_address), "; ",
      credentials));
}

// Three lines: destination; what and how it batches; how it retries; a
// fourth for HTTP options when any is set.
void DescribeSink(const SinkConfig& sink, std::vector<std::string>& lines) {
  const RetryConfig& retry = sink.retry;
  const std::string retries = retry.max_retries < 0
                                  ? std::string("forever")
                                  : strings::Cat("up to ", retry.max_retries, " times");
  lines.push_back(strings::Cat("  sink \"", sink.name, "\" -> ", RedactUrl(sink.url)));
  if (IsObjectStoreSinkUrl(sink.url)) {
    DescribeObjectSink(sink, lines);
  } else {
    lines.push_back(strings::Cat(
        "    event types ", FormatEventTypeFilter(sink.event_types),
        "; batches of <= ", sink.batch.max_events, " events / ",
        FormatByteSize(sink.batch.max_bytes), " after ", FormatDuration(sink.batch.flush_interval),
        "; ", sink.preserve_proto_field_names ? "snake_case" : "lowerCamelCase", " keys"));
  }
  lines.push_back(
      strings::Cat("    request timeout ", FormatDuration(sink.request_timeout), "; retry ",
                   retries, ", backoff ", FormatDuration(retry.initial_backoff), " doubling to ",
                   FormatDuration(retry.max_backoff), ", ",
                   retry.jitter_ratio.has_value()
                       ? strings::Cat("jitter ", *retry.jitter_ratio)
                       : std::string(sink.retry_policy == RetryPolicy::kRayCompat ? "jitter 0.1"
                                                                                  : "full jitter"),
                   sink.retry_policy == RetryPolicy::kRayCompat ? "; ray_compat" : "",
                   sink.when_full == WhenFull::kBlock ? "; blocks ingest when full" : ""));
  if (std::string http = DescribeHttpOptions(sink); !http.empty()) {
    lines.push_back(strings::Cat("    ", http));
  }
}

std::string DescribeSpool(const SpoolConfig& spool) {
  if (!spool.enabled()) return "spool off (events are held in memory only)";
  std::string sync;
  switch (spool.sync) {
    case SpoolConfig::Sync::kInterval:
      sync = strings::Cat("fsync every ", FormatDuration(spool.sync_interval));
      break;
    case SpoolConfig::Sync::kAlways:
      sync = "fsync before every acknowledgement";
      break;
    case SpoolConfig::Sync::kNever:
      sync = "no fsync (the OS writes back)";
      break;
  }
  return strings::Cat(
      "spool ", spool.dir, " (max ", FormatByteSize(spool.max_bytes), ", segments of ",
      FormatByteSize(spool.segment_bytes), "; ", sync, "; on write error ",
      spool.on_write_error == SpoolConfig::OnWriteError::kRefuse ? "refuse requests"
                                                                 : "acknowledge from memory",
      ")");
}

}  // namespace

std::string DescribeConfig(const Config& config) {
  std::vector<std::string> lines;
  lines.push_back(strings::Cat(
      "gRPC listener ", HostPort(config.grpc.address, config.grpc.port), " (max message ",
      FormatByteSize(config.grpc.max_receive_message_bytes), "); buffer ", config.buffer.max_events,
      " events / ", FormatByteSize(config.buffer.max_bytes), "; log level ", config.log.level,
      "; drain timeout ", FormatDuration(config.shutdown.drain_timeout),
      config.ingest_auth.token_required ? "; ingest requires Ray's auth token" : ""));
  lines.push_back(DescribeGrpcLimits(config.grpc));
  if (config.http_ingest.enabled) {
    lines.push_back(strings::Cat(
        "HTTP JSON ingest ", HostPort(config.http_ingest.address, config.http_ingest.port),
        config.http_ingest.path, " (max body ", FormatByteSize(config.http_ingest.max_body_bytes),
        "; ",
        config.http_ingest.bearer_token_file.empty()
            ? std::string("unauthenticated")
            : strings::Cat("bearer token from ", config.http_ingest.bearer_token_file),
        ")"));
    lines.push_back(DescribeListenerLimits("HTTP ingest", config.http_ingest.limits));
  }
  lines.push_back(strings::Cat(
      "log format ", config.log.format, " to ",
      config.log.file.empty() ? std::string("stderr")
                              : strings::Cat(config.log.file, " (rotated at ",
                                             FormatByteSize(config.log.max_file_bytes), ", ",
                                             config.log.max_files, " kept)"),
      "; ops listener ",
      config.ops.enabled ? HostPort(config.ops.address, config.ops.port) : std::string("off")));
  if (config.ops.enabled) lines.push_back(DescribeListenerLimits("ops", config.ops.limits));
  lines.push_back(DescribeSpool(config.spool));
  if (config.sinks.empty()) {
    lines.push_back("no sinks");
  } else {
    lines.push_back(
        strings::Cat(config.sinks.size(), config.sinks.size() == 1 ? " sink:" : " sinks:"));
    for (const SinkConfig& sink : config.sinks) DescribeSink(sink, lines);
  }
  // No trailing newline: callers log it or print it with their own.
  return strings::Join(lines, "\n");
}

}  // namespace rayagg
