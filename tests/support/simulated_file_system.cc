#include "support/simulated_file_system.h"

#include <algorithm>

#include "common/text.h"

namespace rayagg::test {

using spool::ErrnoStatus;

class SimulatedFile final : public spool::File {
 public:
  SimulatedFile(SimulatedFileSystem& fs, std::string path,
                std::shared_ptr<SimulatedFileSystem::Node> node, bool writable)
      : fs_(fs), path_(std::move(path)), node_(std::move(node)), writable_(writable) {}

  absl::StatusOr<size_t> Append(std::span<const std::string_view> pieces) override {
    MutexLock lock(fs_.mutex_);
    if (!writable_) return ErrnoStatus(EBADF, "write", path_);
    size_t total = 0;
    for (const std::string_view piece : pieces) total += piece.size();
    size_t allowed = total;
    const SimulatedFileSystem::Fault* fault = fs_.Match(SimulatedFileSystem::Op::kAppend, path_);
    if (fault != nullptr) {
      if (fault->short_write) {
        allowed = std::min(total, fault->short_bytes);
      } else if (fault->torn) {
        allowed = total / 2;
      } else {
        return ErrnoStatus(fault->error, "write", path_);
      }
    }
    size_t left = allowed;
    for (const std::string_view piece : pieces) {
      const size_t take = std::min(left, piece.size());
      node_->data.append(piece.substr(0, take));
      left -= take;
    }
    if (fault != nullptr && fault->torn) return ErrnoStatus(fault->error, "write", path_);
    return allowed;
  }

  absl::StatusOr<size_t> ReadAt(uint64_t offset, char* out, size_t size) override {
    MutexLock lock(fs_.mutex_);
    if (const auto* fault = fs_.Match(SimulatedFileSystem::Op::kRead, path_)) {
      return ErrnoStatus(fault->error, "read", path_);
    }
    if (offset >= node_->data.size()) return size_t{0};
    const size_t got = std::min<uint64_t>(size, node_->data.size() - offset);
    node_->data.copy(out, got, offset);
    return got;
  }

  absl::Status WriteAt(uint64_t offset, std::string_view bytes) override {
    MutexLock lock(fs_.mutex_);
    if (!writable_) return ErrnoStatus(EBADF, "write", path_);
    if (const auto* fault = fs_.Match(SimulatedFileSystem::Op::kWriteAt, path_)) {
      if (fault->torn) {
        const std::string_view half = bytes.substr(0, bytes.size() / 2);
        if (node_->data.size() < offset + half.size()) node_->data.resize(offset + half.size());
        node_->data.replace(offset, half.size(), half);
      }
      return ErrnoStatus(fault->error, "write", path_);
    }
    if (node_->data.size() < offset + bytes.size()) node_->data.resize(offset + bytes.size());
    node_->data.replace(offset, bytes.size(), bytes);
    // An overwrite of synced bytes is not durable until the next fsync.
    node_->synced = std::min<uint64_t>(node_->synced, offset);
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    MutexLock lock(fs_.mutex_);
    if (const auto* fault = fs_.Match(SimulatedFileSystem::Op::kSync, path_)) {
      // Linux marks the pages of a failed write-back clean: the next fsync
      // succeeds without writing them, and a power loss loses them.
      if (node_->synced < node_->data.size()) {
        node_->doomed.emplace_back(node_->synced, node_->data.size());
      }
      node_->synced = node_->data.size();
      return ErrnoStatus(fault->error, "fsync", path_);
    }
    node_->synced = node_->data.size();
    return absl::OkStatus();
  }

  absl::Status Truncate(uint64_t size) override {
    MutexLock lock(fs_.mutex_);
    if (const auto* fault = fs_.Match(SimulatedFileSystem::Op::kTruncate, path_)) {
      return ErrnoStatus(fault->error, "truncate", path_);
    }
    node_->data.resize(size);
    node_->synced = std::min<uint64_t>(node_->synced, size);
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Size() override {
    MutexLock lock(fs_.mutex_);
    return node_->data.size();
  }

 private:
  SimulatedFileSystem& fs_;
  const std::string path_;
  std::shared_ptr<SimulatedFileSystem::Node> node_;
  const bool writable_;
};

class SimulatedLock final : public spool::DirectoryLock {
 public:
  SimulatedLock(SimulatedFileSystem& fs, std::string path, uint64_t id, uint64_t epoch)
      : fs_(fs), path_(std::move(path)), id_(id), epoch_(epoch) {}
  ~SimulatedLock() override {
    MutexLock lock(fs_.mutex_);
    if (epoch_ != fs_.lock_epoch_) return;  // the "process" holding it died
    auto it = fs_.locks_.find(path_);
    if (it != fs_.locks_.end() && it->second == id_) fs_.locks_.erase(it);
  }

 private:
  SimulatedFileSystem& fs_;
  const std::string path_;
  const uint64_t id_;
  const uint64_t epoch_;
};

std::string SimulatedFileSystem::Parent(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

void SimulatedFileSystem::Inject(Fault fault) {
  MutexLock lock(mutex_);
  faults_.push_back(ActiveFault{.fault = std::move(fault)});
}

void SimulatedFileSystem::ClearFaults() {
  MutexLock lock(mutex_);
  faults_.clear();
}

int SimulatedFileSystem::injected(Op op) const {
  MutexLock lock(mutex_);
  auto it = injected_.find(op);
  return it == injected_.end() ? 0 : it->second;
}

int SimulatedFileSystem::calls(Op op, std::string_view path_part) const {
  MutexLock lock(mutex_);
  int count = 0;
  for (const auto& [call, path] : calls_) {
    if (call == op && path.find(path_part) != std::string::npos) ++count;
  }
  return count;
}

const SimulatedFileSystem::Fault* SimulatedFileSystem::Match(Op op, const std::string& path) {
  calls_.emplace_back(op, path);
  for (ActiveFault& active : faults_) {
    const Fault& fault = active.fault;
    if (fault.op != op || path.find(fault.path_contains) == std::string::npos) continue;
    if (active.seen++ < fault.skip) continue;
    if (fault.times >= 0 && active.used >= fault.times) continue;
    ++active.used;
    ++injected_[op];
    return &fault;
  }
  return nullptr;
}

void SimulatedFileSystem::CrashProcess() {
  MutexLock lock(mutex_);
  locks_.clear();
  ++lock_epoch_;
}

void SimulatedFileSystem::LosePower(bool keep_unsynced_prefix) {
  MutexLock lock(mutex_);
  locks_.clear();
  ++lock_epoch_;
  for (auto it = files_.begin(); it != files_.end();) {
    Node& node = *it->second;
    if (!node.entry_durable) {
      it = files_.erase(it);
      continue;
    }
    uint64_t keep = node.synced;
    if (keep_unsynced_prefix && node.data.size() > keep) keep += (node.data.size() - keep) / 2;
    node.data.resize(keep);
    for (const auto& [begin, end] : node.doomed) {
      for (uint64_t i = begin; i < std::min<uint64_t>(end, node.data.size()); ++i) {
        node.data[i] = '\0';
      }
    }
    node.doomed.clear();
    node.synced = node.data.size();
    ++it;
  }
}

bool SimulatedFileSystem::Exists(const std::string& path) const {
  MutexLock lock(mutex_);
  return files_.contains(path);
}

std::string SimulatedFileSystem::Contents(const std::string& path) const {
  MutexLock lock(mutex_);
  auto it = files_.find(path);
  return it == files_.end() ? std::string() : it->second->data;
}

void SimulatedFileSystem::SetContents(const std::string& path, std::string bytes) {
  MutexLock lock(mutex_);
  auto& node = files_[path];
  if (!node) {
    node = std::make_shared<Node>();
    node->entry_durable = true;
  }
  node->data = std::move(bytes);
  node->synced = node->data.size();
}

std::vector<std::string> SimulatedFileSystem::Paths() const {
  MutexLock lock(mutex_);
  std::vector<std::string> paths;
  for (const auto& [path, node] : files_) paths.push_back(path);
  return paths;
}

absl::StatusOr<std::unique_ptr<spool::File>> SimulatedFileSystem::Open(const std::string& path,
                                                                       spool::OpenMode mode) {
  MutexLock lock(mutex_);
  if (const Fault* fault = Match(Op::kOpen, path)) return ErrnoStatus(fault->error, "open", path);
  if (!directories_.contains(Parent(path))) return ErrnoStatus(ENOENT, "open", path);
  auto it = files_.find(path);
  switch (mode) {
    case spool::OpenMode::kRead:
      if (it == files_.end()) return ErrnoStatus(ENOENT, "open", path);
      return std::make_unique<SimulatedFile>(*this, path, it->second, false);
    case spool::OpenMode::kReadWrite:
      if (it == files_.end()) it = files_.emplace(path, std::make_shared<Node>()).first;
      return std::make_unique<SimulatedFile>(*this, path, it->second, true);
    case spool::OpenMode::kCreateNew:
      if (it != files_.end()) return ErrnoStatus(EEXIST, "open", path);
      it = files_.emplace(path, std::make_shared<Node>()).first;
      return std::make_unique<SimulatedFile>(*this, path, it->second, true);
  }
  return ErrnoStatus(EINVAL, "open", path);
}

absl::StatusOr<std::vector<std::string>> SimulatedFileSystem::ListDirectory(
    const std::string& path) {
  MutexLock lock(mutex_);
  if (!directories_.contains(path)) return ErrnoStatus(ENOENT, "list", path);
  std::vector<std::string> names;
  for (const auto& [file, node] : files_) {
    if (Parent(file) == path) names.push_back(file.substr(path.size() + 1));
  }
  for (const std::string& directory : directories_) {
    if (Parent(directory) == path) names.push_back(directory.substr(path.size() + 1));
  }
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status SimulatedFileSystem::CreateDirectories(const std::string& path) {
  MutexLock lock(mutex_);
  for (std::string directory = path; !directory.empty(); directory = Parent(directory)) {
    directories_.insert(directory);
  }
  return absl::OkStatus();
}

absl::Status SimulatedFileSystem::Rename(const std::string& from, const std::string& to) {
  MutexLock lock(mutex_);
  if (const Fault* fault = Match(Op::kRename, from))
    return ErrnoStatus(fault->error, "rename", from);
  auto it = files_.find(from);
  if (it == files_.end()) return ErrnoStatus(ENOENT, "rename", from);
  if (!directories_.contains(Parent(to))) return ErrnoStatus(ENOENT, "rename", to);
  files_[to] = it->second;
  files_.erase(from);
  return absl::OkStatus();
}

absl::Status SimulatedFileSystem::Remove(const std::string& path) {
  MutexLock lock(mutex_);
  if (const Fault* fault = Match(Op::kRemove, path))
    return ErrnoStatus(fault->error, "remove", path);
  if (files_.erase(path) == 0) return ErrnoStatus(ENOENT, "remove", path);
  return absl::OkStatus();
}

absl::Status SimulatedFileSystem::SyncDirectory(const std::string& path) {
  MutexLock lock(mutex_);
  if (const Fault* fault = Match(Op::kSyncDirectory, path)) {
    return ErrnoStatus(fault->error, "fsync", path);
  }
  for (auto& [file, node] : files_) {
    if (Parent(file) == path) node->entry_durable = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<spool::DirectoryLock>> SimulatedFileSystem::Lock(
    const std::string& path, std::string_view owner) {
  MutexLock lock(mutex_);
  if (locks_.contains(path)) {
    auto it = files_.find(path);
    return absl::UnavailableError(strings::Cat("lock ", path, ": held by another process (",
                                               it == files_.end() ? "" : it->second->data, ")"));
  }
  if (!directories_.contains(Parent(path))) return ErrnoStatus(ENOENT, "open", path);
  auto& node = files_[path];
  if (!node) node = std::make_shared<Node>();
  node->data = std::string(owner);
  const uint64_t id = next_lock_++;
  locks_[path] = id;
  return std::make_unique<SimulatedLock>(*this, path, id, lock_epoch_);
}

}  // namespace rayagg::test
