#include "common/small_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/text.h"

namespace rayagg {
namespace {

// What a path that is not a regular file is, for the error message.
std::string_view FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

}  // namespace

absl::StatusOr<std::string> ReadSmallFile(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer,
  // forever if there is none (a token path pointing at a pipe by mistake
  // would hang startup or SIGHUP). It changes nothing for a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    const std::string message = strings::Cat(path, ": ", std::strerror(error));
    if (error == ENOENT || error == ENOTDIR) return absl::NotFoundError(message);
    if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
    return absl::UnavailableError(message);
  }
  // Only regular files: a FIFO, device or socket may block, never end or
  // change under us; what is meant here is always a file on disk (a
  // Kubernetes Secret's symlink is followed by open(), so it is one too).
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return absl::UnavailableError(strings::Cat(path, ": ", std::strerror(error)));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(strings::Cat(
        path, ": is ", FileKind(info.st_mode), ", not a regular file (only files are read here)"));
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
