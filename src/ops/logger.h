// The daemon's logger: one spdlog logger object, created here and passed by
// reference (never spdlog's global registry). Logs go to stderr so that a
// console sink (file:///dev/stdout) keeps stdout to events alone.
#pragma once

#include <spdlog/logger.h>

#include <memory>
#include <string_view>

#include "rayagg/config.h"

namespace rayagg {

std::shared_ptr<spdlog::logger> MakeLogger(const LogConfig& config);

// Sets the level from its config name; unknown names leave it unchanged
// (config validation rejects them earlier).
void ApplyLogLevel(spdlog::logger& logger, std::string_view level);

}  // namespace rayagg
