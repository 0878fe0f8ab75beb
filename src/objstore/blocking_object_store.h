// An ObjectStore for threads that want plain blocking calls (ray-task-history's
// indexer): it owns an io_context and the store made on it, and runs each call
// to completion on the calling thread. No thread of its own. Calls from
// several threads are serialized; for parallel I/O make one per thread.
#pragma once

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "rayagg/asio.h"
#include "rayagg/mutex.h"
#include "rayagg/object_store.h"

namespace rayagg {

class BlockingObjectStore {
 public:
  // Builds the store on the wrapper's own io_context, e.g.
  //   [&](asio::any_io_executor ex) { return MakeObjectStore(ex, config, logger, clock); }
  using StoreFactory =
      std::function<absl::StatusOr<std::unique_ptr<ObjectStore>>(asio::any_io_executor)>;
  static absl::StatusOr<std::unique_ptr<BlockingObjectStore>> Make(const StoreFactory& factory);
  ~BlockingObjectStore();

  absl::Status Put(PutObjectRequest request);
  absl::StatusOr<StoredObject> Get(GetObjectRequest request);
  absl::StatusOr<ListObjectsPage> List(ListObjectsRequest request);
  std::string Describe() const;

 private:
  BlockingObjectStore() = default;
  template <typename T>
  T Run(asio::awaitable<T> call);

  asio::io_context io_context_;
  std::unique_ptr<ObjectStore> store_;
  Mutex mutex_;  // one call at a time on io_context_
};

}  // namespace rayagg
