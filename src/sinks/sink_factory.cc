#include "sinks/sink_factory.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "common/secret_file.h"
#include "http/tls_context.h"
#include "sinks/file_transport.h"
#include "sinks/http_transport.h"
#include "sinks/rules/sink_url.h"

namespace rayagg {

absl::StatusOr<SinkParts> MakeSinkParts(asio::any_io_executor executor, const SinkConfig& config,
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
    if (auto token =
            SecretFile(std::string(kBearerTokenFileKey), config.bearer_token_file).Current();
        !token.ok()) {
      return absl::InvalidArgumentError("sink " + config.name + ": " +
                                        std::string(token.status().message()));
    }
  }
  // One transport per in-flight slot: an HTTP connection each. A file sink
  // writes synchronously, so one slot is all it can use.
  std::vector<std::unique_ptr<BatchTransport>> transports;
  if (sink_url->kind == SinkUrl::Kind::kFile) {
    transports.push_back(std::make_unique<FileTransport>(sink_url->path));
  } else {
    std::optional<HttpClientTls> tls;
    if (sink_url->http.scheme == "https") {
      absl::StatusOr<HttpClientTls> made = MakeHttpClientTls(config.tls);
      if (!made.ok()) {
        return absl::InvalidArgumentError("sink " + config.name + ": " +
                                          std::string(made.status().message()));
      }
      tls = *std::move(made);
      if (config.tls.insecure_skip_verify) {
        logger.warn(
            "sink {}: TLS certificate verification is OFF (tls.insecure_skip_verify); "
            "anyone on the path can read and alter what this sink sends",
            config.name);
      }
    }
    for (uint32_t slot = 0; slot < std::max<uint32_t>(config.max_in_flight, 1); ++slot) {
      transports.push_back(std::make_unique<HttpTransport>(executor, sink_url->http, config, tls));
    }
  }
  auto encoder = MakeFastJsonEncoder(
      JsonOptions{.preserve_proto_field_names = config.preserve_proto_field_names});
  return SinkParts{std::move(transports), std::move(encoder)};
}

absl::StatusOr<std::unique_ptr<Sink>> MakeSink(asio::any_io_executor executor,
                                               const SinkConfig& config, EventReader& reader,
                                               spdlog::logger& logger, Clock& clock) {
  absl::StatusOr<SinkParts> parts = MakeSinkParts(executor, config, logger);
  if (!parts.ok()) return parts.status();
  return std::make_unique<Sink>(std::move(executor), config, reader, std::move(parts->transports),
                                std::move(parts->encoder), logger, clock);
}

}  // namespace rayagg
