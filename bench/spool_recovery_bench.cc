// Spool recovery speed and bytes on disk (docs/PERFORMANCE.md, "Spool").
//
// Writes `--megabytes` of the loadgen's task events (bench/task_events.h,
// the stream bench/run sends) into a spool with the real writer, then
// recovers the directory twice: warm (the page cache holds the segments, as
// after kill -9) and cold (the segments' pages dropped first with
// posix_fadvise(DONTNEED), as after a reboot). Prints one line of figures:
//   events, event bytes (serialized RayEvents), bytes on disk and their
//   ratio, and the MB/s of records scanned in each recovery.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/real_clock.h"
#include "flags.h"
#include "spool/crc32c.h"
#include "spool/format.h"
#include "spool/spool.h"
#include "task_events.h"

namespace rayagg::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The log's role: the records, in chunks, as the writer collects them.
class Stream final : public spool::RecordSource {
 public:
  uint64_t Add(uint64_t sequence, int32_t type, const std::string& payload) {
    if (chunks_.empty() ||
        chunks_.back().size() + spool::kRecordHeaderBytes + payload.size() > (1u << 20)) {
      begins_.push_back(end_);
      chunks_.emplace_back();
      chunks_.back().reserve(1u << 20);
    }
    std::string& chunk = chunks_.back();
    const size_t at = chunk.size();
    chunk.resize(at + spool::kRecordHeaderBytes);
    spool::EncodeRecordHeader(spool::Crc32c(payload), static_cast<uint32_t>(payload.size()),
                              sequence, type, 0, chunk.data() + at);
    chunk += payload;
    end_ += spool::kRecordHeaderBytes + payload.size();
    return end_;
  }
  uint64_t CollectRecords(uint64_t from, uint64_t to, uint64_t max_bytes,
                          std::vector<std::string_view>& pieces) override {
    uint64_t collected = 0;
    uint64_t first = to;
    for (size_t i = 0; i < chunks_.size() && collected < max_bytes; ++i) {
      const uint64_t begin = begins_[i];
      const uint64_t end = begin + chunks_[i].size();
      if (end <= from || begin >= to) continue;
      const uint64_t a = std::max(from, begin);
      const uint64_t b = std::min(to, end);
      if (first == to) first = a;
      pieces.push_back(std::string_view(chunks_[i]).substr(a - begin, b - a));
      collected += b - a;
    }
    return first;
  }
  void Clear() {
    chunks_.clear();
    begins_.clear();
  }

 private:
  std::vector<std::string> chunks_;
  std::vector<uint64_t> begins_;
  uint64_t end_ = 0;
};

class QuietListener final : public spool::SpoolListener {
 public:
  void OnDurable(uint64_t) override {}
  void OnEvict(const spool::SegmentInfo&) override {}
  void OnHealthChanged(spool::SpoolHealth, const std::string&) override {}
  void OnProblem(const std::string& line) override { std::fprintf(stderr, "%s\n", line.c_str()); }
};

void DropFromPageCache(const std::string& directory) {
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const int fd = ::open(entry.path().c_str(), O_RDONLY);
    if (fd < 0) continue;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

double CpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Returns wall seconds; `cpu` gets the CPU seconds (the machine is shared:
// CPU time is the steadier figure).
double Recover(spool::FileSystem& fs, const std::string& directory, uint64_t& records,
               uint64_t& bytes, double& cpu) {
  RealClock clock;
  auto opened = spool::Spool::Open(
      fs, clock, spool::SpoolOptions{.directory = directory, .max_bytes = 1ull << 40}, "bench");
  if (!opened.ok()) {
    std::fprintf(stderr, "open: %s\n", std::string(opened.status().message()).c_str());
    std::exit(1);
  }
  const auto start = Clock::now();
  const double cpu_start = CpuSeconds();
  const spool::RecoveryReport report = (*opened)->Recover(nullptr);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  cpu = CpuSeconds() - cpu_start;
  records = report.records;
  bytes = report.bytes_scanned;
  return seconds;
}

}  // namespace
}  // namespace rayagg::bench

int main(int argc, char** argv) {
  using namespace rayagg::bench;
  const Flags flags(argc, argv, {"megabytes", "dir"},
                    "rayagg-spool-recovery-bench [--megabytes N] [--dir DIR]");
  const uint64_t megabytes = flags.Uint("megabytes", 512);
  const std::string directory = flags.String("dir", "/var/tmp/rayagg-spool-bench");
  std::filesystem::remove_all(directory);

  // The loadgen's stream: requests of 1000 events, stamped like sends.
  std::vector<std::string> payloads;
  std::vector<int32_t> types;
  {
    auto request = BuildTaskEventsRequest(1000, 0);
    for (int r = 0; r < 8; ++r) {
      StampForSend(request, ReserveSequences(request.events_data().events_size()),
                   std::chrono::system_clock::now());
      for (const auto& event : request.events_data().events()) {
        payloads.push_back(event.SerializeAsString());
        types.push_back(static_cast<int32_t>(event.event_type()));
      }
    }
  }

  rayagg::spool::PosixFileSystem fs;
  uint64_t events = 0;
  uint64_t event_bytes = 0;
  double write_seconds = 0;
  {
    rayagg::RealClock clock;
    auto spool = rayagg::spool::Spool::Open(
        fs, clock,
        rayagg::spool::SpoolOptions{.directory = directory,
                                    .max_bytes = 1ull << 40,
                                    .sync = rayagg::spool::SyncMode::kNever},
        "bench");
    if (!spool.ok()) {
      std::fprintf(stderr, "open: %s\n", std::string(spool.status().message()).c_str());
      return 1;
    }
    (*spool)->Recover(nullptr);
    Stream stream;
    QuietListener listener;
    (*spool)->StartManual(stream, listener, 0);
    uint64_t sequence = (*spool)->first_sequence();
    const auto start = Clock::now();
    while (event_bytes < megabytes << 20) {
      for (size_t i = 0; i < payloads.size(); ++i) {
        const uint64_t end = stream.Add(sequence++, types[i], payloads[i]);
        event_bytes += payloads[i].size();
        ++events;
        if (i % 1000 == 999) (*spool)->Submit(end, [](absl::Status) {});
      }
      (*spool)->Pump();
      stream.Clear();  // written: memory lets go
    }
    (*spool)->Stop();
    write_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  uint64_t disk_bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() == ".seg") disk_bytes += entry.file_size();
  }
  uint64_t records = 0;
  uint64_t scanned = 0;
  double warm_cpu = 0;
  const double warm = Recover(fs, directory, records, scanned, warm_cpu);
  DropFromPageCache(directory);
  uint64_t cold_records = 0;
  uint64_t cold_scanned = 0;
  double cold_cpu = 0;
  const double cold = Recover(fs, directory, cold_records, cold_scanned, cold_cpu);
  std::printf(
      "events=%llu event_bytes=%llu bytes_per_event=%.1f disk_bytes=%llu disk_ratio=%.4f "
      "write_mb_s=%.0f recovered_records=%llu warm_mb_s=%.0f warm_mb_per_cpu_s=%.0f "
      "cold_mb_s=%.0f cold_mb_per_cpu_s=%.0f\n",
      static_cast<unsigned long long>(events), static_cast<unsigned long long>(event_bytes),
      static_cast<double>(event_bytes) / events, static_cast<unsigned long long>(disk_bytes),
      static_cast<double>(disk_bytes) / event_bytes, event_bytes / 1e6 / write_seconds,
      static_cast<unsigned long long>(records), scanned / 1e6 / warm, scanned / 1e6 / warm_cpu,
      cold_scanned / 1e6 / cold, cold_scanned / 1e6 / cold_cpu);
  std::filesystem::remove_all(directory);
  return records == events && cold_records == events ? 0 : 1;
}
