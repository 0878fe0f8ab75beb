// The daemon's logger: one spdlog logger object, created here and passed by
// reference (never spdlog's global registry). Logs go to stderr by default so
// that a console sink (file:///dev/stdout) keeps stdout to events alone, or
// to a size-rotated file (log.file) for collectors that tail files.
#pragma once

#include <spdlog/logger.h>

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "rayagg/config.h"

namespace rayagg {

// Fails (naming log.file) when the log file cannot be opened.
absl::StatusOr<std::shared_ptr<spdlog::logger>> MakeLogger(const LogConfig& config);

// Sets the level from its config name; unknown names leave it unchanged
// (config validation rejects them earlier).
void ApplyLogLevel(spdlog::logger& logger, std::string_view level);

// Applies `format` ("text" or "json") to every sink of `logger`.
void ApplyLogFormat(spdlog::logger& logger, std::string_view format);

}  // namespace rayagg
