#include "ops/logger.h"

#include <spdlog/common.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <string>

#include "ops/json_log_formatter.h"

namespace rayagg {

absl::StatusOr<std::shared_ptr<spdlog::logger>> MakeLogger(const LogConfig& config) {
  spdlog::sink_ptr sink;
  if (config.file.empty()) {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  } else {
    try {
      // spdlog renames file -> file.1 -> ... and drops the oldest beyond max_files.
      sink = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
          config.file, static_cast<size_t>(config.max_file_bytes),
          static_cast<size_t>(config.max_files));
    } catch (const spdlog::spdlog_ex& error) {
      return absl::InvalidArgumentError("log.file: cannot open " + config.file + ": " +
                                        error.what());
    }
  }
  auto logger = std::make_shared<spdlog::logger>("ray-event-aggregator", std::move(sink));
  ApplyLogFormat(*logger, config.format);
  ApplyLogLevel(*logger, config.level);
  logger->flush_on(spdlog::level::warn);
  return logger;
}

void ApplyLogFormat(spdlog::logger& logger, std::string_view format) {
  if (format == "json") {
    logger.set_formatter(std::make_unique<JsonLogFormatter>());
  } else {
    // Local time with offset, level, then "message key=value ..." fields.
    logger.set_formatter(
        std::make_unique<spdlog::pattern_formatter>("%Y-%m-%dT%H:%M:%S.%e%z %l %v"));
  }
}

void ApplyLogLevel(spdlog::logger& logger, std::string_view level) {
  const auto parsed = spdlog::level::from_str(std::string(level));
  // from_str maps unknown names to `off`; only accept an explicit "off".
  if (parsed != spdlog::level::off || level == "off") logger.set_level(parsed);
}

}  // namespace rayagg
