#include "sinks/file_transport.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rayagg {

FileTransport::FileTransport(std::string path) : path_(std::move(path)) {}

FileTransport::~FileTransport() {
  if (fd_ >= 0) ::close(fd_);
}

asio::awaitable<DeliveryOutcome> FileTransport::Deliver(std::string_view body) {
  co_return Write(body);
}

DeliveryOutcome FileTransport::Write(std::string_view body) {
  if (fd_ < 0) {
    // Opened lazily and re-opened after an error, so a file that appears
    // later (or a full disk that recovers) does not need a restart.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd_ < 0)
      return DeliveryOutcome{false, std::string("open failed: ") + std::strerror(errno),
                             FailureReason::kIo};
  }
  // Body and newline are written separately: copying a batch of up to
  // batch.max_bytes just to append one byte is not worth it.
  for (std::string_view part : {body, std::string_view("\n")}) {
    size_t written = 0;
    while (written < part.size()) {
      const ssize_t n = ::write(fd_, part.data() + written, part.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const std::string reason = std::string("write failed: ") + std::strerror(errno);
        ::close(fd_);
        fd_ = -1;
        return DeliveryOutcome{false, reason, FailureReason::kIo};
      }
      written += static_cast<size_t>(n);
    }
  }
  return DeliveryOutcome{true, {}};
}

}  // namespace rayagg
