#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "common/text.h"
#include "spool/file_system.h"

namespace rayagg::spool {
namespace {

absl::StatusCode CodeOf(int error) {
  switch (error) {
    case ENOSPC:
    case EDQUOT:
      return absl::StatusCode::kResourceExhausted;
    case EIO:
      return absl::StatusCode::kDataLoss;
    case ENOENT:
      return absl::StatusCode::kNotFound;
    case EEXIST:
      return absl::StatusCode::kAlreadyExists;
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::StatusCode::kPermissionDenied;
    case EWOULDBLOCK:
      return absl::StatusCode::kUnavailable;
    default:
      return absl::StatusCode::kInternal;
  }
}

// Retries a system call interrupted by a signal.
template <typename Call>
auto Retrying(Call call) {
  for (;;) {
    auto result = call();
    if (result >= 0 || errno != EINTR) return result;
  }
}

class PosixFile final : public File {
 public:
  PosixFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixFile() override { ::close(fd_); }
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  absl::StatusOr<size_t> Append(std::span<const std::string_view> pieces) override {
    iovec vectors[64];
    const size_t count = std::min<size_t>(pieces.size(), std::size(vectors));
    for (size_t i = 0; i < count; ++i) {
      vectors[i].iov_base = const_cast<char*>(pieces[i].data());
      vectors[i].iov_len = pieces[i].size();
    }
    const ssize_t written =
        Retrying([&] { return ::writev(fd_, vectors, static_cast<int>(count)); });
    if (written < 0) return ErrnoStatus(errno, "write", path_);
    return static_cast<size_t>(written);
  }

  absl::StatusOr<size_t> ReadAt(uint64_t offset, char* out, size_t size) override {
    size_t done = 0;
    while (done < size) {
      const ssize_t got = Retrying(
          [&] { return ::pread(fd_, out + done, size - done, static_cast<off_t>(offset + done)); });
      if (got < 0) return ErrnoStatus(errno, "read", path_);
      if (got == 0) break;  // end of file
      done += static_cast<size_t>(got);
    }
    return done;
  }

  absl::Status WriteAt(uint64_t offset, std::string_view bytes) override {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t written = Retrying([&] {
        return ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                        static_cast<off_t>(offset + done));
      });
      if (written < 0) return ErrnoStatus(errno, "write", path_);
      done += static_cast<size_t>(written);
    }
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    if (Retrying([&] { return ::fdatasync(fd_); }) != 0) return ErrnoStatus(errno, "fsync", path_);
    return absl::OkStatus();
  }

  absl::Status Truncate(uint64_t size) override {
    if (Retrying([&] { return ::ftruncate(fd_, static_cast<off_t>(size)); }) != 0) {
      return ErrnoStatus(errno, "truncate", path_);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Size() override {
    struct stat info;
    if (::fstat(fd_, &info) != 0) return ErrnoStatus(errno, "stat", path_);
    return static_cast<uint64_t>(info.st_size);
  }

 private:
  const int fd_;
  const std::string path_;
};

class PosixLock final : public DirectoryLock {
 public:
  explicit PosixLock(int fd) : fd_(fd) {}
  ~PosixLock() override { ::close(fd_); }  // closing releases the flock
  PosixLock(const PosixLock&) = delete;
  PosixLock& operator=(const PosixLock&) = delete;

 private:
  const int fd_;
};

}  // namespace

absl::Status ErrnoStatus(int error, std::string_view operation, std::string_view path) {
  return absl::Status(CodeOf(error),
                      strings::Cat(operation, " ", path, ": ", std::strerror(error)));
}

absl::Status AppendFully(File& file, std::span<const std::string_view> pieces) {
  // Copy of the piece list that advances past what each short write took.
  std::vector<std::string_view> rest(pieces.begin(), pieces.end());
  size_t first = 0;
  while (first < rest.size()) {
    if (rest[first].empty()) {
      ++first;
      continue;
    }
    absl::StatusOr<size_t> written = file.Append(std::span(rest).subspan(first));
    if (!written.ok()) return written.status();
    if (*written == 0) return absl::DataLossError("write made no progress");
    size_t left = *written;
    while (left > 0 && first < rest.size()) {
      const size_t take = std::min(left, rest[first].size());
      rest[first].remove_prefix(take);
      left -= take;
      if (rest[first].empty()) ++first;
    }
  }
  return absl::OkStatus();
}

absl::Status ReadFully(File& file, uint64_t offset, char* out, size_t size) {
  absl::StatusOr<size_t> got = file.ReadAt(offset, out, size);
  if (!got.ok()) return got.status();
  if (*got < size) {
    return absl::OutOfRangeError(
        strings::Cat("file ends at ", offset + *got, ", wanted ", size, " bytes at ", offset));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<File>> PosixFileSystem::Open(const std::string& path,
                                                            OpenMode mode) {
  int flags = O_CLOEXEC;
  switch (mode) {
    case OpenMode::kRead:
      flags |= O_RDONLY;
      break;
    case OpenMode::kReadWrite:
      flags |= O_RDWR | O_CREAT;
      break;
    case OpenMode::kCreateNew:
      flags |= O_WRONLY | O_CREAT | O_EXCL | O_APPEND;
      break;
  }
  const int fd = Retrying([&] { return ::open(path.c_str(), flags, 0640); });
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  return std::make_unique<PosixFile>(fd, path);
}

absl::StatusOr<std::vector<std::string>> PosixFileSystem::ListDirectory(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return ErrnoStatus(errno, "list", path);
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  const int error = errno;
  ::closedir(dir);
  if (error != 0) return ErrnoStatus(error, "list", path);
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status PosixFileSystem::CreateDirectories(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) return ErrnoStatus(error.value(), "create directory", path);
  return absl::OkStatus();
}

absl::Status PosixFileSystem::Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return ErrnoStatus(errno, "rename", from);
  return absl::OkStatus();
}

absl::Status PosixFileSystem::Remove(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return ErrnoStatus(errno, "remove", path);
  return absl::OkStatus();
}

absl::Status PosixFileSystem::SyncDirectory(const std::string& path) {
  const int fd = Retrying([&] { return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  const int result = Retrying([&] { return ::fsync(fd); });
  const int error = errno;
  ::close(fd);
  if (result != 0) return ErrnoStatus(error, "fsync", path);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<DirectoryLock>> PosixFileSystem::Lock(const std::string& path,
                                                                     std::string_view owner) {
  const int fd = Retrying([&] { return ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0640); });
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  if (Retrying([&] { return ::flock(fd, LOCK_EX | LOCK_NB); }) != 0) {
    const int error = errno;
    char holder[128] = {};
    const ssize_t got = ::pread(fd, holder, sizeof(holder) - 1, 0);
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return absl::UnavailableError(strings::Cat(
          "lock ", path, ": held by another process",
          got > 0 ? strings::Cat(" (", std::string_view(holder, static_cast<size_t>(got)), ")")
                  : ""));
    }
    return ErrnoStatus(error, "lock", path);
  }
  // Best effort: the holder's name only helps the message a second process
  // gets; the flock is what excludes it.
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t ignored = ::pwrite(fd, owner.data(), owner.size(), 0);
  }
  return std::make_unique<PosixLock>(fd);
}

}  // namespace rayagg::spool
