// What the indexer needs from the object store: one page of a listing and
// one whole object, as blocking calls on the indexer's thread. Implemented
// over the project's ObjectStore (src/objstore) by store_adapter.h (ObjectStoreReader).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace rayagg::history {

struct StoreListRequest {
  std::string prefix;
  std::string start_after;
  std::string continuation_token;
  std::string delimiter;  // "" or "/"
  uint32_t max_keys = 1000;
};

struct StoreEntry {
  std::string key;
  uint64_t size = 0;
};

struct StoreListPage {
  std::vector<StoreEntry> objects;
  std::vector<std::string> common_prefixes;
  std::string next_continuation_token;  // "" on the last page
};

struct StoreBlob {
  std::string body;
  std::vector<std::pair<std::string, std::string>> metadata;
};

class StoreReader {
 public:
  virtual ~StoreReader() = default;
  virtual absl::StatusOr<StoreListPage> List(const StoreListRequest& request) = 0;
  virtual absl::StatusOr<StoreBlob> Get(const std::string& key, uint64_t max_bytes) = 0;
  virtual std::string Describe() const = 0;
};

}  // namespace rayagg::history
