#include "sinks/sink_factory.h"

#include "common/sink_url.h"
#include "sinks/bearer_token_file.h"
#include "sinks/file_transport.h"
#include "sinks/http_transport.h"

namespace rayagg {

absl::StatusOr<std::unique_ptr<Sink>> MakeSink(asio::any_io_executor executor,
                                               const SinkConfig& config, EventLog& log,
                                               spdlog::logger& logger) {
  // Config validation has already accepted the URL; this is the same parser.
  absl::StatusOr<SinkUrl> sink_url = ParseSinkUrl(config.url);
  if (!sink_url.ok()) {
    return absl::InvalidArgumentError("sink " + config.name + ": " +
                                      std::string(sink_url.status().message()));
  }
  // A token file that cannot be read now is a deployment mistake: say so at
  // startup rather than with every failed request. Later read errors are
  // retried (the file may be mid-rotation).
  if (!config.bearer_token_file.empty()) {
    if (auto token = BearerTokenFile(config.bearer_token_file).Current(); !token.ok()) {
      return absl::InvalidArgumentError(
          "sink " + config.name + ": " + std::string(token.status().message()));
    }
  }
  std::unique_ptr<BatchTransport> transport;
  if (sink_url->kind == SinkUrl::Kind::kFile) {
    transport = std::make_unique<FileTransport>(sink_url->path);
  } else {
    transport = std::make_unique<HttpTransport>(executor, std::move(sink_url->http), config);
  }
  auto encoder = MakeFastJsonEncoder(
      JsonOptions{.preserve_proto_field_names = config.preserve_proto_field_names});
  return std::make_unique<Sink>(std::move(executor), config, log, std::move(transport),
                                std::move(encoder), logger);
}

}  // namespace rayagg
