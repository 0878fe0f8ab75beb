#include "objstore/dir_object_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "common/text.h"
#include "objstore/offload.h"
#include "objstore/rules/object_key.h"

namespace rayagg {
namespace {

constexpr std::string_view kTmpSuffix = ".tmp";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Files of ours that are not objects.
bool IsHiddenName(std::string_view name) {
  return EndsWith(name, kTmpSuffix) || EndsWith(name, kDirMetadataSuffix);
}

// An errno as a store error: a full or failing disk may recover (retry),
// permissions and read-only mounts need an operator.
absl::Status IoError(int error, std::string_view what, std::string_view path) {
  const std::string message = strings::Cat(what, " ", path, ": ", std::strerror(error));
  switch (error) {
    case EACCES:
    case EPERM:
    case EROFS:
      return ObjectStoreError(absl::StatusCode::kPermissionDenied, "permission", message);
    case EEXIST:
      return ObjectStoreError(absl::StatusCode::kAlreadyExists, "exists", message);
    case ENOENT:
      return ObjectStoreError(absl::StatusCode::kNotFound, "not_found", message);
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
      return ObjectStoreError(absl::StatusCode::kFailedPrecondition, "not_a_directory", message);
    default:  // ENOSPC, EDQUOT, EIO, EMFILE, ...
      return ObjectStoreError(absl::StatusCode::kUnavailable, "io", message);
  }
}

// Closes on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // close() reports write-back errors on some file systems (NFS).
  int Close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

absl::Status CheckRoot(const std::string& root) {
  struct stat info {};
  if (::stat(root.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ENOENT) {
      return ObjectStoreError(
          absl::StatusCode::kFailedPrecondition, "no_such_directory",
          strings::Cat("dir://", root, ": no such directory (create it, or mount the volume)"));
    }
    return IoError(error, "cannot stat", root);
  }
  if (!S_ISDIR(info.st_mode)) {
    return ObjectStoreError(absl::StatusCode::kFailedPrecondition, "not_a_directory",
                            strings::Cat("dir://", root, ": not a directory"));
  }
  return absl::OkStatus();
}

absl::Status FsyncPath(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return IoError(errno, "cannot open directory", path);
  if (::fsync(fd.get()) != 0) return IoError(errno, "cannot fsync directory", path);
  return absl::OkStatus();
}

// Creates the directories of `key`'s parent under `root`, fsyncing each
// parent of a directory created here so that the new entries are durable.
absl::Status MakeParents(const std::string& root, std::string_view key) {
  std::string path = root;
  std::string parent = root;
  const std::vector<std::string_view> segments = strings::Split(key, '/');
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    strings::Append(path, "/", segments[i]);
    if (::mkdir(path.c_str(), 0755) == 0) {
      if (auto status = FsyncPath(parent); !status.ok()) return status;
    } else if (errno != EEXIST) {
      return IoError(errno, "cannot create directory", path);
    } else {
      struct stat info {};
      if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
        return ObjectStoreError(absl::StatusCode::kFailedPrecondition, "not_a_directory",
                                strings::Cat(path, " exists and is not a directory"));
      }
    }
    parent = path;
  }
  return absl::OkStatus();
}

std::string RandomSuffix() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), ".%016llx", static_cast<unsigned long long>(random()));
  return buffer;
}

absl::Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return IoError(errno, "cannot write", path);
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

// Writes `data` to a fresh temporary file next to `path`, fsyncs and closes
// it; returns the temporary file's path.
absl::StatusOr<std::string> WriteTemporary(const std::string& path, std::string_view data) {
  const std::string tmp = path + RandomSuffix() + std::string(kTmpSuffix);
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return IoError(errno, "cannot create", tmp);
  absl::Status status = WriteAll(fd.get(), data, tmp);
  if (status.ok() && ::fsync(fd.get()) != 0) status = IoError(errno, "cannot fsync", tmp);
  if (status.ok() && fd.Close() != 0) status = IoError(errno, "cannot close", tmp);
  if (!status.ok()) {
    ::unlink(tmp.c_str());
    return status;
  }
  return tmp;
}

// Moves `tmp` to `path` unless `path` exists (then ALREADY_EXISTS). The
// temporary file is gone afterwards either way.
absl::Status RenameNoReplace(const std::string& tmp, const std::string& path) {
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
    return absl::OkStatus();
  }
  int error = errno;
  if (error == EINVAL || error == ENOSYS) {
    // No RENAME_NOREPLACE here (some network file systems): link() also
    // refuses to replace, atomically.
    if (::link(tmp.c_str(), path.c_str()) == 0) {
      ::unlink(tmp.c_str());
      return absl::OkStatus();
    }
    error = errno;
  }
  ::unlink(tmp.c_str());
  if (error == EEXIST) {
    return ObjectStoreError(absl::StatusCode::kAlreadyExists, "exists",
                            strings::Cat(path, " already exists; objects are never overwritten"));
  }
  return IoError(error, "cannot rename into", path);
}

std::string SidecarJson(const PutObjectRequest& request) {
  nlohmann::json metadata = nlohmann::json::object();
  for (const auto& [name, value] : request.metadata) metadata[name] = value;
  nlohmann::json sidecar = {{"content_type", request.content_type},
                            {"content_encoding", request.content_encoding},
                            {"metadata", std::move(metadata)}};
  return sidecar.dump() + "\n";
}

absl::StatusOr<std::string> ReadFile(const std::string& path, uint64_t max_bytes) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return IoError(errno, "cannot open", path);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return IoError(errno, "cannot stat", path);
  if (!S_ISREG(info.st_mode)) return IoError(ENOENT, "not a regular file:", path);
  if (static_cast<uint64_t>(info.st_size) > max_bytes) {
    return ObjectStoreError(absl::StatusCode::kResourceExhausted, "too_large",
                            strings::Cat(path, ": ", static_cast<int64_t>(info.st_size),
                                         " bytes, more than ", max_bytes));
  }
  std::string data(static_cast<size_t>(info.st_size), '\0');
  size_t at = 0;
  while (at < data.size()) {
    const ssize_t got = ::read(fd.get(), data.data() + at, data.size() - at);
    if (got < 0) {
      if (errno == EINTR) continue;
      return IoError(errno, "cannot read", path);
    }
    if (got == 0) break;  // shrank meanwhile: objects never do, but be safe
    at += static_cast<size_t>(got);
  }
  data.resize(at);
  return data;
}

// One directory entry seen by the sorted walk.
struct Entry {
  std::string name;
  bool is_dir = false;
  // Names sort as keys do: a directory "a" stands for keys "a/...", so it
  // sorts as "a/" (after "a.b", before "a0").
  std::string SortKey() const { return is_dir ? name + "/" : name; }
};

// The entries of `dir` that can be objects or hold objects, in key order.
absl::StatusOr<std::vector<Entry>> SortedEntries(const std::string& dir) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) return std::vector<Entry>{};
    return IoError(errno, "cannot list", dir);
  }
  std::vector<Entry> entries;
  while (dirent* item = ::readdir(handle)) {
    const std::string_view name = item->d_name;
    if (name == "." || name == ".." || IsHiddenName(name)) continue;
    unsigned char type = item->d_type;
    if (type == DT_UNKNOWN || type == DT_LNK) {
      struct stat info {};
      const std::string path = strings::Cat(dir, "/", name);
      if (::stat(path.c_str(), &info) != 0) continue;  // vanished or dangling
      type = S_ISDIR(info.st_mode) ? DT_DIR : S_ISREG(info.st_mode) ? DT_REG : DT_UNKNOWN;
    }
    if (type != DT_DIR && type != DT_REG) continue;
    entries.push_back(Entry{std::string(name), type == DT_DIR});
  }
  ::closedir(handle);
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.SortKey() < b.SortKey(); });
  return entries;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Depth-first walk in key order, pruned to the prefix and the start key,
// stopping once the page is full.
class Lister {
 public:
  Lister(const std::string& root, const ListObjectsRequest& request)
      : root_(root),
        prefix_(request.prefix),
        after_(request.continuation_token.empty() ? request.start_after
                                                  : request.continuation_token),
        roll_up_(request.delimiter == "/"),
        max_keys_(request.max_keys) {}

  absl::StatusOr<ListObjectsPage> Run() {
    if (auto status = Walk(""); !status.ok()) return status;
    if (truncated_ && !last_.empty()) page_.next_continuation_token = last_;
    return std::move(page_);
  }

 private:
  bool Full() const { return page_.objects.size() + page_.common_prefixes.size() >= max_keys_; }

  // Emits one key or common prefix, unless the page is full (then the page
  // is marked truncated and the walk stops).
  bool Emit(std::string key, bool common_prefix, const std::string& path) {
    if (Full()) {
      truncated_ = true;
      return false;
    }
    if (common_prefix) {
      page_.common_prefixes.push_back(key);
    } else {
      ObjectInfo info;
      info.key = key;
      struct stat st {};
      if (::stat(path.c_str(), &st) == 0) {
        info.size = static_cast<uint64_t>(st.st_size);
        info.last_modified = std::chrono::system_clock::time_point(
            std::chrono::duration_cast<std::chrono::system_clock::duration>(
                std::chrono::seconds(st.st_mtim.tv_sec) +
                std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
      }
      page_.objects.push_back(std::move(info));
    }
    last_ = std::move(key);
    return true;
  }

  // `dir_key` is "" for the root or "a/b/" for a directory.
  absl::Status Walk(const std::string& dir_key) {
    absl::StatusOr<std::vector<Entry>> entries = SortedEntries(
        dir_key.empty() ? root_ : strings::Cat(root_, "/", dir_key.substr(0, dir_key.size() - 1)));
    if (!entries.ok()) return entries.status();
    for (const Entry& entry : *entries) {
      if (truncated_) return absl::OkStatus();
      const std::string key = dir_key + entry.SortKey();
      if (entry.is_dir) {
        // Skip directories that cannot hold keys under the prefix.
        if (!StartsWith(key, prefix_) && !StartsWith(prefix_, key)) continue;
        // ...or keys after the start key.
        if (key <= after_ && !StartsWith(after_, key)) continue;
        if (roll_up_ && StartsWith(key, prefix_) && key.size() > prefix_.size() &&
            key.find('/', prefix_.size()) == key.size() - 1) {
          if (key > after_ && !Emit(key, true, "")) return absl::OkStatus();
          continue;
        }
        if (auto status = Walk(key); !status.ok()) return status;
      } else {
        if (!StartsWith(key, prefix_) || key <= after_) continue;
        if (!Emit(key, false, strings::Cat(root_, "/", key))) return absl::OkStatus();
      }
    }
    return absl::OkStatus();
  }

  const std::string& root_;
  const std::string& prefix_;
  const std::string& after_;
  const bool roll_up_;
  const size_t max_keys_;
  ListObjectsPage page_;
  std::string last_;
  bool truncated_ = false;
};

}  // namespace

DirObjectStore::DirObjectStore(asio::any_io_executor executor, std::string root)
    : executor_(std::move(executor)),
      root_(std::move(root)),
      io_thread_(std::make_unique<asio::thread_pool>(1)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

DirObjectStore::~DirObjectStore() {
  // Waits for file I/O in flight: it may read a Put's body.
  io_thread_->join();
}

std::string DirObjectStore::Describe() const { return "dir://" + root_; }

asio::awaitable<absl::Status> DirObjectStore::Put(PutObjectRequest request) {
  // A named lambda, not a temporary inside the co_await: g++ 12 destroys
  // such temporaries twice.
  auto work = [root = root_, request = std::move(request)] { return PutBlocking(root, request); };
  co_return co_await OffloadTo(*io_thread_, std::move(work));
}

asio::awaitable<absl::StatusOr<StoredObject>> DirObjectStore::Get(GetObjectRequest request) {
  // A named lambda, not a temporary inside the co_await: g++ 12 destroys
  // such temporaries twice.
  auto work = [root = root_, request = std::move(request)] { return GetBlocking(root, request); };
  co_return co_await OffloadTo(*io_thread_, std::move(work));
}

asio::awaitable<absl::StatusOr<ListObjectsPage>> DirObjectStore::List(ListObjectsRequest request) {
  // A named lambda, not a temporary inside the co_await: g++ 12 destroys
  // such temporaries twice.
  auto work = [root = root_, request = std::move(request)] { return ListBlocking(root, request); };
  co_return co_await OffloadTo(*io_thread_, std::move(work));
}

absl::Status DirObjectStore::PutBlocking(const std::string& root, const PutObjectRequest& request) {
  if (auto status = ValidateObjectKey(request.key); !status.ok()) return status;
  for (std::string_view segment : strings::Split(request.key, '/')) {
    if (IsHiddenName(segment)) {
      return ObjectStoreError(
          absl::StatusCode::kInvalidArgument, "invalid_key",
          strings::Cat(
              "object key '", request.key,
              "': names ending in .tmp or .rayagg-meta.json are reserved in dir:// stores"));
    }
  }
  if (auto status = ValidateObjectMetadata(request.metadata); !status.ok()) return status;
  if (auto status = CheckRoot(root); !status.ok()) return status;
  if (auto status = MakeParents(root, request.key); !status.ok()) return status;

  const std::string path = strings::Cat(root, "/", request.key);
  if (::access(path.c_str(), F_OK) == 0) {
    return ObjectStoreError(absl::StatusCode::kAlreadyExists, "exists",
                            strings::Cat(path, " already exists; objects are never overwritten"));
  }
  // The sidecar may be replaced: it belongs to an object that is not there
  // yet (a previous attempt failed between the two renames).
  absl::StatusOr<std::string> sidecar_tmp =
      WriteTemporary(strings::Cat(path, kDirMetadataSuffix), SidecarJson(request));
  if (!sidecar_tmp.ok()) return sidecar_tmp.status();
  const std::string sidecar = strings::Cat(path, kDirMetadataSuffix);
  if (::rename(sidecar_tmp->c_str(), sidecar.c_str()) != 0) {
    const int error = errno;
    ::unlink(sidecar_tmp->c_str());
    return IoError(error, "cannot rename into", sidecar);
  }
  absl::StatusOr<std::string> tmp = WriteTemporary(path, request.body);
  if (!tmp.ok()) return tmp.status();
  if (auto status = RenameNoReplace(*tmp, path); !status.ok()) return status;
  const size_t slash = path.rfind('/');
  return FsyncPath(path.substr(0, slash));
}

absl::StatusOr<StoredObject> DirObjectStore::GetBlocking(const std::string& root,
                                                         const GetObjectRequest& request) {
  if (auto status = ValidateObjectKey(request.key); !status.ok()) return status;
  if (auto status = CheckRoot(root); !status.ok()) return status;
  const std::string path = strings::Cat(root, "/", request.key);
  absl::StatusOr<std::string> body = ReadFile(path, request.max_bytes);
  if (!body.ok()) {
    if (absl::IsNotFound(body.status())) {
      return ObjectStoreError(absl::StatusCode::kNotFound, "NoSuchKey",
                              strings::Cat("no object '", request.key, "'"));
    }
    return body.status();
  }
  StoredObject object;
  object.body = *std::move(body);
  // Objects written by other tools have no sidecar; that is not an error.
  absl::StatusOr<std::string> sidecar =
      ReadFile(strings::Cat(path, kDirMetadataSuffix), kMaxObjectMetadataBytes * 4 + 4096);
  if (sidecar.ok()) {
    const nlohmann::json parsed = nlohmann::json::parse(*sidecar, nullptr, false);
    if (parsed.is_object()) {
      object.content_type = parsed.value("content_type", "");
      object.content_encoding = parsed.value("content_encoding", "");
      if (auto it = parsed.find("metadata"); it != parsed.end() && it->is_object()) {
        for (const auto& [name, value] : it->items()) {
          if (value.is_string()) object.metadata.emplace_back(name, value.get<std::string>());
        }
      }
    }
  }
  return object;
}

absl::StatusOr<ListObjectsPage> DirObjectStore::ListBlocking(const std::string& root,
                                                             const ListObjectsRequest& request) {
  if (auto status = ValidateKeyPrefix(request.prefix); !status.ok()) return status;
  if (!request.delimiter.empty() && request.delimiter != "/") {
    return ObjectStoreError(absl::StatusCode::kInvalidArgument, "invalid_request",
                            "dir:// stores list with delimiter \"\" or \"/\" only");
  }
  if (request.max_keys == 0 || request.max_keys > 1000) {
    return ObjectStoreError(absl::StatusCode::kInvalidArgument, "invalid_request",
                            "max_keys must be 1..1000");
  }
  if (auto status = CheckRoot(root); !status.ok()) return status;
  return Lister(root, request).Run();
}

}  // namespace rayagg
