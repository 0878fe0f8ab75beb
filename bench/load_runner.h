// Drives AddEvents calls against an aggregator: `concurrency` threads, each
// with its own channel (a separate connection, like separate Ray workers) and
// one blocking call in flight. Shared by rayagg-loadgen and
// rayagg-rss-per-event.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace rayagg::bench {

struct LoadOptions {
  std::string target;      // host:port
  size_t batch = 1000;     // events per request
  size_t concurrency = 2;  // threads, one call in flight each
  double duration_s = 10;  // stop after this long (always set: it bounds every run)
  double rate = 0;         // events per second over all threads; 0 = as fast as possible
  uint64_t total = 0;      // stop after this many events; 0 = no limit
  std::chrono::milliseconds call_deadline{10'000};
  size_t pool_requests = 4;  // pre-built requests per thread, used round-robin
};

struct LoadResult {
  uint64_t sent_events = 0;  // events in every call made, failed ones included
  uint64_t ok_calls = 0;
  uint64_t ok_events = 0;
  uint64_t ok_event_bytes = 0;  // serialized RayEvent bytes of ok_events
  uint64_t failed_calls = 0;
  std::map<std::string, uint64_t> errors_by_code;  // gRPC status code name -> calls
  int64_t start_unix_ns = 0;                       // when the first call was sent
  double elapsed_s = 0;                            // first send to last reply
  double latency_p50_ms = 0;
  double latency_p99_ms = 0;
  double latency_max_ms = 0;

  double avg_event_bytes() const {
    return ok_events == 0 ? 0 : static_cast<double>(ok_event_bytes) / ok_events;
  }
  double events_per_s() const { return elapsed_s > 0 ? ok_events / elapsed_s : 0; }
};

LoadResult RunLoad(const LoadOptions& options);

// One line of key=value pairs (the loadgen's output format, parsed by bench/run).
std::string FormatLoadResult(const LoadResult& result);

}  // namespace rayagg::bench
