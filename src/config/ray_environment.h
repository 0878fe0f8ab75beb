// Ray's RAY_DASHBOARD_AGGREGATOR_AGENT_* variables, read the way Ray's Python
// agent reads them (behaviour reference §3.1), so a node configured for the
// stock agent behaves the same with this one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/environment.h"
#include "rayagg/config.h"

namespace rayagg {

inline constexpr std::string_view kRayEnvPrefix = "RAY_DASHBOARD_AGGREGATOR_AGENT_";

// The sink EVENTS_EXPORT_ADDR creates. Reserved: the file may not use it.
inline constexpr std::string_view kEnvSinkName = "ray-export";

// Variable names without kRayEnvPrefix. Where Ray renamed a variable, every
// spelling is listed, canonical first; the first one that is set wins.
namespace ray_env {
inline constexpr std::string_view kEventsExportAddr = "EVENTS_EXPORT_ADDR";
inline constexpr std::string_view kPublishToHttp[] = {"PUBLISH_EVENTS_TO_EXTERNAL_HTTP_SERVICE",
                                                      "PUBLISH_EVENTS_TO_EXTERNAL_HTTP_SVC"};
inline constexpr std::string_view kExposableEventTypes[] = {
    "EXPOSABLE_EVENT_TYPES", "PUBLISHER_EXPOSABLE_EVENT_TYPES",
    "PUBLISHER_HTTP_ENDPOINT_EXPOSABLE_EVENT_TYPES"};
inline constexpr std::string_view kMaxEventBufferSize = "MAX_EVENT_BUFFER_SIZE";
inline constexpr std::string_view kMaxEventSendBatchSize = "MAX_EVENT_SEND_BATCH_SIZE";
inline constexpr std::string_view kSendInterval[] = {"PUBLISHER_MAX_BUFFER_SEND_INTERVAL_SECONDS",
                                                     "MAX_BUFFER_SEND_INTERVAL_SECONDS"};
inline constexpr std::string_view kPreserveProtoFieldName = "PRESERVE_PROTO_FIELD_NAME";
inline constexpr std::string_view kTimeoutSeconds = "PUBLISHER_TIMEOUT_SECONDS";
inline constexpr std::string_view kMaxRetries = "PUBLISHER_MAX_RETRIES";
inline constexpr std::string_view kInitialBackoffSeconds = "PUBLISHER_INITIAL_BACKOFF_SECONDS";
inline constexpr std::string_view kMaxBackoffSeconds = "PUBLISHER_MAX_BACKOFF_SECONDS";
inline constexpr std::string_view kJitterRatio = "PUBLISHER_JITTER_RATIO";
}  // namespace ray_env

// Ray's env_integer: only str.isdigit() values count (no sign, no blanks).
// nullopt for anything Ray would ignore, and for values beyond uint64_t.
std::optional<uint64_t> ParseRayEnvInteger(std::string_view value);
// Ray's env_float, i.e. Python float(): blanks around, a sign, exponents,
// '_' between digits, inf and nan are all accepted.
std::optional<double> ParseRayEnvFloat(std::string_view value);
// Ray's env_bool: true iff the lower-cased value is "true" or the value is "1".
bool ParseRayEnvBool(std::string_view value);

// Applies the variables on top of `config` (defaults + file). Never fails:
// what Ray would ignore, or what this aggregator cannot use, becomes a
// warning and the value already in `config` (or the sink default) stays.
void ApplyRayEnvironment(const Environment& env, Config& config,
                         std::vector<std::string>& warnings);

}  // namespace rayagg
