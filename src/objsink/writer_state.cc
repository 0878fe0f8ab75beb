#include "objsink/writer_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/small_file.h"
#include "common/text.h"

namespace rayagg {
namespace {

constexpr int kVersion = 1;
// Far more than any state holds (a few ranges per object in flight).
constexpr size_t kMaxStateBytes = 1 << 20;
// ray-task-history keeps sequence numbers as SQLite integers (int64), and a
// writer that reached this many events in 2^63 years of uploads did not.
constexpr uint64_t kMaxNextSeq = std::numeric_limits<int64_t>::max();

nlohmann::json RangesJson(const std::vector<SeqRange>& ranges) {
  nlohmann::json list = nlohmann::json::array();
  for (const SeqRange& range : ranges) list.push_back({range.first, range.last});
  return list;
}

bool ReadRanges(const nlohmann::json& list, uint64_t next_seq, std::vector<SeqRange>& out) {
  if (!list.is_array()) return false;
  for (const nlohmann::json& item : list) {
    if (!item.is_array() || item.size() != 2 || !item[0].is_number_unsigned() ||
        !item[1].is_number_unsigned()) {
      return false;
    }
    const SeqRange range{.first = item[0].get<uint64_t>(), .last = item[1].get<uint64_t>()};
    if (range.first == 0 || range.last < range.first || range.last >= next_seq) return false;
    out.push_back(range);
  }
  return true;
}

bool IsWriterId(const std::string& text) {
  if (text.size() != 16) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

absl::Status Errno(int error, std::string_view what, std::string_view path) {
  return absl::UnavailableError(strings::Cat(what, " ", path, ": ", std::strerror(error)));
}

absl::Status FsyncDirectory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(errno, "cannot open", directory);
  const int synced = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (synced != 0) return Errno(error, "cannot fsync", directory);
  return absl::OkStatus();
}

}  // namespace

std::string WriterStatePath(const std::string& spool_dir, const std::string& sink_name) {
  return strings::Cat(spool_dir, "/objsink-", sink_name, ".json");
}

std::string SerializeWriterState(const WriterState& state) {
  const nlohmann::json json = {{"version", kVersion},
                               {"writer", state.writer},
                               {"next_seq", state.next_seq},
                               {"drops", state.drops},
                               {"pending", RangesJson(state.pending)},
                               {"void", RangesJson(state.void_ranges)}};
  return json.dump() + "\n";
}

absl::StatusOr<WriterState> ParseWriterState(std::string_view text) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [](std::string_view why) {
    return absl::InvalidArgumentError(strings::Cat("not an object sink writer state: ", why));
  };
  if (!json.is_object()) return bad("not a JSON object");
  const auto version = json.find("version");
  if (version == json.end() || !version->is_number_integer() || *version != kVersion) {
    return bad("no version 1");
  }
  WriterState state;
  const auto writer = json.find("writer");
  if (writer == json.end() || !writer->is_string()) return bad("no writer");
  state.writer = writer->get<std::string>();
  if (!IsWriterId(state.writer)) return bad("the writer is not 16 hex digits");
  const auto next_seq = json.find("next_seq");
  if (next_seq == json.end() || !next_seq->is_number_unsigned() || *next_seq == 0 ||
      next_seq->get<uint64_t>() > kMaxNextSeq) {
    return bad("no next_seq between 1 and 2^63-1");
  }
  state.next_seq = next_seq->get<uint64_t>();
  const auto drops = json.find("drops");
  if (drops == json.end() || !drops->is_number_unsigned()) return bad("no drops");
  state.drops = drops->get<uint64_t>();
  const auto pending = json.find("pending");
  if (pending == json.end() || !ReadRanges(*pending, state.next_seq, state.pending)) {
    return bad("pending is not a list of ranges below next_seq");
  }
  const auto void_ranges = json.find("void");
  if (void_ranges == json.end() || !ReadRanges(*void_ranges, state.next_seq, state.void_ranges)) {
    return bad("void is not a list of ranges below next_seq");
  }
  return state;
}

absl::StatusOr<WriterState> LoadWriterState(const std::string& path) {
  absl::StatusOr<std::string> text = ReadSmallFile(path, kMaxStateBytes);
  if (!text.ok()) return text.status();
  absl::StatusOr<WriterState> state = ParseWriterState(*text);
  if (!state.ok()) {
    return absl::InvalidArgumentError(strings::Cat(path, ": ", state.status().message()));
  }
  return state;
}

absl::Status SaveWriterState(const std::string& path, const WriterState& state) {
  const std::string tmp = path + ".tmp";
  const std::string text = SerializeWriterState(state);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(errno, "cannot create", tmp);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return Errno(error, "cannot write", tmp);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    return Errno(error, "cannot fsync", tmp);
  }
  if (::close(fd) != 0) return Errno(errno, "cannot close", tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Errno(errno, "cannot rename into", path);
  const size_t slash = path.rfind('/');
  return FsyncDirectory(slash == std::string::npos ? "."
                        : slash == 0               ? "/"
                                                   : path.substr(0, slash));
}

}  // namespace rayagg
