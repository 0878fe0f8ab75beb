// Where an S3 client gets its keys: files named in the config (a mounted
// Kubernetes Secret), re-read whenever one of them changes (one stat() per
// file per request), or the AWS_* environment values captured when the
// config was loaded. Secrets never appear in errors, logs or Describe().
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/secret_file.h"
#include "objstore/sigv4.h"
#include "rayagg/config.h"

namespace rayagg::s3 {

class CredentialSource {
 public:
  // Files when s3.access_key_id_file / secret_access_key_file are set (both
  // or neither; session_token_file optional), else the environment values.
  // FAILED_PRECONDITION naming the missing piece when there are none.
  static absl::StatusOr<CredentialSource> FromConfig(const S3Config& config);

  // The credentials to sign the next request with. Errors say which file
  // (never what is in it): UNAUTHENTICATED, reason "credentials".
  absl::StatusOr<sigv4::Credentials> Current();

  // Changes whenever Current() returned different credentials than before:
  // a caller stuck on a credentials error may retry at once.
  uint64_t generation() const { return generation_; }

  // "files /path/a, /path/b" or "environment (AWS_ACCESS_KEY_ID)".
  std::string Describe() const;

 private:
  CredentialSource() = default;

  std::optional<sigv4::Credentials> fixed_;
  std::optional<SecretFile> access_key_file_;
  std::optional<SecretFile> secret_key_file_;
  std::optional<SecretFile> token_file_;
  sigv4::Credentials last_;
  uint64_t generation_ = 0;
};

}  // namespace rayagg::s3
