#include "sink_stats.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "json_array_scan.h"

namespace rayagg::bench {
namespace {

double Percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  const size_t rank = std::min(values.size() - 1, static_cast<size_t>(fraction * values.size()));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank),
                   values.end());
  return values[rank];
}

// Occurrences of `needle` in `haystack`.
uint64_t CountOf(std::string_view haystack, std::string_view needle) {
  uint64_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string_view::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

}  // namespace

void SinkStats::Record(std::string_view body, std::chrono::system_clock::time_point now) {
  const int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  if (requests_ == 0) first_request_unix_ns_ = now_ns;
  last_request_unix_ns_ = now_ns;
  ++requests_;
  bytes_ += body.size();
  const JsonArrayScan scan = ScanJsonArray(body);
  if (!scan.is_array) ++bad_bodies_;
  events_ += scan.elements;
  // The daemon writes compact JSON; these count what coalescing changes.
  lifecycle_events_ += CountOf(body, "\"eventType\":\"TASK_LIFECYCLE_EVENT\"");
  transitions_ += CountOf(body, "{\"state\":\"");
  if (scan.oldest_timestamp_ns && lag_ms_.size() < kMaxLagSamples) {
    lag_ms_.push_back(static_cast<double>(now_ns - *scan.oldest_timestamp_ns) / 1e6);
  }
}

std::string SinkStats::Format() {
  char text[640];
  std::snprintf(
      text, sizeof(text),
      "requests=%llu\nevents=%llu\nlifecycle_events=%llu\ntransitions=%llu\n"
      "bytes=%llu\nbad_bodies=%llu\n"
      "first_request_unix_ns=%lld\nlast_request_unix_ns=%lld\n"
      "lag_p50_ms=%.1f\nlag_p99_ms=%.1f\nlag_max_ms=%.1f\n",
      static_cast<unsigned long long>(requests_), static_cast<unsigned long long>(events_),
      static_cast<unsigned long long>(lifecycle_events_),
      static_cast<unsigned long long>(transitions_), static_cast<unsigned long long>(bytes_),
      static_cast<unsigned long long>(bad_bodies_), static_cast<long long>(first_request_unix_ns_),
      static_cast<long long>(last_request_unix_ns_), Percentile(lag_ms_, 0.5),
      Percentile(lag_ms_, 0.99),
      lag_ms_.empty() ? 0.0 : *std::max_element(lag_ms_.begin(), lag_ms_.end()));
  return text;
}

bool WriteFileAtomically(const std::string& path, std::string_view contents) {
  const std::string temp_path = path + ".tmp";
  {
    std::ofstream out(temp_path, std::ios::trunc);
    out << contents;
    out.close();
    if (!out) return false;
  }
  return std::rename(temp_path.c_str(), path.c_str()) == 0;
}

}  // namespace rayagg::bench
