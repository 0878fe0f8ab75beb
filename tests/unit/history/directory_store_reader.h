// A StoreReader over a local directory tree for the indexer's tests: key
// "a/b/c" is the file <root>/a/b/c; List has ListObjectsV2's semantics
// (ascending byte order, prefix, start_after, "/" delimiter, pages of
// max_keys with a continuation token). It stands in for src/objstore's
// DirObjectStore until that lands (issue 16); the tests then use the real one.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "history/index/store_reader.h"

namespace rayagg::history::testing {

class DirectoryStoreReader final : public StoreReader {
 public:
  explicit DirectoryStoreReader(std::string root) : root_(std::move(root)) {}

  absl::StatusOr<StoreListPage> List(const StoreListRequest& request) override {
    std::vector<std::string> keys;
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(root_, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (!it->is_regular_file()) continue;
      keys.push_back(std::filesystem::relative(it->path(), root_).string());
    }
    std::sort(keys.begin(), keys.end());
    const std::string& after =
        request.continuation_token.empty() ? request.start_after : request.continuation_token;
    StoreListPage page;
    std::string last;  // the last key or common prefix returned
    size_t returned = 0;
    for (const std::string& key : keys) {
      if (key.compare(0, request.prefix.size(), request.prefix) != 0 || key <= after) continue;
      // Keys under a common prefix already returned (or passed) roll up into it.
      if (!last.empty() && last.back() == '/' && key.compare(0, last.size(), last) == 0) continue;
      if (!after.empty() && after.back() == '/' && key.compare(0, after.size(), after) == 0)
        continue;
      if (returned == request.max_keys) {
        page.next_continuation_token = last;
        break;
      }
      const size_t slash =
          request.delimiter.empty() ? std::string::npos : key.find('/', request.prefix.size());
      if (slash != std::string::npos) {
        last = key.substr(0, slash + 1);
        page.common_prefixes.push_back(last);
      } else {
        last = key;
        page.objects.push_back({key, std::filesystem::file_size(root_ + "/" + key)});
      }
      ++returned;
    }
    return page;
  }

  absl::StatusOr<StoreBlob> Get(const std::string& key, uint64_t max_bytes) override {
    std::ifstream in(root_ + "/" + key, std::ios::binary);
    if (!in) return absl::NotFoundError("no such key " + key);
    std::stringstream body;
    body << in.rdbuf();
    StoreBlob blob;
    blob.body = body.str();
    if (blob.body.size() > max_bytes) return absl::ResourceExhaustedError("object too large");
    return blob;
  }

  std::string Describe() const override { return "test directory " + root_; }

 private:
  std::string root_;
};

}  // namespace rayagg::history::testing
