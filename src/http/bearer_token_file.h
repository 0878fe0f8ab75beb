// The access rule of a listener whose token lives in a file (ray-task-
// history's http.bearer_token_file): a request must carry
// `Authorization: Bearer <token>`. The file is a SecretFile, so a rotated
// token (a Kubernetes Secret updated in place) is used from the next
// request on, without a restart or a signal.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "common/secret_file.h"
#include "rayagg/mutex.h"

namespace rayagg {

class BearerTokenFile {
 public:
  // `key` names the setting in errors ("http.bearer_token_file").
  BearerTokenFile(std::string key, std::string path) : file_(std::move(key), std::move(path)) {}

  // Reads the file now (at start, to refuse a bad setting): an error names
  // the key and the file, never the content.
  absl::Status Check();

  // Whether `authorization` (the header's value, nullopt when absent) is
  // "Bearer <token>" (scheme in any case) with the file's current token.
  // The comparison takes the same time wherever the first difference is,
  // and whatever the token's length. When the file cannot be read now
  // (being replaced, deleted) every request is refused. Thread-safe.
  bool Allows(std::optional<std::string_view> authorization);

 private:
  Mutex mutex_;
  SecretFile file_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace rayagg
