// Builds a Sink from its config: picks the transport from the URL scheme and
// the JSON encoder from the options.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "sinks/sink.h"

namespace rayagg {

absl::StatusOr<std::unique_ptr<Sink>> MakeSink(asio::any_io_executor executor,
                                               const SinkConfig& config, EventLog& log,
                                               spdlog::logger& logger);

}  // namespace rayagg
