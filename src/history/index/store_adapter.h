// The indexer's StoreReader over the project's object-store client
// (include/rayagg/object_store.h) through BlockingObjectStore: s3:// and
// dir:// stores, the same code the daemon's object-store sink writes with.
#pragma once

#include <memory>

#include "history/index/store_reader.h"
#include "objstore/blocking_object_store.h"

namespace rayagg::history {

class ObjectStoreReader final : public StoreReader {
 public:
  explicit ObjectStoreReader(std::unique_ptr<BlockingObjectStore> store)
      : store_(std::move(store)) {}

  absl::StatusOr<StoreListPage> List(const StoreListRequest& request) override;
  absl::StatusOr<StoreBlob> Get(const std::string& key, uint64_t max_bytes) override;
  std::string Describe() const override { return store_->Describe(); }

 private:
  std::unique_ptr<BlockingObjectStore> store_;
};

}  // namespace rayagg::history
