// Parsing of object-store URLs: s3://bucket[/prefix] and dir:///absolute/path.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rayagg {

struct StoreUrl {
  enum class Kind { kS3, kDir };
  Kind kind = Kind::kDir;
  std::string bucket;  // kS3
  // kS3: the key prefix every key is placed under, without leading or
  // trailing '/' ("" for the bucket's root).
  std::string prefix;
  std::string path;  // kDir: absolute, without a trailing '/'
};

// Bucket names follow S3's rules (3-63 characters: lowercase letters,
// digits, '.', '-'; a letter or digit at both ends; not an IP address).
// Errors quote the URL and say what is wrong.
absl::StatusOr<StoreUrl> ParseStoreUrl(std::string_view url);

// Whether `url` names an object store (s3:// or dir://), by scheme only.
bool IsStoreUrl(std::string_view url);

bool IsValidBucketName(std::string_view bucket);

}  // namespace rayagg
