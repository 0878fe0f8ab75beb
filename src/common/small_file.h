// Reads a file that must be small (a token, a key, the config file), never
// more than a limit: a path pointing at /dev/zero or a huge file by mistake is
// an error, not an endless read (stat() says 0 bytes for /dev/zero, so only
// a bounded read tells). Errors name the file, never its content (it may be a
// secret).
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace rayagg {

// Largest token or key file read anywhere in the daemon.
inline constexpr size_t kMaxSecretFileBytes = 64 * 1024;

// The whole content of `path` if it has at most `max_bytes` bytes. Errors:
// NOT_FOUND (no such file), PERMISSION_DENIED, FAILED_PRECONDITION (larger
// than the limit), UNAVAILABLE (anything else, e.g. a directory); each message
// starts with the path.
absl::StatusOr<std::string> ReadSmallFile(const std::string& path,
                                          size_t max_bytes = kMaxSecretFileBytes);

}  // namespace rayagg
