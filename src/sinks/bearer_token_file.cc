#include "sinks/bearer_token_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "common/small_file.h"
#include "common/text.h"

namespace rayagg {
namespace {

// A token is one line; the blanks around it (a trailing newline) are not part of it.
constexpr std::string_view kTokenBlanks = " \t\r\n";

}  // namespace

bool BearerTokenFile::Version::operator==(const Version& other) const {
  return device == other.device && inode == other.inode && size == other.size &&
         modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec;
}

absl::StatusOr<std::string> BearerTokenFile::Current() {
  struct stat info {};
  if (::stat(path_.c_str(), &info) != 0) {
    const int error = errno;
    return absl::UnavailableError(
        strings::Cat("bearer_token_file ", path_, ": ", std::strerror(error)));
  }
  const Version now{info.st_dev, info.st_ino, info.st_size, info.st_mtim};
  if (loaded_ && now == version_) return token_;
  absl::StatusOr<std::string> token = Read();
  if (!token.ok()) return token.status();
  token_ = *std::move(token);
  version_ = now;
  loaded_ = true;
  return token_;
}

absl::StatusOr<std::string> BearerTokenFile::Read() const {
  // ReadSmallFile stops past kMaxSecretFileBytes and refuses anything but a
  // regular file (a FIFO would block, /dev/zero never ends).
  absl::StatusOr<std::string> text = ReadSmallFile(path_);
  if (!text.ok()) {
    // Too large is a misconfigured path; any other failure is "try again
    // later" (the file may be being replaced). The message names the file.
    const absl::StatusCode code = absl::IsFailedPrecondition(text.status())
                                      ? absl::StatusCode::kFailedPrecondition
                                      : absl::StatusCode::kUnavailable;
    return absl::Status(code, strings::Cat("bearer_token_file ", text.status().message()));
  }
  const std::string_view token = strings::StripBlanks(*text, kTokenBlanks);
  if (token.empty()) {
    return absl::FailedPreconditionError(strings::Cat("bearer_token_file ", path_, ": is empty"));
  }
  for (char c : token) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::FailedPreconditionError(strings::Cat(
          "bearer_token_file ", path_, ": the token contains a line break or control character"));
    }
  }
  return std::string(token);
}

}  // namespace rayagg
