// Text forms of durations and byte sizes used by the YAML file, the startup
// summary and the docs. Errors carry no key path; callers prefix it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "rayagg/config.h"

namespace rayagg {

// Longest duration any setting accepts. Keeps `now + duration` far from
// overflowing a nanosecond clock, and no timeout or backoff needs more.
inline constexpr Duration kMaxDuration = std::chrono::hours(24 * 365);

// "100ms", "3s", "1.5s", "2m", "1h" (a space before the unit is allowed).
// The result must be a whole number of milliseconds. A bare number is an
// error that asks for a unit: "100" could mean seconds (Ray) or ms.
absl::StatusOr<Duration> ParseDuration(std::string_view text);

// 1048576, "1048576", "64KiB", "10MiB", "1GiB", "1.5MiB"; KB/MB/GB are powers
// of 1000. The result must be a whole number of bytes.
absl::StatusOr<uint64_t> ParseByteSize(std::string_view text);

// Seconds as Ray's env_float reads them (0.1 → 100ms), rounded to the nearest
// millisecond. Rejects negative, NaN, infinite and over-long values.
absl::StatusOr<Duration> DurationFromSeconds(double seconds);

// Largest exact unit: 100ms, 3s, 1500ms, 5m, 1h.
std::string FormatDuration(Duration duration);

// Largest exact binary unit: 20MiB, 1KiB, 1500B.
std::string FormatByteSize(uint64_t bytes);

}  // namespace rayagg
