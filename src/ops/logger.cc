#include "ops/logger.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <string>

namespace rayagg {

std::shared_ptr<spdlog::logger> MakeLogger(const LogConfig& config) {
  auto logger = std::make_shared<spdlog::logger>(
      "ray-event-aggregator", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  // Local time with offset, level, then "message key=value ..." fields.
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l %v");
  ApplyLogLevel(*logger, config.level);
  logger->flush_on(spdlog::level::warn);
  return logger;
}

void ApplyLogLevel(spdlog::logger& logger, std::string_view level) {
  const auto parsed = spdlog::level::from_str(std::string(level));
  // from_str maps unknown names to `off`; only accept an explicit "off".
  if (parsed != spdlog::level::off || level == "off") logger.set_level(parsed);
}

}  // namespace rayagg
