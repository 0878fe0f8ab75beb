#include "objstore/object_store_factory.h"

#include "objstore/dir_object_store.h"
#include "objstore/rules/store_url.h"
#include "objstore/s3_object_store.h"

namespace rayagg {

absl::StatusOr<std::unique_ptr<ObjectStore>> MakeObjectStore(asio::any_io_executor executor,
                                                             const ObjectStoreConfig& config,
                                                             spdlog::logger& logger, Clock& clock) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl(config.url);
  if (!url.ok()) return url.status();
  if (url->kind == StoreUrl::Kind::kDir) {
    return std::make_unique<DirObjectStore>(std::move(executor), url->path);
  }
  absl::StatusOr<std::unique_ptr<S3ObjectStore>> store =
      S3ObjectStore::Make(std::move(executor), config, logger, clock);
  if (!store.ok()) return store.status();
  return std::unique_ptr<ObjectStore>(*std::move(store));
}

}  // namespace rayagg
