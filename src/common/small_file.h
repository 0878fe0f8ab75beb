// Reads a file that must be small (a token, a key, the config file), never
// more than a limit, and only a regular file: a path pointing at a huge file,
// /dev/zero or a FIFO by mistake is an error, not an endless read or an
// endless wait for a writer. (stat() sizes are no limit: a file in /proc says
// 0 bytes and may hold more, so the read itself is bounded.) Errors name the
// file, never its content (it may be a secret).
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace rayagg {

// Largest token or key file read anywhere in the daemon.
inline constexpr size_t kMaxSecretFileBytes = 64 * 1024;

// The whole content of `path` if it has at most `max_bytes` bytes. Errors:
// NOT_FOUND (no such file), PERMISSION_DENIED, FAILED_PRECONDITION (larger
// than the limit, or not a regular file: a directory, FIFO, device or
// socket), UNAVAILABLE (anything else); each message starts with the path.
// Never blocks on a FIFO without a writer.
absl::StatusOr<std::string> ReadSmallFile(const std::string& path,
                                          size_t max_bytes = kMaxSecretFileBytes);

}  // namespace rayagg
