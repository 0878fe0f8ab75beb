#include "common/secret_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "common/small_file.h"
#include "common/text.h"

namespace rayagg {
namespace {

// A secret is one line; the blanks around it (a trailing newline) are not part of it.
constexpr std::string_view kSecretBlanks = " \t\r\n";

}  // namespace

bool SecretFile::Version::operator==(const Version& other) const {
  return device == other.device && inode == other.inode && size == other.size &&
         modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec;
}

absl::StatusOr<std::string> SecretFile::Current() {
  struct stat info {};
  if (::stat(path_.c_str(), &info) != 0) {
    const int error = errno;
    return absl::UnavailableError(strings::Cat(key_, " ", path_, ": ", std::strerror(error)));
  }
  const Version now{info.st_dev, info.st_ino, info.st_size, info.st_mtim};
  if (loaded_ && now == version_) return value_;
  absl::StatusOr<std::string> value = Read();
  if (!value.ok()) return value.status();
  value_ = *std::move(value);
  version_ = now;
  loaded_ = true;
  return value_;
}

absl::StatusOr<std::string> SecretFile::Read() const {
  // Bounded, and only a regular file: the stat() size above is no limit
  // (/proc says 0), a FIFO would block and /dev/zero never ends.
  absl::StatusOr<std::string> text = ReadSmallFile(path_);
  if (!text.ok()) {
    // Too large or not a file is a misconfigured path; any other failure is
    // "try again later" (the file may be being replaced). The message
    // starts with the path.
    const absl::StatusCode code = absl::IsFailedPrecondition(text.status())
                                      ? absl::StatusCode::kFailedPrecondition
                                      : absl::StatusCode::kUnavailable;
    return absl::Status(code, strings::Cat(key_, " ", text.status().message()));
  }
  const std::string_view value = strings::StripBlanks(*text, kSecretBlanks);
  if (value.empty()) {
    return absl::FailedPreconditionError(strings::Cat(key_, " ", path_, ": is empty"));
  }
  for (char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::FailedPreconditionError(
          strings::Cat(key_, " ", path_, ": holds a line break or control character"));
    }
  }
  return std::string(value);
}

}  // namespace rayagg
