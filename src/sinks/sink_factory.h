// Builds a Sink from its config: picks the transport from the URL scheme and
// the JSON encoder from the options.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "sinks/sink.h"

namespace rayagg {

// What a sink's settings build: one transport per in-flight slot for its URL
// and its encoder. Also used to reconfigure a running sink (SIGHUP).
struct SinkParts {
  std::vector<std::unique_ptr<BatchTransport>> transports;
  std::unique_ptr<EventJsonEncoder> encoder;
};
absl::StatusOr<SinkParts> MakeSinkParts(asio::any_io_executor executor, const SinkConfig& config,
                                        spdlog::logger& logger);

// `clock` is the sink's (Sink's constructor) and outlives it.
absl::StatusOr<std::unique_ptr<Sink>> MakeSink(asio::any_io_executor executor,
                                               const SinkConfig& config, EventReader& reader,
                                               spdlog::logger& logger, Clock& clock);

}  // namespace rayagg
