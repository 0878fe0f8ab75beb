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
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
  return values[rank];
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
  if (scan.oldest_timestamp_ns && lag_ms_.size() < kMaxLagSamples) {
    lag_ms_.push_back(static_cast<double>(now_ns - *scan.oldest_timestamp_ns) / 1e6);
  }
}

std::string SinkStats::Format() {
  char text[512];
  std::snprintf(text, sizeof(text),
                "requests=%llu\nevents=%llu\nbytes=%llu\nbad_bodies=%llu\n"
                "first_request_unix_ns=%lld\nlast_request_unix_ns=%lld\n"
                "lag_p50_ms=%.1f\nlag_p99_ms=%.1f\nlag_max_ms=%.1f\n",
                static_cast<unsigned long long>(requests_), static_cast<unsigned long long>(events_),
                static_cast<unsigned long long>(bytes_), static_cast<unsigned long long>(bad_bodies_),
                static_cast<long long>(first_request_unix_ns_),
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
