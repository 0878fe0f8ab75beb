// The daemon's configuration as plain values. Built once by src/config/ from
// defaults < YAML file < Ray's environment variables < command-line flags,
// validated once, then passed by value or const& into constructors.
// No component reads the environment or a file by itself; there is no global.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rayagg/event_type_filter.h"

namespace rayagg {

using Duration = std::chrono::milliseconds;

// `grpc:` — the AddEvents listener (Ray's EventAggregatorService).
struct GrpcConfig {
  std::string address = "127.0.0.1";
  // 0 lets the OS pick; the bound port is reported through --port-file.
  uint16_t port = 8085;
  // Ray's agent uses AGENT_GRPC_MAX_MESSAGE_LENGTH = 20 MiB.
  uint64_t max_receive_message_bytes = 20ull * 1024 * 1024;
  // Calls open at once on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS);
  // more wait in the client until one ends.
  uint64_t max_concurrent_streams = 100;
  // Memory gRPC may use for all connections and calls (its ResourceQuota);
  // at the limit it reads no more from connections until calls finish.
  uint64_t memory_limit_bytes = 256ull * 1024 * 1024;
  // A connection must complete the HTTP/2 handshake within this, or it is
  // closed (a peer that connects and sends nothing).
  Duration handshake_timeout{10'000};
  // Keepalive enforcement: a client pinging more often than this (also
  // between calls) is sent GOAWAY "too_many_pings" after two strikes.
  // Ray's clients ping every 5 minutes at most.
  Duration keepalive_min_interval{30'000};
};

// `buffer:` — the event log shared by every sink.
struct BufferConfig {
  uint64_t max_events = 100'000;              // Ray G3 default (MAX_EVENT_BUFFER_SIZE)
  uint64_t max_bytes = 256ull * 1024 * 1024;  // serialized event bytes held
  // Merge events of one entity while no sink has read the earlier one
  // (docs/COALESCING.md).
  bool coalesce = true;
  // How many recent event ids are remembered to drop re-sent duplicates;
  // 0 turns dedup off. About 24 bytes of memory per id.
  uint64_t dedup_window_events = 100'000;
};

// `sinks[i].batch:`
struct BatchConfig {
  uint64_t max_events = 1000;                // Ray MAX_EVENT_SEND_BATCH_SIZE
  uint64_t max_bytes = 10ull * 1024 * 1024;  // JSON body bytes per request
  Duration flush_interval{100};              // PUBLISHER_MAX_BUFFER_SEND_INTERVAL_SECONDS
};

// `sinks[i].retry:` — 10 ms doubling to 5 s (Ray's publisher), forever (docs/DELIVERY.md).
struct RetryConfig {
  Duration initial_backoff{10};
  Duration max_backoff{5000};
  // Unset: full jitter (a delay drawn uniformly from 0 to the exponential
  // step) under retry_policy default, Ray's ±10 % under ray_compat. Set
  // (YAML or PUBLISHER_JITTER_RATIO): the step scaled by 1 ± this ratio.
  std::optional<double> jitter_ratio;
  // Negative means retry without limit (Ray's PUBLISHER_MAX_RETRIES = -1).
  int64_t max_retries = -1;
  // Give a batch up (counted, reason retries_exhausted) once this long has
  // passed since its first attempt; 0 means no limit.
  Duration max_elapsed{0};
  // Longest Retry-After honoured; a longer one is cut to this.
  Duration max_retry_after{60'000};
};

// `sinks[i].retry_policy:` — which answers count as success, retry or drop
// (docs/DELIVERY.md).
enum class RetryPolicy {
  kDefault,    // 2xx ok; 408, 429, 5xx but 501, network errors retried; 413 split; rest dropped
  kRayCompat,  // Ray's agent: status < 400 ok, everything else retried
};

// `sinks[i].when_full:` — what a full buffer does to this sink's unread events.
enum class WhenFull {
  kDropOldest,  // evict them (counted per sink as overflow); ingest never waits
  kBlock,       // refuse new requests (gRPC UNAVAILABLE, HTTP 503) until it catches up
};

// `sinks[i].compression:` — how request bodies are encoded.
enum class Compression { kNone, kGzip };

// `sinks[i].tls:` — https:// sinks only. Verification is on by default,
// against the system's CA store unless `ca_file` is set.
struct TlsConfig {
  std::string ca_file{};    // PEM bundle trusted instead of the system CAs
  std::string cert_file{};  // PEM client certificate (chain) for mTLS; needs key_file
  std::string key_file{};   // PEM private key of cert_file
  // Name sent as SNI and checked against the certificate; "" means the URL's host.
  std::string server_name{};
  bool insecure_skip_verify = false;  // accept any certificate (logged as a warning)
};

// `sinks[i].s3:` (and ray-task-history's store options) — s3:// URLs only.
struct S3Config {
  // Scheme and host[:port] of the S3 API, e.g. https://s3.oss-cn-hangzhou.aliyuncs.com;
  // "" means AWS: https://s3.<region>.amazonaws.com.
  std::string endpoint;
  std::string region = "us-east-1";  // signed into every request (OSS: the region id)
  // virtual-hosted: https://<bucket>.<endpoint host>/<key> (AWS, OSS);
  // path: https://<endpoint host>/<bucket>/<key> (Ceph RGW or MinIO on an IP).
  enum class Addressing { kVirtualHosted, kPath };
  Addressing addressing = Addressing::kVirtualHosted;
  // "host:port" to connect to instead of the endpoint's host; the Host
  // header, SNI and certificate check keep the endpoint's name (tests,
  // private endpoints, a local proxy).
  std::string connect_address;
  // Credentials: these files when set (re-read when they change), else
  // AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN as the
  // environment gave them at load. Secrets: never logged or printed.
  std::string access_key_id_file;
  std::string secret_access_key_file;
  std::string session_token_file;
  std::string access_key_id;      // from the environment
  std::string secret_access_key;  // from the environment
  std::string session_token;      // from the environment
  // Objects this large or larger are uploaded in parts of part_size
  // (S3's minimum part is 5 MiB).
  uint64_t multipart_threshold = 16ull * 1024 * 1024;
  uint64_t part_size = 8ull * 1024 * 1024;
};

// What an object store client needs (include/rayagg/object_store.h):
// s3://bucket[/prefix] or dir:///absolute/path.
struct ObjectStoreConfig {
  std::string url;
  S3Config s3;
  TlsConfig tls;  // https S3 endpoints
  // Per request, plus one second per MiB of body sent or received.
  Duration request_timeout{10'000};
};

// `sinks[i].object:` — object-store sinks (url s3:// or dir://) only: how
// events are gathered into objects, one open object per (session, node,
// category) (docs/OBJECT_STORE.md).
struct ObjectBatchConfig {
  // An object is cut this long after its first event.
  Duration max_age{10'000};
  // An object is cut before its JSON Lines (before compression) would pass this.
  uint64_t max_bytes = 32ull * 1024 * 1024;
  // JSON the sink holds, open objects and cut ones awaiting upload together;
  // reaching it cuts the largest open object, and the sink reads no more
  // until uploads bring it below.
  uint64_t max_open_bytes = 64ull * 1024 * 1024;
  bool gzip = true;  // objects are .jsonl.gz (Content-Encoding: gzip)
};

// `sinks[i].cluster:` — which Ray cluster an object-store sink's objects
// belong to (the KubeRay layout's identity). Empty fields default from
// RAY_CLUSTER_NAMESPACE, RAY_CLUSTER_NAME, OWNER_KIND and OWNER_NAME.
struct ClusterConfig {
  std::string namespace_name{};
  std::string name{};
  std::string kind{};  // raycluster (default), rayjob or rayservice, any case
  std::string owner{};
};

// One entry of `sinks:`. Only `url` is required.
struct SinkConfig {
  std::string name;  // defaults to "sink-<index>"
  // http://host[:port][/path] is POSTed to verbatim; file:///path appends one
  // JSON array per line to a file (file:///dev/stdout for the console).
  std::string url;
  // Which RayEvent types this sink exports. Default: Ray's exposable list.
  EventTypeFilter event_types = EventTypeFilter::RayDefault();
  bool preserve_proto_field_names = false;  // snake_case keys instead of lowerCamelCase
  BatchConfig batch;
  Duration request_timeout{3000};  // total per POST: connect + send + receive
  RetryConfig retry;
  // Sent with every request, after the built-in ones (which they may
  // replace). Values may be secrets: they are never logged.
  std::vector<std::pair<std::string, std::string>> headers;
  // A file holding a token sent as "Authorization: Bearer <token>"; re-read
  // when the file changes, so it can be rotated without a restart.
  std::string bearer_token_file;
  Compression compression = Compression::kNone;  // kGzip: "Content-Encoding: gzip"
  TlsConfig tls;
  RetryPolicy retry_policy = RetryPolicy::kDefault;
  // Batches delivered or waiting out a backoff at once; 1 keeps order.
  uint32_t max_in_flight = 1;
  // Cap on delivered events per second (a token bucket), so a backlog after
  // an outage does not stampede the collector; 0 means no cap.
  uint64_t max_events_per_second = 0;
  WhenFull when_full = WhenFull::kDropOldest;

  // Object-store sinks (url s3://bucket[/prefix] or dir:///path) only.
  ObjectBatchConfig object{};
  ClusterConfig cluster{};
  // Lowercase hex node id for events that carry none; "" drops them (no_node).
  std::string node_id{};
  S3Config s3{};
};

// `log:`
struct LogConfig {
  std::string level = "info";   // trace, debug, info, warn, error, critical, off
  std::string format = "text";  // text (one line: time level message key=value...) | json
  std::string file;             // empty: stderr; else appended to, rotated by size
  uint64_t max_file_bytes = 100ull * 1024 * 1024;  // rotate when the file would exceed this
  uint64_t max_files = 5;                          // rotated files kept besides the current one
};

// `shutdown:`
struct ShutdownConfig {
  // On SIGTERM/SIGINT, how long sinks may keep delivering what is buffered.
  Duration drain_timeout{5000};
};

// Ray's token authentication (RAY_AUTH_MODE=token), from the environment
// only: ingest calls must carry "authorization: Bearer <token>".
struct IngestAuthConfig {
  bool token_required = false;
  std::string token;  // a secret: never logged
};

// `http_ingest.limits:` and `ops.limits:` — what one HTTP listener lets a
// peer hold (docs/SECURITY.md). Defaults differ per listener.
struct HttpListenerLimits {
  // Open connections; at the limit a new one closes the connection that has
  // waited longest on its peer (idle first) and is refused only when every
  // connection is busy in a handler.
  uint64_t max_connections = 256;
  uint64_t max_header_bytes = 16 * 1024;  // request line and fields; 431 above
  uint64_t max_header_fields = 100;       // 431 above
  // The response to a connection's n-th request closes it; 0: no limit.
  uint64_t max_requests_per_connection = 1000;
  // Waiting for the first byte of a request (a kept-alive connection too).
  // Above aiohttp's 15 s keep-alive (Ray's agent), so the client closes first.
  Duration idle_timeout{30'000};
  // From a request's first byte until its header and body have arrived.
  Duration read_timeout{10'000};
  friend bool operator==(const HttpListenerLimits&, const HttpListenerLimits&) = default;
};

// `http_ingest:` — accepts the JSON arrays Ray's own agent POSTs to
// RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR (README "Use with Ray").
struct HttpIngestConfig {
  bool enabled = false;  // also turned on by --http-port
  std::string address = "127.0.0.1";
  // 0 lets the OS pick; the bound port is reported through --http-port-file.
  uint16_t port = 8084;  // the port of KubeRay's history-server examples
  std::string path = "/v1/events";
  uint64_t max_body_bytes = 20ull * 1024 * 1024;  // encoded and decoded; 413 above
  // A file holding the token every request must carry as "Authorization:
  // Bearer <token>" (401 before the body is read otherwise); "" means no
  // check. For senders other than Ray: Ray's HTTP publisher sends no
  // Authorization header, so RAY_AUTH_MODE=token does not turn this on.
  std::string bearer_token_file;
  std::string bearer_token;  // the file's content, read at load; a secret: never logged
  // Ray's agent gives up on a POST after 3 s (PUBLISHER_TIMEOUT_SECONDS):
  // a 10 s read deadline is ample.
  HttpListenerLimits limits{};
};

// `ops:` — the listener serving /metrics, /healthz and /readyz.
struct OpsConfig {
  bool enabled = false;
  std::string address = "127.0.0.1";
  uint16_t port = 9188;  // 0 lets the OS pick (see --ops-port-file)
  // Added to every metric series, e.g. {RayClusterName: "${RAY_CLUSTER_NAME}"}.
  // Values have ${VAR} already replaced from the environment when loaded.
  std::vector<std::pair<std::string, std::string>> constant_labels;
  // Scrapers and probes send small GETs.
  HttpListenerLimits limits{.max_connections = 32, .read_timeout = Duration(5'000)};
};

// `spool:` — the disk spool (docs/SPOOL.md): accepted events written to
// disk before the request is answered, so a crash loses none. Off unless
// `dir` is set (YAML or --spool-dir). Changes need a restart.
struct SpoolConfig {
  std::string dir;         // empty: no spool (memory only)
  uint64_t max_bytes = 0;  // required when on; at least 4 x segment_bytes
  // When written data is fsync'd: every `sync_interval`, before each
  // acknowledgement (one fsync per group of waiting requests), or never
  // (the OS writes back when it likes).
  enum class Sync { kInterval, kAlways, kNever };
  Sync sync = Sync::kInterval;
  Duration sync_interval{100};  // sync: <duration>
  uint64_t segment_bytes = 64ull * 1024 * 1024;
  // After a write or fsync error that rewriting into a new segment did not
  // cure: acknowledge from memory (as without a spool), or refuse requests.
  enum class OnWriteError { kMemory, kRefuse };
  OnWriteError on_write_error = OnWriteError::kMemory;

  bool enabled() const { return !dir.empty(); }
  friend bool operator==(const SpoolConfig&, const SpoolConfig&) = default;
};

struct Config {
  GrpcConfig grpc;
  BufferConfig buffer;
  std::vector<SinkConfig> sinks;
  LogConfig log;
  ShutdownConfig shutdown;
  IngestAuthConfig ingest_auth;
  HttpIngestConfig http_ingest;
  OpsConfig ops;
  SpoolConfig spool;
};

}  // namespace rayagg
