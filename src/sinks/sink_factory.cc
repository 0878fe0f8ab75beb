#include "sinks/sink_factory.h"

#include "common/sink_url.h"
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
  std::unique_ptr<BatchTransport> transport;
  if (sink_url->kind == SinkUrl::Kind::kFile) {
    transport = std::make_unique<FileTransport>(sink_url->path);
  } else {
    transport =
        std::make_unique<HttpTransport>(executor, std::move(sink_url->http), config.request_timeout);
  }
  auto encoder = MakeFastJsonEncoder(
      JsonOptions{.preserve_proto_field_names = config.preserve_proto_field_names});
  return std::make_unique<Sink>(std::move(executor), config, log, std::move(transport),
                                std::move(encoder), logger);
}

}  // namespace rayagg
