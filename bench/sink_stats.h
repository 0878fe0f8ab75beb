// What the benchmark sink has received, written as key=value lines.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rayagg::bench {

class SinkStats {
 public:
  // Counts one POST body received at `now`.
  void Record(std::string_view body, std::chrono::system_clock::time_point now);

  // requests, events, lifecycle_events, transitions, bytes, bad_bodies, first/last request times
  // and the delivery lag (receive time minus the oldest event timestamp per batch).
  std::string Format();
  uint64_t requests() const { return requests_; }

 private:
  static constexpr size_t kMaxLagSamples = 1 << 20;

  uint64_t requests_ = 0;
  uint64_t events_ = 0;
  uint64_t lifecycle_events_ = 0;  // TASK_LIFECYCLE_EVENTs
  uint64_t transitions_ = 0;       // state transitions inside them
  uint64_t bytes_ = 0;
  uint64_t bad_bodies_ = 0;  // not a JSON array
  int64_t first_request_unix_ns_ = 0;
  int64_t last_request_unix_ns_ = 0;
  std::vector<double> lag_ms_;
};

// Replaces `path` atomically (write a temporary file, rename) so a reader
// never sees half a file.
bool WriteFileAtomically(const std::string& path, std::string_view contents);

}  // namespace rayagg::bench
