// ParseConfigYaml: the YAML file's layout. Key names are config.h's field
// names; each section lists its keys once, so unknown-key errors and the
// parsers cannot disagree.
#include <yaml-cpp/yaml.h>

#include <limits>

#include "common/text.h"
#include "config/load_config.h"
#include "config/object_sink_config.h"
#include "config/problems.h"
#include "config/ray_environment.h"
#include "config/units.h"
#include "config/validate_config.h"
#include "config/yaml_reader.h"
#include "config/yaml_sections.h"

namespace rayagg {

namespace {

using Node = YAML::Node;
using Path = std::string;
constexpr uint64_t kNoMax = std::numeric_limits<uint64_t>::max();

void ReadGrpc(YamlReader& r, const Node& node, const Path& path, GrpcConfig& grpc) {
  r.Map(node, path,
        {{"address", [&](const Node& v, const Path& p) { r.String(v, p, grpc.address); }},
         {"port", [&](const Node& v, const Path& p) { r.Port(v, p, grpc.port); }},
         {"max_receive_message_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinGrpcMessageBytes, kMaxGrpcMessageBytes,
                       grpc.max_receive_message_bytes);
          }},
         {"max_concurrent_streams",
          [&](const Node& v, const Path& p) {
            r.Uint(v, p, 1, kMaxGrpcStreams, grpc.max_concurrent_streams);
          }},
         {"memory_limit_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinGrpcMemoryBytes, kNoMax, grpc.memory_limit_bytes);
          }},
         {"handshake_timeout",
          [&](const Node& v, const Path& p) {
            r.Duration(v, p, kMinListenerTimeout, grpc.handshake_timeout);
          }},
         {"keepalive_min_interval", [&](const Node& v, const Path& p) {
            r.Duration(v, p, kMinListenerTimeout, grpc.keepalive_min_interval);
          }}});
}

void ReadBuffer(YamlReader& r, const Node& node, const Path& path, BufferConfig& buffer) {
  r.Map(node, path,
        {{"max_events",
          [&](const Node& v, const Path& p) { r.Uint(v, p, 1, kNoMax, buffer.max_events); }},
         {"max_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinBufferBytes, kNoMax, buffer.max_bytes);
          }},
         {"coalesce", [&](const Node& v, const Path& p) { r.Bool(v, p, buffer.coalesce); }},
         {"dedup_window_events", [&](const Node& v, const Path& p) {
            r.Uint(v, p, 0, kMaxDedupWindowEvents, buffer.dedup_window_events);
          }}});
}

void ReadBatch(YamlReader& r, const Node& node, const Path& path, BatchConfig& batch) {
  r.Map(node, path,
        {{"max_events",
          [&](const Node& v, const Path& p) { r.Uint(v, p, 1, kNoMax, batch.max_events); }},
         {"max_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinBatchBytes, kNoMax, batch.max_bytes);
          }},
         {"flush_interval", [&](const Node& v, const Path& p) {
            r.Duration(v, p, Duration(0), batch.flush_interval);
          }}});
}

void ReadRetry(YamlReader& r, const Node& node, const Path& path, RetryConfig& retry) {
  r.Map(node, path,
        {{"initial_backoff",
          [&](const Node& v, const Path& p) {
            r.Duration(v, p, Duration(1), retry.initial_backoff);
          }},
         {"max_backoff",
          [&](const Node& v, const Path& p) { r.Duration(v, p, Duration(1), retry.max_backoff); }},
         {"jitter_ratio",
          [&](const Node& v, const Path& p) {
            double ratio = 0;
            if (r.Double(v, p, 0.0, 1.0, ratio)) retry.jitter_ratio = ratio;
          }},
         {"max_retries", [&](const Node& v, const Path& p) { r.Int(v, p, -1, retry.max_retries); }},
         {"max_elapsed",
          [&](const Node& v, const Path& p) { r.Duration(v, p, Duration(0), retry.max_elapsed); }},
         {"max_retry_after", [&](const Node& v, const Path& p) {
            r.Duration(v, p, Duration(0), retry.max_retry_after);
          }}});
}

// `headers:` — a map of header name to value, kept in file order. Values
// are never echoed in messages: they may be secrets.
void ReadHeaders(YamlReader& r, const Node& node, const Path& path,
                 std::vector<std::pair<std::string, std::string>>& headers) {
  if (node.IsNull()) return;
  if (!node.IsMap()) {
    r.Fail(node, path, "must be a map of header name to value");
    return;
  }
  headers.clear();
  for (auto it = node.begin(); it != node.end(); ++it) {
    const Node key = it->first;  // a copy: the iterator's proxy is a temporary
    if (!key.IsScalar()) {
      r.Fail(key, path, "header names must be plain strings");
      continue;
    }
    std::string value;
    r.String(it->second, ChildPath(path, key.Scalar()), value);
    headers.emplace_back(key.Scalar(), std::move(value));
  }
}

void ReadCompression(YamlReader& r, const Node& v, const Path& p, Compression& compression) {
  std::string text;
  r.String(v, p, text);
  text = strings::ToLower(text);
  if (text == "none") {
    compression = Compression::kNone;
  } else if (text == "gzip") {
    compression = Compression::kGzip;
  } else {
    r.Fail(v, p, strings::Cat("must be none or gzip, ", DescribeNode(v)));
  }
}

}  // namespace

void ReadTls(YamlReader& r, const Node& node, const Path& path, TlsConfig& tls) {
  r.Map(node, path,
        {{"ca_file", [&](const Node& v, const Path& p) { r.String(v, p, tls.ca_file); }},
         {"cert_file", [&](const Node& v, const Path& p) { r.String(v, p, tls.cert_file); }},
         {"key_file", [&](const Node& v, const Path& p) { r.String(v, p, tls.key_file); }},
         {"server_name", [&](const Node& v, const Path& p) { r.String(v, p, tls.server_name); }},
         {"insecure_skip_verify",
          [&](const Node& v, const Path& p) { r.Bool(v, p, tls.insecure_skip_verify); }}});
}

namespace {

// One of `names` (exact, lower case), stored as the matching value.
template <typename Enum, size_t N>
void ReadEnum(YamlReader& r, const Node& node, const Path& path,
              const std::pair<std::string_view, Enum> (&names)[N], Enum& out) {
  std::string text;
  if (!r.String(node, path, text)) return;
  std::vector<std::string_view> known;
  for (const auto& [name, value] : names) {
    if (text == name) {
      out = value;
      return;
    }
    known.push_back(name);
  }
  r.Fail(node, path,
         strings::Cat("must be one of ", strings::Join(known, ", "), "; got \"", text, "\""));
}

void ReadObjectBatch(YamlReader& r, const Node& node, const Path& path, ObjectBatchConfig& object) {
  r.Map(node, path,
        {{"max_age", [&](const Node& v,
                         const Path& p) { r.Duration(v, p, kMinObjectMaxAge, object.max_age); }},
         {"max_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinObjectBytes, kNoMax, object.max_bytes);
          }},
         {"max_open_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinObjectBytes, kNoMax, object.max_open_bytes);
          }},
         {"gzip", [&](const Node& v, const Path& p) { r.Bool(v, p, object.gzip); }}});
}

void ReadCluster(YamlReader& r, const Node& node, const Path& path, ClusterConfig& cluster) {
  r.Map(
      node, path,
      {{"namespace", [&](const Node& v, const Path& p) { r.String(v, p, cluster.namespace_name); }},
       {"name", [&](const Node& v, const Path& p) { r.String(v, p, cluster.name); }},
       {"kind", [&](const Node& v, const Path& p) { r.String(v, p, cluster.kind); }},
       {"owner", [&](const Node& v, const Path& p) { r.String(v, p, cluster.owner); }}});
}

}  // namespace

void ReadS3(YamlReader& r, const Node& node, const Path& path, S3Config& s3) {
  r.Map(node, path,
        {{"endpoint", [&](const Node& v, const Path& p) { r.String(v, p, s3.endpoint); }},
         {"region", [&](const Node& v, const Path& p) { r.String(v, p, s3.region); }},
         {"addressing",
          [&](const Node& v, const Path& p) {
            constexpr std::pair<std::string_view, S3Config::Addressing> kAddressing[] = {
                {"virtual_hosted", S3Config::Addressing::kVirtualHosted},
                {"path", S3Config::Addressing::kPath}};
            ReadEnum(r, v, p, kAddressing, s3.addressing);
          }},
         {"connect_address",
          [&](const Node& v, const Path& p) { r.String(v, p, s3.connect_address); }},
         {"access_key_id_file",
          [&](const Node& v, const Path& p) { r.String(v, p, s3.access_key_id_file); }},
         {"secret_access_key_file",
          [&](const Node& v, const Path& p) { r.String(v, p, s3.secret_access_key_file); }},
         {"session_token_file",
          [&](const Node& v, const Path& p) { r.String(v, p, s3.session_token_file); }},
         {"multipart_threshold",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinS3PartBytes, kNoMax, s3.multipart_threshold);
          }},
         {"part_size", [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinS3PartBytes, kMaxS3PartBytes, s3.part_size);
          }}});
}

namespace {

constexpr std::pair<std::string_view, RetryPolicy> kRetryPolicies[] = {
    {"default", RetryPolicy::kDefault}, {"ray_compat", RetryPolicy::kRayCompat}};
constexpr std::pair<std::string_view, WhenFull> kWhenFull[] = {
    {"drop_oldest", WhenFull::kDropOldest}, {"block", WhenFull::kBlock}};

void ReadSink(YamlReader& r, const Node& node, const Path& path, size_t index, SinkConfig& sink) {
  sink.name = strings::Cat("sink-", index);
  if (!node.IsMap()) {
    r.Fail(node, path, strings::Cat("must be a map with at least a url, ", DescribeNode(node)));
    return;
  }
  r.Map(
      node, path,
      {{"name", [&](const Node& v, const Path& p) { r.String(v, p, sink.name); }},
       {"url", [&](const Node& v, const Path& p) { r.String(v, p, sink.url); }},
       {"event_types", [&](const Node& v, const Path& p) { r.EventTypes(v, p, sink.event_types); }},
       {"preserve_proto_field_names",
        [&](const Node& v, const Path& p) { r.Bool(v, p, sink.preserve_proto_field_names); }},
       {"batch", [&](const Node& v, const Path& p) { ReadBatch(r, v, p, sink.batch); }},
       {"request_timeout",
        [&](const Node& v, const Path& p) { r.Duration(v, p, Duration(1), sink.request_timeout); }},
       {"retry", [&](const Node& v, const Path& p) { ReadRetry(r, v, p, sink.retry); }},
       {"headers", [&](const Node& v, const Path& p) { ReadHeaders(r, v, p, sink.headers); }},
       {"bearer_token_file",
        [&](const Node& v, const Path& p) { r.String(v, p, sink.bearer_token_file); }},
       {"compression",
        [&](const Node& v, const Path& p) { ReadCompression(r, v, p, sink.compression); }},
       {"tls", [&](const Node& v, const Path& p) { ReadTls(r, v, p, sink.tls); }},
       {"retry_policy",
        [&](const Node& v, const Path& p) {
          ReadEnum(r, v, p, kRetryPolicies, sink.retry_policy);
        }},
       {"max_in_flight",
        [&](const Node& v, const Path& p) {
          uint64_t value = sink.max_in_flight;
          r.Uint(v, p, 1, kMaxInFlight, value);
          sink.max_in_flight = static_cast<uint32_t>(value);
        }},
       {"max_events_per_second",
        [&](const Node& v, const Path& p) { r.Uint(v, p, 0, kNoMax, sink.max_events_per_second); }},
       {"when_full",
        [&](const Node& v, const Path& p) { ReadEnum(r, v, p, kWhenFull, sink.when_full); }},
       {"layout",
        [&](const Node& v, const Path& p) {
          std::string layout;
          if (r.String(v, p, layout) && layout != "kuberay") {
            r.Fail(v, p, strings::Cat("must be kuberay (the only layout); got \"", layout, "\""));
          }
        }},
       {"object", [&](const Node& v, const Path& p) { ReadObjectBatch(r, v, p, sink.object); }},
       {"cluster", [&](const Node& v, const Path& p) { ReadCluster(r, v, p, sink.cluster); }},
       {"node_id", [&](const Node& v, const Path& p) { r.String(v, p, sink.node_id); }},
       {"s3", [&](const Node& v, const Path& p) { ReadS3(r, v, p, sink.s3); }}});
  if (IsObjectStoreSinkUrl(sink.url)) {
    // These sinks cut objects, not batches, and classify store answers, not
    // HTTP statuses: settings that would be silently ignored are errors.
    if (node["batch"]) {
      r.Fail(node["batch"], ChildPath(path, "batch"),
             "is not for object-store sinks, which gather events into objects: use object.max_age, "
             "object.max_bytes and object.max_open_bytes");
    }
    if (node["retry_policy"]) {
      r.Fail(node["retry_policy"], ChildPath(path, "retry_policy"),
             "is not for object-store sinks: their answers are classified by the store's error "
             "(docs/DELIVERY.md, \"Object stores\")");
    }
    // Profile and autoscaler events feed the history views.
    if (!node["event_types"]) sink.event_types = EventTypeFilter::All();
    // A store's own deadline (ObjectStoreConfig), not an HTTP collector's.
    if (!node["request_timeout"]) sink.request_timeout = kObjectSinkRequestTimeout;
  }
  if (sink.url.empty()) {
    r.Fail(node, ChildPath(path, "url"),
           "is required, e.g. http://collector:8080/events or file:///dev/stdout");
  }
  if (sink.name == kEnvSinkName) {
    r.Fail(node, ChildPath(path, "name"),
           strings::Cat("\"", kEnvSinkName, "\" is reserved for the sink that ", kRayEnvPrefix,
                        ray_env::kEventsExportAddr, " creates; choose another name"));
  }
}

}  // namespace

void ReadLog(YamlReader& r, const Node& node, const Path& path, LogConfig& log) {
  r.Map(node, path,
        {{"level",
          [&](const Node& v, const Path& p) {
            r.String(v, p, log.level);
            // "INFO" is as clear as "info"; store the spelling the logger knows.
            log.level = strings::ToLower(log.level);
          }},
         {"format",
          [&](const Node& v, const Path& p) {
            r.String(v, p, log.format);
            log.format = strings::ToLower(log.format);
          }},
         {"file", [&](const Node& v, const Path& p) { r.String(v, p, log.file); }},
         {"max_file_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinLogFileBytes, kNoMax, log.max_file_bytes);
          }},
         {"max_files",
          [&](const Node& v, const Path& p) { r.Uint(v, p, 1, kMaxLogFiles, log.max_files); }}});
}

namespace {

// A map of label name -> value; values keep their ${VAR} until LoadConfig.
void ReadConstantLabels(YamlReader& r, const Node& node, const Path& path,
                        std::vector<std::pair<std::string, std::string>>& labels) {
  if (node.IsNull()) return;
  if (!node.IsMap()) {
    r.Fail(node, path, strings::Cat("must be a map of label name to value, ", DescribeNode(node)));
    return;
  }
  for (const auto& item : node) {
    if (!item.first.IsScalar()) {
      r.Fail(item.first, path, "label names must be strings");
      continue;
    }
    const std::string name = item.first.Scalar();
    std::string value;
    r.String(item.second, ChildPath(path, name), value);
    labels.emplace_back(name, std::move(value));
  }
}

void ReadListenerLimits(YamlReader& r, const Node& node, const Path& path,
                        HttpListenerLimits& limits) {
  r.Map(node, path,
        {{"max_connections",
          [&](const Node& v, const Path& p) {
            r.Uint(v, p, 1, kMaxListenerConnections, limits.max_connections);
          }},
         {"max_header_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinHeaderBytes, kMaxHeaderBytes, limits.max_header_bytes);
          }},
         {"max_header_fields",
          [&](const Node& v, const Path& p) {
            r.Uint(v, p, 1, kMaxHeaderFields, limits.max_header_fields);
          }},
         {"max_requests_per_connection",
          [&](const Node& v, const Path& p) {
            r.Uint(v, p, 0, kNoMax, limits.max_requests_per_connection);
          }},
         {"idle_timeout",
          [&](const Node& v, const Path& p) {
            r.Duration(v, p, kMinListenerTimeout, limits.idle_timeout);
          }},
         {"read_timeout", [&](const Node& v, const Path& p) {
            r.Duration(v, p, kMinListenerTimeout, limits.read_timeout);
          }}});
}

void ReadOps(YamlReader& r, const Node& node, const Path& path, OpsConfig& ops) {
  r.Map(
      node, path,
      {{"enabled", [&](const Node& v, const Path& p) { r.Bool(v, p, ops.enabled); }},
       {"address", [&](const Node& v, const Path& p) { r.String(v, p, ops.address); }},
       {"port", [&](const Node& v, const Path& p) { r.Port(v, p, ops.port); }},
       {"constant_labels",
        [&](const Node& v, const Path& p) { ReadConstantLabels(r, v, p, ops.constant_labels); }},
       {"limits", [&](const Node& v, const Path& p) { ReadListenerLimits(r, v, p, ops.limits); }}});
}

void ReadShutdown(YamlReader& r, const Node& node, const Path& path, ShutdownConfig& shutdown) {
  r.Map(node, path, {{"drain_timeout", [&](const Node& v, const Path& p) {
                        r.Duration(v, p, Duration(0), shutdown.drain_timeout);
                      }}});
}

void ReadHttpIngest(YamlReader& r, const Node& node, const Path& path, HttpIngestConfig& http) {
  r.Map(node, path,
        {{"enabled", [&](const Node& v, const Path& p) { r.Bool(v, p, http.enabled); }},
         {"address", [&](const Node& v, const Path& p) { r.String(v, p, http.address); }},
         {"port", [&](const Node& v, const Path& p) { r.Port(v, p, http.port); }},
         {"path", [&](const Node& v, const Path& p) { r.String(v, p, http.path); }},
         {"bearer_token_file",
          [&](const Node& v, const Path& p) { r.String(v, p, http.bearer_token_file); }},
         {"max_body_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinHttpBodyBytes, kMaxHttpBodyBytes, http.max_body_bytes);
          }},
         {"limits",
          [&](const Node& v, const Path& p) { ReadListenerLimits(r, v, p, http.limits); }}});
}

constexpr std::pair<std::string_view, SpoolConfig::OnWriteError> kOnWriteError[] = {
    {"memory", SpoolConfig::OnWriteError::kMemory}, {"refuse", SpoolConfig::OnWriteError::kRefuse}};

// `sync:` is `always`, `never` or a duration (fsync at that interval).
void ReadSpoolSync(YamlReader& r, const Node& node, const Path& path, SpoolConfig& spool) {
  if (node.IsScalar() && (node.Scalar() == "always" || node.Scalar() == "never")) {
    spool.sync = node.Scalar() == "always" ? SpoolConfig::Sync::kAlways : SpoolConfig::Sync::kNever;
    return;
  }
  if (node.IsScalar() && !ParseDuration(node.Scalar()).ok()) {
    r.Fail(node, path,
           strings::Cat("must be always, never or a duration such as 100ms; ", DescribeNode(node)));
    return;
  }
  spool.sync = SpoolConfig::Sync::kInterval;
  r.Duration(node, path, Duration(1), spool.sync_interval);
}

void ReadSpool(YamlReader& r, const Node& node, const Path& path, SpoolConfig& spool) {
  r.Map(node, path,
        {{"dir", [&](const Node& v, const Path& p) { r.String(v, p, spool.dir); }},
         {"max_bytes",
          [&](const Node& v, const Path& p) { r.ByteSize(v, p, 1, kNoMax, spool.max_bytes); }},
         {"sync", [&](const Node& v, const Path& p) { ReadSpoolSync(r, v, p, spool); }},
         {"segment_bytes",
          [&](const Node& v, const Path& p) {
            r.ByteSize(v, p, kMinSpoolSegmentBytes, kMaxSpoolSegmentBytes, spool.segment_bytes);
          }},
         {"on_write_error", [&](const Node& v, const Path& p) {
            ReadEnum(r, v, p, kOnWriteError, spool.on_write_error);
          }}});
}

}  // namespace

absl::StatusOr<Config> ParseConfigYaml(std::string_view yaml_text) {
  Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& error) {
    if (error.mark.is_null())
      return absl::InvalidArgumentError(strings::Cat("invalid YAML: ", error.msg));
    return absl::InvalidArgumentError(strings::Cat("invalid YAML at line ", error.mark.line + 1,
                                                   ", column ", error.mark.column + 1, ": ",
                                                   error.msg));
  }

  Config config;
  Problems problems;
  YamlReader r(problems);
  try {
    r.Map(root, "",
          {{"grpc", [&](const Node& v, const Path& p) { ReadGrpc(r, v, p, config.grpc); }},
           {"buffer", [&](const Node& v, const Path& p) { ReadBuffer(r, v, p, config.buffer); }},
           {"sinks",
            [&](const Node& v, const Path& p) {
              r.List(v, p, "sinks", [&](const Node& item, const Path& item_path, size_t index) {
                ReadSink(r, item, item_path, index, config.sinks.emplace_back());
              });
            }},
           {"log", [&](const Node& v, const Path& p) { ReadLog(r, v, p, config.log); }},
           {"shutdown",
            [&](const Node& v, const Path& p) { ReadShutdown(r, v, p, config.shutdown); }},
           {"http_ingest",
            [&](const Node& v, const Path& p) { ReadHttpIngest(r, v, p, config.http_ingest); }},
           {"ops", [&](const Node& v, const Path& p) { ReadOps(r, v, p, config.ops); }},
           {"spool", [&](const Node& v, const Path& p) { ReadSpool(r, v, p, config.spool); }}});
  } catch (const YAML::Exception& error) {
    // The reader checks node types before every access, so this is a bug in
    // it; still, no exception leaves this function.
    return absl::InternalError(strings::Cat("reading the YAML tree failed: ", error.what()));
  }
  ValidateConfig(config, problems);
  if (!problems.empty()) return problems.ToStatus();
  return config;
}

}  // namespace rayagg
