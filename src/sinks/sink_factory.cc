#include "sinks/sink_factory.h"

#include "sinks/file_transport.h"
#include "sinks/http_transport.h"

namespace rayagg {

absl::StatusOr<std::unique_ptr<Sink>> MakeSink(asio::any_io_executor executor,
                                               const SinkConfig& config, EventLog& log,
                                               spdlog::logger& logger) {
  std::unique_ptr<BatchTransport> transport;
  constexpr std::string_view kFileScheme = "file://";
  if (config.url.starts_with(kFileScheme)) {
    transport = std::make_unique<FileTransport>(config.url.substr(kFileScheme.size()));
  } else {
    absl::StatusOr<Url> url = ParseUrl(config.url);
    if (!url.ok()) {
      return absl::InvalidArgumentError("sink " + config.name + ": " +
                                        std::string(url.status().message()));
    }
    if (url->scheme != "http") {
      return absl::InvalidArgumentError("sink " + config.name + ": scheme " + url->scheme +
                                        " is not supported yet");
    }
    transport = std::make_unique<HttpTransport>(executor, *url, config.request_timeout);
  }
  auto encoder = MakeProtobufJsonEncoder(
      JsonOptions{.preserve_proto_field_names = config.preserve_proto_field_names});
  return std::make_unique<Sink>(std::move(executor), config, log, std::move(transport),
                                std::move(encoder), logger);
}

}  // namespace rayagg
