// rayagg-rss-per-event: how much resident memory an aggregator spends per
// buffered event, relative to the event's serialized size.
//
// Point the daemon at a sink that never accepts (so everything it receives
// stays buffered), then run this with its pid. It sends a tiny warm-up (so
// gRPC's per-connection and per-thread allocations are already paid for),
// reads VmRSS, sends events up to each checkpoint, reads VmRSS again and
// prints one key=value line per checkpoint:
//   rss_per_event_ratio = (rss_after - rss_before) / events / avg_event_bytes
// 1.0 would mean the daemon holds exactly the serialized bytes.
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "flags.h"
#include "load_runner.h"

namespace {

constexpr char kUsage[] =
    "usage: rayagg-rss-per-event --pid PID --target HOST:PORT [options]\n"
    "  --events LIST    cumulative checkpoints, comma-separated (default 100000)\n"
    "  --batch N        events per request (default 1000)\n"
    "  --concurrency N  sending threads (default 2)\n"
    "  --settle-ms N    wait before each RSS reading (default 300)\n";

// VmRSS in bytes, or -1 if the process is gone.
int64_t ReadRssBytes(uint64_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      int64_t kilobytes = -1;
      fields >> kilobytes;
      return kilobytes * 1024;
    }
  }
  return -1;
}

std::vector<uint64_t> ParseCheckpoints(const rayagg::bench::Flags& flags) {
  std::vector<uint64_t> checkpoints;
  std::istringstream list(flags.String("events", "100000"));
  std::string item;
  while (std::getline(list, item, ',')) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value == 0 ||
        (!checkpoints.empty() && value <= checkpoints.back())) {
      flags.Fail("--events must be increasing positive integers, got \"" + item + "\"");
    }
    checkpoints.push_back(value);
  }
  return checkpoints;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rayagg::bench;
  const Flags flags(argc, argv, {"pid", "target", "events", "batch", "concurrency", "settle-ms"},
                    kUsage);
  const uint64_t pid = flags.Uint("pid", 0);
  LoadOptions options;
  options.target = flags.String("target", "");
  if (pid == 0 || options.target.empty()) flags.Fail("--pid and --target are required");
  options.batch = flags.Uint("batch", 1000);
  options.concurrency = flags.Uint("concurrency", 2);
  options.duration_s = 300;  // a bound, not a goal: every run stops at its total
  const std::vector<uint64_t> checkpoints = ParseCheckpoints(flags);
  const auto settle = std::chrono::milliseconds(flags.Uint("settle-ms", 300));

  LoadOptions warm_up = options;
  warm_up.batch = 10;
  warm_up.total = 10 * options.concurrency;
  if (RunLoad(warm_up).failed_calls > 0) {
    std::cerr << "rss-per-event: warm-up request failed; is the daemon at " << options.target
              << "?\n";
    return 1;
  }
  std::this_thread::sleep_for(settle);
  const int64_t rss_before = ReadRssBytes(pid);
  if (rss_before < 0) {
    std::cerr << "rss-per-event: no process " << pid << "\n";
    return 1;
  }

  uint64_t sent = 0, event_bytes = 0;
  for (const uint64_t checkpoint : checkpoints) {
    options.total = checkpoint - sent;
    const LoadResult result = RunLoad(options);
    if (result.failed_calls > 0) {
      std::cerr << "rss-per-event: " << FormatLoadResult(result) << "\n";
      return 1;
    }
    sent += result.ok_events;
    event_bytes += result.ok_event_bytes;
    std::this_thread::sleep_for(settle);
    const int64_t rss_after = ReadRssBytes(pid);
    const double avg_event_bytes = static_cast<double>(event_bytes) / sent;
    const double bytes_per_event = static_cast<double>(rss_after - rss_before) / sent;
    char line[512];
    std::snprintf(line, sizeof(line),
                  "events=%llu rss_before_bytes=%lld rss_after_bytes=%lld avg_event_bytes=%.1f "
                  "rss_bytes_per_event=%.1f rss_per_event_ratio=%.3f send_events_per_s=%.0f",
                  static_cast<unsigned long long>(sent), static_cast<long long>(rss_before),
                  static_cast<long long>(rss_after), avg_event_bytes, bytes_per_event,
                  bytes_per_event / avg_event_bytes, result.events_per_s());
    std::cout << line << std::endl;
  }
  return 0;
}
