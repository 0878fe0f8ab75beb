#include "config/object_sink_config.h"

#include <algorithm>

#include "common/text.h"
#include "config/units.h"
#include "objstore/rules/kuberay_layout.h"
#include "objstore/rules/store_url.h"

namespace rayagg {
namespace {

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         strings::EqualsIgnoreCase(text.substr(0, prefix.size()), prefix);
}

bool IsLowerHex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// "cluster.namespace: why" from the layout's check -> sinks[i].cluster.namespace.
void AddIdentityProblem(const absl::Status& status, const std::string& path, Problems& problems) {
  const std::string_view message = strings::View(status.message());
  const size_t colon = message.find(": ");
  if (colon == std::string_view::npos) {
    problems.Add(path + ".cluster", message);
    return;
  }
  problems.Add(strings::Cat(path, ".", message.substr(0, colon)), message.substr(colon + 2));
}

bool S3OptionsSet(const S3Config& s3) {
  const S3Config defaults;
  return !s3.endpoint.empty() || s3.region != defaults.region ||
         s3.addressing != defaults.addressing || !s3.connect_address.empty() ||
         !s3.access_key_id_file.empty() || !s3.secret_access_key_file.empty() ||
         !s3.session_token_file.empty() || s3.multipart_threshold != defaults.multipart_threshold ||
         s3.part_size != defaults.part_size;
}

bool AnyTls(const TlsConfig& tls) {
  return !tls.ca_file.empty() || !tls.cert_file.empty() || !tls.key_file.empty() ||
         !tls.server_name.empty() || tls.insecure_skip_verify;
}

void ValidateS3(const SinkConfig& sink, const StoreUrl& url, const std::string& path,
                Problems& problems) {
  const S3Config& s3 = sink.s3;
  // "" is AWS, always https.
  const bool https = s3.endpoint.empty() || StartsWithIgnoreCase(s3.endpoint, "https://");
  if (!s3.endpoint.empty() && !https && !StartsWithIgnoreCase(s3.endpoint, "http://")) {
    problems.Add(path + ".s3.endpoint",
                 strings::Cat("must be http://host[:port] or https://host[:port]; got \"",
                              s3.endpoint, "\""));
  }
  if (s3.region.empty()) problems.Add(path + ".s3.region", "must not be empty (it is signed)");
  if (https && s3.addressing == S3Config::Addressing::kVirtualHosted &&
      url.bucket.find('.') != std::string::npos) {
    problems.Add(path + ".s3.addressing",
                 strings::Cat("bucket \"", url.bucket,
                              "\" has dots: as a virtual-hosted HTTPS host name it cannot match a "
                              "wildcard certificate; use a bucket without dots, or "
                              "s3.addressing: path where the store allows it"));
  }
  if (s3.part_size > s3.multipart_threshold) {
    problems.Add(path + ".s3.part_size", "must not exceed s3.multipart_threshold");
  }
  if (s3.access_key_id_file.empty() != s3.secret_access_key_file.empty()) {
    problems.Add(path + (s3.access_key_id_file.empty() ? ".s3.access_key_id_file"
                                                       : ".s3.secret_access_key_file"),
                 "s3.access_key_id_file and s3.secret_access_key_file must be given together");
  }
  if (AnyTls(sink.tls) && !https) {
    problems.Add(path + ".tls", "only for an https:// s3.endpoint");
  }
  if (sink.tls.cert_file.empty() != sink.tls.key_file.empty()) {
    problems.Add(path + (sink.tls.cert_file.empty() ? ".tls.cert_file" : ".tls.key_file"),
                 "tls.cert_file and tls.key_file must be given together (client certificate)");
  }
}

}  // namespace

bool IsObjectStoreSinkUrl(std::string_view url) { return IsStoreUrl(url); }

void ApplyObjectSinkEnvironment(const Environment& env, Config& config) {
  // A variable set to "" counts as unset: the downward API gives "" for a
  // label the pod does not have (a plain RayCluster's originated-from ones).
  auto fill = [&env](std::string& field, std::string_view variable, std::string_view fallback) {
    if (!field.empty()) return;
    field = env.Get(variable).value_or("");
    if (field.empty()) field = std::string(fallback);
  };
  for (SinkConfig& sink : config.sinks) {
    if (!IsObjectStoreSinkUrl(sink.url)) continue;
    ClusterConfig& cluster = sink.cluster;
    fill(cluster.namespace_name, kClusterNamespaceVariable, "default");
    fill(cluster.name, kClusterNameVariable, "");
    fill(cluster.kind, kOwnerKindVariable, "raycluster");
    cluster.kind = strings::ToLower(cluster.kind);
    // KubeRay sets OWNER_NAME only for RayJob and RayService clusters.
    if (cluster.kind != "raycluster") fill(cluster.owner, kOwnerNameVariable, "");
    sink.node_id = strings::ToLower(sink.node_id);
    S3Config& s3 = sink.s3;
    if (s3.access_key_id_file.empty()) {
      s3.access_key_id = env.Get("AWS_ACCESS_KEY_ID").value_or("");
      s3.secret_access_key = env.Get("AWS_SECRET_ACCESS_KEY").value_or("");
    }
    if (s3.session_token_file.empty()) s3.session_token = env.Get("AWS_SESSION_TOKEN").value_or("");
  }
}

void ValidateObjectSink(const SinkConfig& sink, const std::string& path, Problems& problems) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl(sink.url);
  if (!url.ok()) {
    problems.Add(path + ".url", strings::View(url.status().message()));
  } else if (url->kind == StoreUrl::Kind::kS3) {
    ValidateS3(sink, *url, path, problems);
  } else {
    if (S3OptionsSet(sink.s3)) problems.Add(path + ".s3", "only for s3:// sinks");
    if (AnyTls(sink.tls)) problems.Add(path + ".tls", "only for s3:// sinks with https");
  }
  if (sink.preserve_proto_field_names) {
    problems.Add(path + ".preserve_proto_field_names",
                 "must be false for object-store sinks: the history server reads camelCase keys");
  }
  if (!sink.headers.empty()) problems.Add(path + ".headers", "only for http(s):// sinks");
  if (!sink.bearer_token_file.empty()) {
    problems.Add(path + ".bearer_token_file", "only for http(s):// sinks");
  }
  if (sink.compression != Compression::kNone) {
    problems.Add(path + ".compression", "only for http(s):// sinks; objects use object.gzip");
  }
  if (sink.max_events_per_second != 0) {
    problems.Add(path + ".max_events_per_second", "only for http(s):// and file:// sinks");
  }
  const ObjectBatchConfig& object = sink.object;
  if (object.max_age < kMinObjectMaxAge || object.max_age > kMaxObjectMaxAge) {
    problems.Add(path + ".object.max_age",
                 strings::Cat("must be from ", FormatDuration(kMinObjectMaxAge), " to ",
                              FormatDuration(kMaxObjectMaxAge)));
  }
  if (object.max_bytes < kMinObjectBytes) {
    problems.Add(path + ".object.max_bytes",
                 strings::Cat("must be >= ", FormatByteSize(kMinObjectBytes)));
  }
  if (object.max_open_bytes < kMinObjectBytes) {
    problems.Add(path + ".object.max_open_bytes",
                 strings::Cat("must be >= ", FormatByteSize(kMinObjectBytes)));
  }
  if (!IsLowerHex(strings::ToLower(sink.node_id))) {
    problems.Add(path + ".node_id", strings::Cat("must be a node id in hex (Ray's NodeID); got \"",
                                                 sink.node_id, "\""));
  }
  const ClusterConfig& cluster = sink.cluster;
  if (!cluster.kind.empty() && !kuberay::ParseClusterKind(cluster.kind).ok()) {
    problems.Add(
        path + ".cluster.kind",
        strings::Cat("must be raycluster, rayjob or rayservice; got \"", cluster.kind, "\""));
  }
  if (!cluster.namespace_name.empty() && !kuberay::IsDns1123Label(cluster.namespace_name)) {
    problems.Add(path + ".cluster.namespace",
                 strings::Cat("must be a DNS-1123 label (lowercase letters, digits and '-', at "
                              "most 63 characters); got \"",
                              cluster.namespace_name, "\""));
  }
  for (const auto& [field, value] :
       {std::pair<std::string_view, const std::string&>{"name", cluster.name},
        {"owner", cluster.owner}}) {
    if (!value.empty() && !kuberay::IsDns1123Subdomain(value)) {
      problems.Add(strings::Cat(path, ".cluster.", field),
                   strings::Cat("must be a DNS-1123 name (lowercase letters, digits, '-' and '.', "
                                "at most 253 characters); got \"",
                                value, "\""));
    }
  }
}

void ValidateNoObjectSinkOptions(const SinkConfig& sink, const std::string& path,
                                 Problems& problems) {
  const ObjectBatchConfig defaults;
  const ObjectBatchConfig& object = sink.object;
  if (object.max_age != defaults.max_age || object.max_bytes != defaults.max_bytes ||
      object.max_open_bytes != defaults.max_open_bytes || object.gzip != defaults.gzip) {
    problems.Add(path + ".object", "only for object-store sinks (s3:// and dir:// URLs)");
  }
  const ClusterConfig& cluster = sink.cluster;
  if (!cluster.namespace_name.empty() || !cluster.name.empty() || !cluster.kind.empty() ||
      !cluster.owner.empty()) {
    problems.Add(path + ".cluster", "only for object-store sinks (s3:// and dir:// URLs)");
  }
  if (!sink.node_id.empty()) {
    problems.Add(path + ".node_id", "only for object-store sinks (s3:// and dir:// URLs)");
  }
  if (S3OptionsSet(sink.s3)) {
    problems.Add(path + ".s3", "only for object-store sinks with s3:// URLs");
  }
}

void ValidateObjectSinkIdentity(const SinkConfig& sink, const std::string& path,
                                Problems& problems) {
  const ClusterConfig& cluster = sink.cluster;
  absl::StatusOr<kuberay::ClusterKind> kind = kuberay::ParseClusterKind(cluster.kind);
  if (!kind.ok()) return;  // reported by ValidateObjectSink
  if (cluster.name.empty()) {
    problems.Add(path + ".cluster.name",
                 strings::Cat("is required for object-store sinks (the Ray cluster's name; or set ",
                              kClusterNameVariable, ")"));
    return;
  }
  const absl::Status identity =
      kuberay::ValidateClusterIdentity({.kind = *kind,
                                        .namespace_name = cluster.namespace_name,
                                        .name = cluster.name,
                                        .owner = cluster.owner});
  if (!identity.ok()) AddIdentityProblem(identity, path, problems);
  absl::StatusOr<StoreUrl> url = ParseStoreUrl(sink.url);
  if (url.ok() && url->kind == StoreUrl::Kind::kS3 && sink.s3.access_key_id_file.empty() &&
      (sink.s3.access_key_id.empty() || sink.s3.secret_access_key.empty())) {
    problems.Add(path + ".s3",
                 "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
                 "s3.access_key_id_file and s3.secret_access_key_file");
  }
}

}  // namespace rayagg
