#include "objstore/s3_credentials.h"

#include "common/text.h"
#include "rayagg/object_store.h"

namespace rayagg::s3 {
namespace {

absl::Status CredentialError(std::string_view message) {
  return ObjectStoreError(absl::StatusCode::kUnauthenticated, "credentials", message);
}

// A key file's value; any error (its message names the key and the file,
// never the content) is a credentials error.
absl::StatusOr<std::string> ValueOf(SecretFile& file) {
  absl::StatusOr<std::string> value = file.Current();
  if (!value.ok()) return CredentialError(strings::View(value.status().message()));
  return value;
}

bool SameCredentials(const sigv4::Credentials& a, const sigv4::Credentials& b) {
  return a.access_key_id == b.access_key_id && a.secret_access_key == b.secret_access_key &&
         a.session_token == b.session_token;
}

}  // namespace

absl::StatusOr<CredentialSource> CredentialSource::FromConfig(const S3Config& config) {
  CredentialSource source;
  const bool key_file = !config.access_key_id_file.empty();
  const bool secret_file = !config.secret_access_key_file.empty();
  if (key_file != secret_file) {
    return absl::FailedPreconditionError(
        "s3.access_key_id_file and s3.secret_access_key_file go together: set both or neither");
  }
  if (key_file) {
    source.access_key_file_.emplace("s3.access_key_id_file", config.access_key_id_file);
    source.secret_key_file_.emplace("s3.secret_access_key_file", config.secret_access_key_file);
    if (!config.session_token_file.empty()) {
      source.token_file_.emplace("s3.session_token_file", config.session_token_file);
    }
    return source;
  }
  if (!config.session_token_file.empty()) {
    return absl::FailedPreconditionError(
        "s3.session_token_file needs s3.access_key_id_file and s3.secret_access_key_file");
  }
  if (config.access_key_id.empty() || config.secret_access_key.empty()) {
    return absl::FailedPreconditionError(
        "no S3 credentials: set s3.access_key_id_file and s3.secret_access_key_file, or "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment");
  }
  source.fixed_ =
      sigv4::Credentials{config.access_key_id, config.secret_access_key, config.session_token};
  return source;
}

absl::StatusOr<sigv4::Credentials> CredentialSource::Current() {
  sigv4::Credentials current;
  if (fixed_) {
    current = *fixed_;
  } else {
    absl::StatusOr<std::string> key = ValueOf(*access_key_file_);
    if (!key.ok()) return key.status();
    absl::StatusOr<std::string> secret = ValueOf(*secret_key_file_);
    if (!secret.ok()) return secret.status();
    current.access_key_id = *std::move(key);
    current.secret_access_key = *std::move(secret);
    if (token_file_) {
      absl::StatusOr<std::string> token = ValueOf(*token_file_);
      if (!token.ok()) return token.status();
      current.session_token = *std::move(token);
    }
  }
  if (!SameCredentials(current, last_)) {
    last_ = current;
    ++generation_;
  }
  return current;
}

std::string CredentialSource::Describe() const {
  if (fixed_) return "environment (AWS_ACCESS_KEY_ID)";
  std::string out =
      strings::Cat("files ", access_key_file_->path(), ", ", secret_key_file_->path());
  if (token_file_) strings::Append(out, ", ", token_file_->path());
  return out;
}

}  // namespace rayagg::s3
