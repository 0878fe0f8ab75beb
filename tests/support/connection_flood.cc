#include "support/connection_flood.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rayagg::test {

Flood::~Flood() {
  for (int fd : fds_) ::close(fd);
}

bool Flood::Open(uint16_t port, size_t count, std::string_view first_bytes) {
  for (size_t i = 0; i < count; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    fds_.push_back(fd);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) return false;
    if (!first_bytes.empty() &&
        ::send(fd, first_bytes.data(), first_bytes.size(), MSG_NOSIGNAL) < 0) {
      return false;
    }
  }
  return true;
}

bool RaiseFileLimit(rlim_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  if (limit.rlim_cur >= wanted) return true;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < wanted) return false;
  limit.rlim_cur = wanted;
  return ::setrlimit(RLIMIT_NOFILE, &limit) == 0;
}

std::string OneEventBody(size_t index) {
  const std::string id = std::to_string(10'000'000 + index);  // 8 digits: valid base64
  return R"([{"eventId": ")" + id +
         R"(", "sourceType": "CORE_WORKER", )"
         R"("eventType": "TASK_DEFINITION_EVENT", "timestamp": "2025-06-30T16:50:30Z", )"
         R"("severity": "INFO", "sessionName": "s", )"
         R"("taskDefinitionEvent": {"taskId": "AQ==", "taskAttempt": )" +
         std::to_string(index) + "}}]";
}

}  // namespace rayagg::test
