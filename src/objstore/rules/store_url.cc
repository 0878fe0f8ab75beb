#include "objstore/rules/store_url.h"

#include "common/text.h"
#include "common/url.h"
#include "objstore/rules/object_key.h"

namespace rayagg {
namespace {

constexpr std::string_view kS3Scheme = "s3://";
constexpr std::string_view kDirScheme = "dir://";

bool HasScheme(std::string_view url, std::string_view scheme) {
  return url.size() >= scheme.size() &&
         strings::EqualsIgnoreCase(url.substr(0, scheme.size()), scheme);
}

absl::Status Bad(std::string_view url, std::string_view why) {
  return absl::InvalidArgumentError(strings::Cat("'", RedactUrl(url), "': ", why));
}

bool LooksLikeIpv4(std::string_view text) {
  const auto parts = strings::Split(text, '.');
  if (parts.size() != 4) return false;
  for (std::string_view part : parts) {
    if (part.empty() || part.size() > 3) return false;
    for (char c : part) {
      if (c < '0' || c > '9') return false;
    }
  }
  return true;
}

}  // namespace

bool IsStoreUrl(std::string_view url) {
  return HasScheme(url, kS3Scheme) || HasScheme(url, kDirScheme);
}

bool IsValidBucketName(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return false;
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(bucket.front()) || !alnum(bucket.back())) return false;
  for (size_t i = 0; i < bucket.size(); ++i) {
    const char c = bucket[i];
    if (!alnum(c) && c != '.' && c != '-') return false;
    if (c == '.' && i > 0 && (bucket[i - 1] == '.' || bucket[i - 1] == '-')) return false;
    if (c == '-' && i > 0 && bucket[i - 1] == '.') return false;
  }
  return !LooksLikeIpv4(bucket);
}

absl::StatusOr<StoreUrl> ParseStoreUrl(std::string_view url) {
  StoreUrl parsed;
  if (HasScheme(url, kS3Scheme)) {
    parsed.kind = StoreUrl::Kind::kS3;
    std::string_view rest = url.substr(kS3Scheme.size());
    if (rest.find_first_of("?#") != std::string_view::npos) {
      return Bad(url, "an s3:// URL has no query or fragment (S3 options go under s3:)");
    }
    const size_t slash = rest.find('/');
    const std::string_view bucket = rest.substr(0, slash);
    if (bucket.find('@') != std::string_view::npos) {
      return Bad(url, "credentials do not belong in the URL (use s3.* or the environment)");
    }
    if (!IsValidBucketName(bucket)) {
      return Bad(url,
                 "the bucket name must be 3-63 lowercase letters, digits, '.' or '-', starting "
                 "and ending with a letter or digit");
    }
    parsed.bucket = std::string(bucket);
    if (slash != std::string_view::npos) {
      std::string_view prefix = rest.substr(slash + 1);
      while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
      if (!prefix.empty()) {
        if (auto status = ValidateObjectKey(prefix); !status.ok()) {
          return Bad(url, strings::Cat("bad key prefix: ", status.message()));
        }
      }
      parsed.prefix = std::string(prefix);
    }
    return parsed;
  }
  if (HasScheme(url, kDirScheme)) {
    parsed.kind = StoreUrl::Kind::kDir;
    std::string_view path = url.substr(kDirScheme.size());
    if (path.empty() || path.front() != '/') {
      return Bad(url, "a dir:// URL needs an absolute path: dir:///absolute/path");
    }
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    for (std::string_view segment : strings::Split(path.substr(1), '/')) {
      if (segment == "." || segment == "..") return Bad(url, "the path has '.' or '..' segments");
    }
    for (char c : path) {
      if (static_cast<unsigned char>(c) < 0x20) return Bad(url, "the path has control characters");
    }
    parsed.path = std::string(path);
    return parsed;
  }
  return Bad(url, "not an object store URL (s3://bucket/prefix or dir:///absolute/path)");
}

}  // namespace rayagg
