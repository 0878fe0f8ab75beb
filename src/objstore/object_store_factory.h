// Builds the ObjectStore a store URL names: s3:// (S3ObjectStore) or dir://
// (DirObjectStore). The composition roots (the daemon's sink factory,
// ray-task-history) call this; nothing else picks a backend.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "rayagg/awaitable.h"
#include "rayagg/config.h"
#include "rayagg/object_store.h"

namespace spdlog {
class logger;
}

namespace rayagg {

class Clock;

// Errors are config errors naming the key (url, s3.*, tls.*). S3 requests
// are signed with `clock`'s wall time; it outlives the store.
absl::StatusOr<std::unique_ptr<ObjectStore>> MakeObjectStore(asio::any_io_executor executor,
                                                             const ObjectStoreConfig& config,
                                                             spdlog::logger& logger, Clock& clock);

}  // namespace rayagg
