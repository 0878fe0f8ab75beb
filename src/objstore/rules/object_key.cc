#include "objstore/rules/object_key.h"

#include "common/text.h"

namespace rayagg {
namespace {

absl::Status BadKey(std::string_view key, std::string_view why) {
  // Keys are ours (layout) or an operator's prefix: safe to quote, but cut.
  return ObjectStoreError(absl::StatusCode::kInvalidArgument, "invalid_key",
                          strings::Cat("object key '", key.substr(0, 200), "': ", why));
}

absl::Status CheckSegments(std::string_view key, std::string_view whole) {
  for (std::string_view segment : strings::Split(key, '/')) {
    if (segment.empty()) return BadKey(whole, "has an empty path segment");
    if (segment == "." || segment == "..") return BadKey(whole, "has a '.' or '..' segment");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateObjectKey(std::string_view key) {
  if (key.empty()) return BadKey(key, "is empty");
  if (key.size() > kMaxObjectKeyBytes) return BadKey(key, "is longer than 1024 bytes");
  for (char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return BadKey(key, "contains a control character");
  }
  if (key.front() == '/' || key.back() == '/') return BadKey(key, "starts or ends with '/'");
  return CheckSegments(key, key);
}

absl::Status ValidateKeyPrefix(std::string_view prefix) {
  if (prefix.empty()) return absl::OkStatus();
  std::string_view body = prefix;
  if (body.back() == '/') body.remove_suffix(1);
  if (body.empty()) return BadKey(prefix, "a prefix cannot be just '/'");
  if (prefix.size() > kMaxObjectKeyBytes) return BadKey(prefix, "is longer than 1024 bytes");
  for (char c : prefix) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return BadKey(prefix, "contains a control character");
  }
  if (body.front() == '/') return BadKey(prefix, "starts with '/'");
  return CheckSegments(body, prefix);
}

absl::Status ValidateObjectMetadata(const ObjectMetadata& metadata) {
  size_t bytes = 0;
  for (const auto& [name, value] : metadata) {
    if (name.empty()) {
      return ObjectStoreError(absl::StatusCode::kInvalidArgument, "invalid_metadata",
                              "object metadata: empty name");
    }
    for (char c : name) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
        return ObjectStoreError(absl::StatusCode::kInvalidArgument, "invalid_metadata",
                                strings::Cat("object metadata name '", name,
                                             "': only lowercase letters, digits and '-'"));
      }
    }
    for (char c : value) {
      if (c < 0x20 || c > 0x7e) {
        return ObjectStoreError(
            absl::StatusCode::kInvalidArgument, "invalid_metadata",
            strings::Cat("object metadata '", name, "': the value is not printable ASCII"));
      }
    }
    bytes += name.size() + value.size();
  }
  if (bytes > kMaxObjectMetadataBytes) {
    return ObjectStoreError(absl::StatusCode::kInvalidArgument, "invalid_metadata",
                            strings::Cat("object metadata: ", bytes, " bytes, more than 2048"));
  }
  return absl::OkStatus();
}

}  // namespace rayagg
