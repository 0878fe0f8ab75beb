// A secret kept in a file named by a setting (a sink's bearer_token_file, an
// S3 key file), e.g. a mounted Kubernetes Secret. Before each use the file's
// identity, size and modification time are checked with one stat(); it is
// re-read only when they change, so a rotated secret is picked up without a
// restart or a SIGHUP.
#pragma once

#include <sys/types.h>

#include <ctime>
#include <string>

#include "absl/status/statusor.h"

namespace rayagg {

class SecretFile {
 public:
  // `key` names the setting in messages ("s3.secret_access_key_file").
  SecretFile(std::string key, std::string path) : key_(std::move(key)), path_(std::move(path)) {}

  // The current secret: the file's content without surrounding blanks (a
  // trailing newline). Errors start with "<key> <path>: " and never hold the
  // content: UNAVAILABLE when the file cannot be read now (missing, being
  // replaced; worth retrying), FAILED_PRECONDITION when what is there cannot
  // be a secret (larger than kMaxSecretFileBytes, not a regular file, empty,
  // or a line break or control character inside). Not thread-safe: one
  // strand or thread calls it.
  absl::StatusOr<std::string> Current();

  const std::string& key() const { return key_; }
  const std::string& path() const { return path_; }

 private:
  // What stat() says about the file; any change means "read it again".
  struct Version {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = -1;
    timespec modified{};
    bool operator==(const Version& other) const;
  };

  absl::StatusOr<std::string> Read() const;

  std::string key_;
  std::string path_;
  bool loaded_ = false;
  Version version_;
  std::string value_;
};

}  // namespace rayagg
