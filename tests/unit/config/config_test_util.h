// Helpers shared by the config tests.
#pragma once

#include <string>
#include <tuple>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rayagg/config.h"

namespace rayagg::testing_config {

// absl::Status::message() is an absl::string_view on this machine, which
// gmock's string matchers do not take.
inline std::string Message(const absl::Status& status) { return std::string(status.message()); }
template <typename T>
std::string Message(const absl::StatusOr<T>& result) {
  return std::string(result.status().message());
}

// Field-by-field equality. config.h declares no operator==; the structured
// bindings below stop compiling when a field is added, so these comparisons
// (and the example-config test built on them) cannot silently skip it.
inline auto Fields(const GrpcConfig& c) {
  const auto& [address, port, max_receive_message_bytes, max_concurrent_streams, memory_limit_bytes,
               handshake_timeout, keepalive_min_interval] = c;
  return std::tie(address, port, max_receive_message_bytes, max_concurrent_streams,
                  memory_limit_bytes, handshake_timeout, keepalive_min_interval);
}
inline auto Fields(const BufferConfig& c) {
  const auto& [max_events, max_bytes, coalesce, dedup_window_events] = c;
  return std::tie(max_events, max_bytes, coalesce, dedup_window_events);
}
inline auto Fields(const BatchConfig& c) {
  const auto& [max_events, max_bytes, flush_interval] = c;
  return std::tie(max_events, max_bytes, flush_interval);
}
inline auto Fields(const RetryConfig& c) {
  const auto& [initial_backoff, max_backoff, jitter_ratio, max_retries, max_elapsed,
               max_retry_after] = c;
  return std::tie(initial_backoff, max_backoff, jitter_ratio, max_retries, max_elapsed,
                  max_retry_after);
}
inline auto Fields(const LogConfig& c) {
  const auto& [level, format, file, max_file_bytes, max_files] = c;
  return std::tie(level, format, file, max_file_bytes, max_files);
}
inline auto Fields(const ShutdownConfig& c) {
  const auto& [drain_timeout] = c;
  return std::tie(drain_timeout);
}
inline auto Fields(const OpsConfig& c) {
  const auto& [enabled, address, port, constant_labels, limits] = c;
  return std::tie(enabled, address, port, constant_labels, limits);
}

inline auto Fields(const TlsConfig& c) {
  const auto& [ca_file, cert_file, key_file, server_name, insecure_skip_verify] = c;
  return std::tie(ca_file, cert_file, key_file, server_name, insecure_skip_verify);
}
inline auto Fields(const IngestAuthConfig& c) {
  const auto& [token_required, token] = c;
  return std::tie(token_required, token);
}
inline auto Fields(const HttpIngestConfig& c) {
  const auto& [enabled, address, port, path, max_body_bytes, bearer_token_file, bearer_token,
               limits] = c;
  return std::tie(enabled, address, port, path, max_body_bytes, bearer_token_file, bearer_token,
                  limits);
}

inline auto Fields(const SpoolConfig& c) {
  const auto& [dir, max_bytes, sync, sync_interval, segment_bytes, on_write_error] = c;
  return std::tie(dir, max_bytes, sync, sync_interval, segment_bytes, on_write_error);
}
inline auto Fields(const ObjectBatchConfig& c) {
  const auto& [max_age, max_bytes, max_open_bytes, gzip] = c;
  return std::tie(max_age, max_bytes, max_open_bytes, gzip);
}
inline auto Fields(const ClusterConfig& c) {
  const auto& [namespace_name, name, kind, owner] = c;
  return std::tie(namespace_name, name, kind, owner);
}
inline auto Fields(const S3Config& c) {
  const auto& [endpoint, region, addressing, connect_address, access_key_id_file,
               secret_access_key_file, session_token_file, access_key_id, secret_access_key,
               session_token, multipart_threshold, part_size] = c;
  return std::tie(endpoint, region, addressing, connect_address, access_key_id_file,
                  secret_access_key_file, session_token_file, access_key_id, secret_access_key,
                  session_token, multipart_threshold, part_size);
}

template <typename T>
bool Same(const T& a, const T& b) {
  return Fields(a) == Fields(b);
}

inline bool Same(const SinkConfig& a, const SinkConfig& b) {
  const auto& [name, url, event_types, preserve, batch, timeout, retry, headers, token_file,
               compression, tls, retry_policy, max_in_flight, max_events_per_second, when_full,
               object, cluster, node_id, s3] = a;
  const auto& [b_name, b_url, b_event_types, b_preserve, b_batch, b_timeout, b_retry, b_headers,
               b_token_file, b_compression, b_tls, b_retry_policy, b_max_in_flight,
               b_max_events_per_second, b_when_full, b_object, b_cluster, b_node_id, b_s3] = b;
  return name == b_name && url == b_url && event_types == b_event_types && preserve == b_preserve &&
         Same(batch, b_batch) && timeout == b_timeout && Same(retry, b_retry) &&
         headers == b_headers && token_file == b_token_file && compression == b_compression &&
         Same(tls, b_tls) && retry_policy == b_retry_policy && max_in_flight == b_max_in_flight &&
         max_events_per_second == b_max_events_per_second && when_full == b_when_full &&
         Same(object, b_object) && Same(cluster, b_cluster) && node_id == b_node_id &&
         Same(s3, b_s3);
}

// Everything except `sinks`, which the callers compare on their own.
inline bool SameExceptSinks(const Config& a, const Config& b) {
  const auto& [grpc, buffer, sinks, log, shutdown, ingest_auth, http_ingest, ops, spool] = a;
  (void)sinks;
  return Same(grpc, b.grpc) && Same(buffer, b.buffer) && Same(log, b.log) &&
         Same(shutdown, b.shutdown) && Same(ingest_auth, b.ingest_auth) &&
         Same(http_ingest, b.http_ingest) && Same(ops, b.ops) && Same(spool, b.spool);
}

inline bool Same(const Config& a, const Config& b) {
  if (!SameExceptSinks(a, b) || a.sinks.size() != b.sinks.size()) return false;
  for (size_t i = 0; i < a.sinks.size(); ++i) {
    if (!Same(a.sinks[i], b.sinks[i])) return false;
  }
  return true;
}

}  // namespace rayagg::testing_config
