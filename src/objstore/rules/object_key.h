// Rules every backend applies to keys and user metadata before anything is
// sent or written, so a bad key fails the same way on S3 and on disk.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "rayagg/object_store.h"

namespace rayagg {

// S3 allows 1024 bytes per key (prefix included).
inline constexpr size_t kMaxObjectKeyBytes = 1024;

// Non-empty, at most kMaxObjectKeyBytes, no NUL or other control
// characters, no leading or trailing '/', no empty, "." or ".." segments.
// INVALID_ARGUMENT naming the key otherwise.
absl::Status ValidateObjectKey(std::string_view key);

// A key prefix for List: "" or a key, optionally ending with '/'.
absl::Status ValidateKeyPrefix(std::string_view prefix);

// Names [a-z0-9-]+, values printable ASCII, names and values together at
// most kMaxObjectMetadataBytes.
absl::Status ValidateObjectMetadata(const ObjectMetadata& metadata);

}  // namespace rayagg
