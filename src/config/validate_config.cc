#include "config/validate_config.h"

#include <algorithm>
#include <map>
#include <utility>

#include "common/text.h"
#include "config/object_sink_config.h"
#include "config/ray_environment.h"
#include "config/units.h"
#include "http/rules/http_header_rules.h"
#include "sinks/rules/sink_url.h"

namespace rayagg {

namespace {

// headers, bearer_token_file, compression and tls: HTTP(S) options. Header
// values are never quoted in messages: they may be secrets.
void ValidateHttpOptions(const SinkConfig& sink, const std::string& path, Problems& problems) {
  std::map<std::string, std::string, std::less<>> seen;  // lowercase name -> as written
  for (const auto& [name, value] : sink.headers) {
    const std::string key = strings::Cat(path, ".headers.", name);
    const std::string lower = strings::ToLower(name);
    if (!IsValidHeaderName(name)) {
      problems.Add(key, "is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~)");
    } else if (IsFramingHeader(name)) {
      problems.Add(key, "is always derived from the request body and cannot be set");
    } else if (lower == "content-encoding") {
      problems.Add(key, "is set by `compression`; use compression: gzip instead");
    } else if (lower == "authorization" && !sink.bearer_token_file.empty()) {
      problems.Add(key, "conflicts with bearer_token_file, which sets Authorization");
    } else if (!seen.emplace(lower, name).second) {
      problems.Add(key, strings::Cat("duplicate header (also given as \"", seen[lower], "\")"));
    }
    if (!IsValidHeaderValue(value)) problems.Add(key, "value must not contain CR, LF or NUL");
  }
  const TlsConfig& tls = sink.tls;
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    problems.Add(path + (tls.cert_file.empty() ? ".tls.cert_file" : ".tls.key_file"),
                 "tls.cert_file and tls.key_file must be given together (client certificate)");
  }
}

// Options that only an http(s) sink (or only an https one) can use.
void ValidateOptionsForScheme(const SinkConfig& sink, const SinkUrl& url, const std::string& path,
                              Problems& problems) {
  const bool http = url.kind == SinkUrl::Kind::kHttp;
  const bool https = http && url.http.scheme == "https";
  const TlsConfig& tls = sink.tls;
  const bool any_tls = !tls.ca_file.empty() || !tls.cert_file.empty() || !tls.key_file.empty() ||
                       !tls.server_name.empty() || tls.insecure_skip_verify;
  if (!http) {
    if (!sink.headers.empty()) problems.Add(path + ".headers", "only for http(s):// sinks");
    if (!sink.bearer_token_file.empty())
      problems.Add(path + ".bearer_token_file", "only for http(s):// sinks");
    if (sink.compression != Compression::kNone)
      problems.Add(path + ".compression", "only for http(s):// sinks");
  }
  if (any_tls && !https) problems.Add(path + ".tls", "only for https:// sinks");
}

void ValidateSink(const SinkConfig& sink, const std::string& path, Problems& problems) {
  if (!IsValidSinkName(sink.name)) {
    problems.Add(
        path + ".name",
        strings::Cat("must be letters, digits, '_', '.' or '-' only; got \"", sink.name, "\""));
  }
  if (sink.url.empty()) {
    problems.Add(path + ".url",
                 "is required, e.g. http://collector:8080/events or file:///dev/stdout");
  } else if (IsObjectStoreSinkUrl(sink.url)) {
    ValidateObjectSink(sink, path, problems);
  } else if (auto url = ParseSinkUrl(sink.url); !url.ok()) {
    problems.Add(path + ".url", strings::View(url.status().message()));
  } else {
    ValidateOptionsForScheme(sink, *url, path, problems);
    ValidateNoObjectSinkOptions(sink, path, problems);
  }
  if (!IsObjectStoreSinkUrl(sink.url)) ValidateHttpOptions(sink, path, problems);
  if (sink.batch.max_events < 1) problems.Add(path + ".batch.max_events", "must be >= 1");
  if (sink.batch.max_bytes < kMinBatchBytes) {
    problems.Add(path + ".batch.max_bytes",
                 strings::Cat("must be >= ", FormatByteSize(kMinBatchBytes)));
  }
  if (sink.batch.flush_interval.count() < 0 || sink.batch.flush_interval > kMaxDuration) {
    problems.Add(path + ".batch.flush_interval",
                 strings::Cat("must be from 0ms to ", FormatDuration(kMaxDuration)));
  }
  if (sink.request_timeout.count() <= 0 || sink.request_timeout > kMaxDuration) {
    problems.Add(path + ".request_timeout",
                 strings::Cat("must be from 1ms to ", FormatDuration(kMaxDuration)));
  }
  const RetryConfig& retry = sink.retry;
  if (retry.initial_backoff.count() <= 0 || retry.initial_backoff > kMaxDuration) {
    problems.Add(path + ".retry.initial_backoff",
                 strings::Cat("must be from 1ms to ", FormatDuration(kMaxDuration)));
  } else if (retry.max_backoff < retry.initial_backoff || retry.max_backoff > kMaxDuration) {
    problems.Add(
        path + ".retry.max_backoff",
        strings::Cat("must be at least retry.initial_backoff (",
                     FormatDuration(retry.initial_backoff), ") and at most ",
                     FormatDuration(kMaxDuration), "; got ", FormatDuration(retry.max_backoff)));
  }
  if (retry.jitter_ratio.has_value() &&
      !(*retry.jitter_ratio >= 0.0 && *retry.jitter_ratio <= 1.0)) {
    problems.Add(path + ".retry.jitter_ratio",
                 strings::Cat("must be from 0 to 1; got ", *retry.jitter_ratio));
  }
  if (retry.max_retries < -1)
    problems.Add(path + ".retry.max_retries", "must be >= -1 (-1 retries forever)");
  if (retry.max_elapsed.count() < 0 || retry.max_elapsed > kMaxDuration) {
    problems.Add(path + ".retry.max_elapsed",
                 strings::Cat("must be from 0ms (no limit) to ", FormatDuration(kMaxDuration)));
  }
  if (retry.max_retry_after.count() < 0 || retry.max_retry_after > kMaxDuration) {
    problems.Add(path + ".retry.max_retry_after",
                 strings::Cat("must be from 0ms to ", FormatDuration(kMaxDuration)));
  }
  if (sink.max_in_flight < 1 || sink.max_in_flight > kMaxInFlight) {
    problems.Add(path + ".max_in_flight", strings::Cat("must be from 1 to ", kMaxInFlight));
  }
}

// Only a spool that is on (spool.dir set) is checked: a file may set the
// other keys and leave the directory to --spool-dir.
void ValidateSpool(const SpoolConfig& spool, Problems& problems) {
  if (!spool.enabled()) return;
  if (spool.segment_bytes < kMinSpoolSegmentBytes || spool.segment_bytes > kMaxSpoolSegmentBytes) {
    problems.Add("spool.segment_bytes",
                 strings::Cat("must be from ", FormatByteSize(kMinSpoolSegmentBytes), " to ",
                              FormatByteSize(kMaxSpoolSegmentBytes)));
  }
  const uint64_t min_bytes = kMinSpoolSegments * spool.segment_bytes;
  if (spool.max_bytes == 0) {
    problems.Add("spool.max_bytes",
                 strings::Cat("is required when spool.dir is set (at least ", kMinSpoolSegments,
                              " x spool.segment_bytes = ", FormatByteSize(min_bytes), ")"));
  } else if (spool.max_bytes < min_bytes) {
    problems.Add(
        "spool.max_bytes",
        strings::Cat("must be at least ", kMinSpoolSegments, " x spool.segment_bytes (",
                     FormatByteSize(spool.segment_bytes), "), i.e. ", FormatByteSize(min_bytes),
                     "; got ", FormatByteSize(spool.max_bytes)));
  }
  if (spool.sync == SpoolConfig::Sync::kInterval &&
      (spool.sync_interval.count() <= 0 || spool.sync_interval > kMaxDuration)) {
    problems.Add("spool.sync", strings::Cat("must be always, never or a duration from 1ms to ",
                                            FormatDuration(kMaxDuration)));
  }
}

void ValidateListenerLimits(const std::string& path, const HttpListenerLimits& limits,
                            Problems& problems) {
  if (limits.max_connections < 1 || limits.max_connections > kMaxListenerConnections) {
    problems.Add(path + ".max_connections",
                 strings::Cat("must be from 1 to ", kMaxListenerConnections));
  }
  if (limits.max_header_bytes < kMinHeaderBytes || limits.max_header_bytes > kMaxHeaderBytes) {
    problems.Add(path + ".max_header_bytes",
                 strings::Cat("must be from ", FormatByteSize(kMinHeaderBytes), " to ",
                              FormatByteSize(kMaxHeaderBytes)));
  }
  if (limits.max_header_fields < 1 || limits.max_header_fields > kMaxHeaderFields) {
    problems.Add(path + ".max_header_fields", strings::Cat("must be from 1 to ", kMaxHeaderFields));
  }
  for (const auto& [key, value] : {std::pair{"idle_timeout", limits.idle_timeout},
                                   std::pair{"read_timeout", limits.read_timeout}}) {
    if (value < kMinListenerTimeout || value > kMaxDuration) {
      problems.Add(strings::Cat(path, ".", key),
                   strings::Cat("must be from ", FormatDuration(kMinListenerTimeout), " to ",
                                FormatDuration(kMaxDuration)));
    }
  }
}

}  // namespace

bool IsLogLevel(std::string_view level) {
  return std::find(kLogLevels.begin(), kLogLevels.end(), level) != kLogLevels.end();
}

bool IsPrometheusLabelName(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsReservedMetricLabel(std::string_view name) {
  // Every label of the daemon's metrics table (app/daemon_metrics.cc; a test
  // there checks this list covers it) and the histograms' `le`.
  constexpr std::string_view kReserved[] = {"sink",    "reason",    "event_type", "outcome",
                                            "le",      "version",   "result",     "consumer",
                                            "Outcome", "Component", "listener",   "state"};
  return std::find(std::begin(kReserved), std::end(kReserved), name) != std::end(kReserved);
}

bool IsValidSinkName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

// A sink whose URL is our own HTTP ingest endpoint: every event would come
// back in forever (typically Ray's EVENTS_EXPORT_ADDR leaking into our env).
bool PostsToOwnHttpIngest(const SinkConfig& sink, const HttpIngestConfig& http) {
  if (!http.enabled || http.port == 0) return false;
  auto url = ParseSinkUrl(sink.url);
  if (!url.ok() || url->kind != SinkUrl::Kind::kHttp || url->http.port != http.port) return false;
  const std::string_view target = url->http.target;
  if (target.substr(0, target.find('?')) != http.path) return false;
  // Only addresses that surely mean this host: a hostname with the same port
  // and path may well be another aggregator (a node sidecar forwarding to a
  // central one), even when we listen on a wildcard address.
  const std::string& host = url->http.host;
  return host == http.address || host == "localhost" || host.starts_with("127.") || host == "::1";
}

void ValidateConfig(const Config& config, Problems& problems) {
  if (config.grpc.address.empty()) problems.Add("grpc.address", "must not be empty");
  if (config.grpc.max_receive_message_bytes < kMinGrpcMessageBytes ||
      config.grpc.max_receive_message_bytes > kMaxGrpcMessageBytes) {
    problems.Add("grpc.max_receive_message_bytes",
                 strings::Cat("must be from ", FormatByteSize(kMinGrpcMessageBytes), " to ",
                              kMaxGrpcMessageBytes, " bytes"));
  }
  if (config.buffer.max_events < 1) problems.Add("buffer.max_events", "must be >= 1");
  if (config.buffer.max_bytes < kMinBufferBytes) {
    problems.Add("buffer.max_bytes", strings::Cat("must be >= ", FormatByteSize(kMinBufferBytes)));
  }
  if (config.buffer.dedup_window_events > kMaxDedupWindowEvents) {
    problems.Add("buffer.dedup_window_events",
                 strings::Cat("must be from 0 to ", kMaxDedupWindowEvents));
  }
  std::map<std::string, size_t, std::less<>> first_index_by_name;
  for (size_t i = 0; i < config.sinks.size(); ++i) {
    const std::string path = strings::Cat("sinks[", i, "]");
    ValidateSink(config.sinks[i], path, problems);
    if (PostsToOwnHttpIngest(config.sinks[i], config.http_ingest)) {
      problems.Add(
          path + ".url",
          strings::Cat("posts to this daemon's own HTTP ingest (http_ingest listens on port ",
                       config.http_ingest.port, " at ", config.http_ingest.path,
                       "): events would loop. A sink created from ", kRayEnvPrefix,
                       "EVENTS_EXPORT_ADDR means that variable, meant for Ray's "
                       "agent, is also set for the aggregator: unset it there"));
    }
    auto [it, inserted] = first_index_by_name.emplace(config.sinks[i].name, i);
    if (!inserted) {
      problems.Add(path + ".name", strings::Cat("duplicate sink name \"", config.sinks[i].name,
                                                "\" (also used by sinks[", it->second, "])"));
    }
  }
  if (!IsLogLevel(config.log.level)) {
    problems.Add("log.level", strings::Cat("must be one of ", strings::Join(kLogLevels, ", "),
                                           "; got \"", config.log.level, "\""));
  }
  if (std::find(kLogFormats.begin(), kLogFormats.end(), config.log.format) == kLogFormats.end()) {
    problems.Add("log.format",
                 strings::Cat("must be text or json; got \"", config.log.format, "\""));
  }
  if (config.log.max_file_bytes < kMinLogFileBytes) {
    problems.Add("log.max_file_bytes",
                 strings::Cat("must be >= ", FormatByteSize(kMinLogFileBytes)));
  }
  if (config.log.max_files < 1 || config.log.max_files > kMaxLogFiles) {
    problems.Add("log.max_files", strings::Cat("must be from 1 to ", kMaxLogFiles));
  }
  if (config.ops.address.empty()) problems.Add("ops.address", "must not be empty");
  std::map<std::string, bool, std::less<>> label_seen;
  for (const auto& [name, value] : config.ops.constant_labels) {
    const std::string path = strings::Cat("ops.constant_labels.", name);
    if (!IsPrometheusLabelName(name)) {
      problems.Add(path,
                   "is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)");
    } else if (IsReservedMetricLabel(name)) {
      problems.Add(path, "is a label the metrics already use; choose another name");
    } else if (label_seen[name]) {
      problems.Add(path, "is given twice");
    }
    label_seen[name] = true;
  }
  if (config.shutdown.drain_timeout.count() < 0 || config.shutdown.drain_timeout > kMaxDuration) {
    problems.Add("shutdown.drain_timeout",
                 strings::Cat("must be from 0ms to ", FormatDuration(kMaxDuration)));
  }
  ValidateSpool(config.spool, problems);
  const HttpIngestConfig& http = config.http_ingest;
  if (http.address.empty()) problems.Add("http_ingest.address", "must not be empty");
  if (!http.path.starts_with("/") || http.path.find_first_of("?# ") != std::string::npos) {
    problems.Add("http_ingest.path",
                 strings::Cat("must start with / and have no query, e.g. /v1/events; got \"",
                              http.path, "\""));
  }
  if (http.max_body_bytes < kMinHttpBodyBytes || http.max_body_bytes > kMaxHttpBodyBytes) {
    problems.Add("http_ingest.max_body_bytes",
                 strings::Cat("must be from ", FormatByteSize(kMinHttpBodyBytes), " to ",
                              FormatByteSize(kMaxHttpBodyBytes)));
  }
  ValidateListenerLimits("http_ingest.limits", http.limits, problems);
  const GrpcConfig& grpc = config.grpc;
  if (grpc.max_concurrent_streams < 1 || grpc.max_concurrent_streams > kMaxGrpcStreams) {
    problems.Add("grpc.max_concurrent_streams",
                 strings::Cat("must be from 1 to ", kMaxGrpcStreams));
  }
  if (grpc.memory_limit_bytes < kMinGrpcMemoryBytes) {
    problems.Add("grpc.memory_limit_bytes",
                 strings::Cat("must be at least ", FormatByteSize(kMinGrpcMemoryBytes)));
  }
  for (const auto& [key, value] :
       {std::pair{"grpc.handshake_timeout", grpc.handshake_timeout},
        std::pair{"grpc.keepalive_min_interval", grpc.keepalive_min_interval}}) {
    if (value < kMinListenerTimeout || value > kMaxDuration) {
      problems.Add(key, strings::Cat("must be from ", FormatDuration(kMinListenerTimeout), " to ",
                                     FormatDuration(kMaxDuration)));
    }
  }
  ValidateListenerLimits("ops.limits", config.ops.limits, problems);
}

}  // namespace rayagg
