// The rules every Config must satisfy, wherever its values came from. The
// YAML reader applies the single-value limits while reading (to quote what
// the user wrote); ValidateConfig checks the whole struct again, including
// the rules that span several keys.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "config/problems.h"
#include "rayagg/config.h"

namespace rayagg {

inline constexpr uint64_t kMinBatchBytes = 1024;
inline constexpr uint64_t kMinBufferBytes = 1024;
// The dedup window costs ~24 bytes per id; 100M ids (~2.4GB) is a sane ceiling.
inline constexpr uint64_t kMaxDedupWindowEvents = 100'000'000;
// sinks[i].max_in_flight: each slot is a connection and a batch in memory.
inline constexpr uint64_t kMaxInFlight = 64;
inline constexpr uint64_t kMinGrpcMessageBytes = 1024;
inline constexpr uint64_t kMinLogFileBytes = 1024;
inline constexpr uint64_t kMaxLogFiles = 1000;
inline constexpr std::array<std::string_view, 2> kLogFormats = {"text", "json"};
// gRPC keeps message limits in an int.
inline constexpr uint64_t kMaxGrpcMessageBytes = (1ull << 31) - 1;
// http_ingest.max_body_bytes: the body is held in memory whole (and decoded).
inline constexpr uint64_t kMinHttpBodyBytes = 1024;
inline constexpr uint64_t kMaxHttpBodyBytes = 1ull << 30;
// http_ingest.limits and ops.limits (HttpListenerLimits).
inline constexpr uint64_t kMaxListenerConnections = 65'536;
inline constexpr uint64_t kMinHeaderBytes = 1024;
inline constexpr uint64_t kMaxHeaderBytes = 1024 * 1024;
inline constexpr uint64_t kMaxHeaderFields = 10'000;
inline constexpr Duration kMinListenerTimeout{1};
// grpc.max_concurrent_streams (an HTTP/2 setting, int in gRPC) and memory_limit_bytes.
inline constexpr uint64_t kMaxGrpcStreams = 1'000'000;
inline constexpr uint64_t kMinGrpcMemoryBytes = 1024 * 1024;

// spool.segment_bytes: part locations are 32-bit offsets, and a segment may
// overrun by one record, so 1GiB leaves room; 64KiB keeps headers cheap.
inline constexpr uint64_t kMinSpoolSegmentBytes = 64 * 1024;
inline constexpr uint64_t kMaxSpoolSegmentBytes = 1ull << 30;
// spool.max_bytes: at least this many segments, so rotating, deleting and
// evicting always leave room to write.
inline constexpr uint64_t kMinSpoolSegments = 4;

inline constexpr std::array<std::string_view, 7> kLogLevels = {"trace", "debug",    "info", "warn",
                                                               "error", "critical", "off"};

bool IsLogLevel(std::string_view level);

// [A-Za-z0-9_.-]+ : sink names become metric label values and file names.
bool IsValidSinkName(std::string_view name);

// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved by Prometheus).
bool IsPrometheusLabelName(std::string_view name);
// Labels /metrics sets itself; a constant label of that name would clash.
bool IsReservedMetricLabel(std::string_view name);

// Adds one problem per offending key path ("sinks[0].retry.max_backoff").
void ValidateConfig(const Config& config, Problems& problems);

}  // namespace rayagg
