// The configuration of object-store sinks (url s3://… or dir:///…,
// docs/OBJECT_STORE.md): their limits, their defaults from the environment,
// and their checks.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/environment.h"
#include "config/problems.h"
#include "rayagg/config.h"

namespace rayagg {

inline constexpr Duration kMinObjectMaxAge{100};
// request_timeout's default for these sinks, per request plus 1 s per MiB.
inline constexpr Duration kObjectSinkRequestTimeout{10'000};
inline constexpr Duration kMaxObjectMaxAge = std::chrono::hours(1);
inline constexpr uint64_t kMinObjectBytes = 1024;
// S3 parts are 5 MiB at least (the last excepted) and 5 GiB at most.
inline constexpr uint64_t kMinS3PartBytes = 5ull * 1024 * 1024;
inline constexpr uint64_t kMaxS3PartBytes = 5ull * 1024 * 1024 * 1024;

// The variables KubeRay sets on its history-server collector (and our
// sidecar manifest sets through the downward API).
inline constexpr std::string_view kClusterNamespaceVariable = "RAY_CLUSTER_NAMESPACE";
inline constexpr std::string_view kClusterNameVariable = "RAY_CLUSTER_NAME";
inline constexpr std::string_view kOwnerKindVariable = "OWNER_KIND";
inline constexpr std::string_view kOwnerNameVariable = "OWNER_NAME";

// By scheme only: s3:// or dir://, any case.
bool IsObjectStoreSinkUrl(std::string_view url);

// For each object-store sink: empty cluster fields from RAY_CLUSTER_NAMESPACE
// (else "default", as KubeRay's collector), RAY_CLUSTER_NAME, OWNER_KIND
// (else raycluster) and OWNER_NAME; s3 credentials from AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN unless files are configured;
// node_id lower-cased.
void ApplyObjectSinkEnvironment(const Environment& env, Config& config);

// Checks one object-store sink's settings as the file gives them; `path` is
// "sinks[i]". Cluster identity fields are checked when set.
void ValidateObjectSink(const SinkConfig& sink, const std::string& path, Problems& problems);

// An http(s):// or file:// sink: object-store settings (object, cluster,
// node_id, s3) are reported as not for it.
void ValidateNoObjectSinkOptions(const SinkConfig& sink, const std::string& path,
                                 Problems& problems);

// After ApplyObjectSinkEnvironment: the whole cluster identity (a name is
// required; rayjob and rayservice need an owner) and the S3 credentials.
void ValidateObjectSinkIdentity(const SinkConfig& sink, const std::string& path,
                                Problems& problems);

}  // namespace rayagg
