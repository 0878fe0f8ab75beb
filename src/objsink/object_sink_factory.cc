#include "objsink/object_sink_factory.h"

#include <spdlog/spdlog.h>

#include "common/text.h"
#include "objstore/object_store_factory.h"

namespace rayagg {

absl::StatusOr<std::unique_ptr<ObjectSink>> MakeObjectSink(asio::any_io_executor executor,
                                                           const SinkConfig& config,
                                                           EventReader& reader,
                                                           spdlog::logger& logger, Clock& clock,
                                                           const std::string& spool_dir) {
  auto failed = [&config](const absl::Status& status) {
    return absl::InvalidArgumentError(
        strings::Cat("sink ", config.name, ": ", strings::View(status.message())));
  };
  // Config validation has already checked the identity; this is the same check.
  absl::StatusOr<kuberay::ClusterKind> kind = kuberay::ParseClusterKind(config.cluster.kind);
  if (!kind.ok()) return failed(kind.status());
  kuberay::ClusterIdentity cluster{.kind = *kind,
                                   .namespace_name = config.cluster.namespace_name,
                                   .name = config.cluster.name,
                                   .owner = config.cluster.owner};
  if (absl::Status valid = kuberay::ValidateClusterIdentity(cluster); !valid.ok()) {
    return failed(valid);
  }
  ObjectStoreConfig store_config{.url = config.url,
                                 .s3 = config.s3,
                                 .tls = config.tls,
                                 .request_timeout = config.request_timeout};
  absl::StatusOr<std::unique_ptr<ObjectStore>> store =
      MakeObjectStore(executor, store_config, logger, clock);
  if (!store.ok()) return failed(store.status());
  if (config.tls.insecure_skip_verify) {
    logger.warn(
        "sink {}: TLS certificate verification is OFF (tls.insecure_skip_verify); anyone on the "
        "path can read and alter what this sink uploads",
        config.name);
  }
  // camelCase: the history server reads the keys Ray's agent sends.
  return std::make_unique<ObjectSink>(
      std::move(executor), config, std::move(cluster), reader, *std::move(store),
      MakeFastJsonEncoder({}), logger, clock,
      spool_dir.empty() ? std::string() : WriterStatePath(spool_dir, config.name));
}

}  // namespace rayagg
