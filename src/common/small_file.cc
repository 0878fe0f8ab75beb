#include "common/small_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/text.h"

namespace rayagg {

absl::StatusOr<std::string> ReadSmallFile(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    const std::string message = strings::Cat(path, ": ", std::strerror(error));
    if (error == ENOENT || error == ENOTDIR) return absl::NotFoundError(message);
    if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
    return absl::UnavailableError(message);
  }
  std::string content;
  char chunk[4096];
  absl::Status status;
  // One byte past the limit tells "too large" from "exactly the limit".
  while (content.size() <= max_bytes) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      status = absl::UnavailableError(strings::Cat(path, ": ", std::strerror(error)));
      break;
    }
    if (n == 0) break;
    content.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!status.ok()) return status;
  if (content.size() > max_bytes) {
    return absl::FailedPreconditionError(
        strings::Cat(path, ": larger than ", max_bytes, " bytes (the limit for this file)"));
  }
  return content;
}

}  // namespace rayagg
