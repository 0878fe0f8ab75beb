// A bearer token kept in a file (`sinks[i].bearer_token_file`), e.g. a
// mounted Kubernetes secret. Before each request the file's identity and
// timestamp are checked with one stat(); it is re-read only when they change,
// so a rotated token is picked up without a restart.
#pragma once

#include <sys/types.h>

#include <ctime>
#include <string>

#include "absl/status/statusor.h"

namespace rayagg {

class BearerTokenFile {
 public:
  explicit BearerTokenFile(std::string path) : path_(std::move(path)) {}

  // The current token: the file's content without surrounding whitespace.
  // Errors (missing, unreadable, empty, or a token with a line break or
  // control character inside) name the file, never its content. Not
  // thread-safe: one sink's strand calls it.
  absl::StatusOr<std::string> Current();

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

  std::string path_;
  bool loaded_ = false;
  Version version_;
  std::string token_;
};

}  // namespace rayagg
