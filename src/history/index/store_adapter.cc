#include "history/index/store_adapter.h"

namespace rayagg::history {

absl::StatusOr<StoreListPage> ObjectStoreReader::List(const StoreListRequest& request) {
  ListObjectsRequest list;
  list.prefix = request.prefix;
  list.start_after = request.start_after;
  list.continuation_token = request.continuation_token;
  list.delimiter = request.delimiter;
  list.max_keys = request.max_keys;
  absl::StatusOr<ListObjectsPage> page = store_->List(std::move(list));
  if (!page.ok()) return page.status();
  StoreListPage out;
  out.objects.reserve(page->objects.size());
  for (ObjectInfo& object : page->objects) {
    out.objects.push_back({std::move(object.key), object.size});
  }
  out.common_prefixes = std::move(page->common_prefixes);
  out.next_continuation_token = std::move(page->next_continuation_token);
  return out;
}

absl::StatusOr<StoreBlob> ObjectStoreReader::Get(const std::string& key, uint64_t max_bytes) {
  absl::StatusOr<StoredObject> object = store_->Get({.key = key, .max_bytes = max_bytes});
  if (!object.ok()) return object.status();
  StoreBlob blob;
  blob.body = std::move(object->body);
  blob.metadata = std::move(object->metadata);
  return blob;
}

}  // namespace rayagg::history
