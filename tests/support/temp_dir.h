// A fresh directory under the system temp dir, removed with everything in it
// when the object goes away; for tests that hand file paths to the code
// under test (token files, certificates, keys).
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace rayagg::test {

// Writes `content` to `path` in place (same inode), replacing what was there.
inline void WriteWholeFile(const std::filesystem::path& path, std::string_view content) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!file) throw std::runtime_error("cannot write " + path.string());
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rayagg-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string Path(std::string_view name) const { return (path_ / name).string(); }

  // Writes `content` to `name` in place (same inode) and returns its path.
  std::string Write(std::string_view name, std::string_view content) const {
    const std::string path = Path(name);
    WriteWholeFile(path, content);
    return path;
  }

  // Makes a FIFO (named pipe) `name` that nobody writes to and returns its
  // path: opening it for reading the ordinary way waits forever.
  std::string Fifo(std::string_view name) const {
    const std::string path = Path(name);
    if (mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed: " + path);
    return path;
  }

  // Replaces `name` atomically by renaming a new file over it, as secret
  // rotation (e.g. Kubernetes) does; returns its path.
  std::string Replace(std::string_view name, std::string_view content) const {
    const std::string staging = Write(std::string(name) + ".new", content);
    const std::string path = Path(name);
    std::filesystem::rename(staging, path);
    return path;
  }

 private:
  std::filesystem::path path_;
};

// The whole content of `path`; empty when it cannot be read (a missing port
// file, a daemon's log not yet written).
inline std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace rayagg::test
