#include "history/index/duration_stats.h"

#include <algorithm>
#include <cmath>

namespace rayagg::history {
namespace {

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void PutSigned(std::string& out, int64_t v) {
  PutVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
bool GetVarint(std::string_view& in, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    const auto byte = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}
bool GetSigned(std::string_view& in, int64_t& v) {
  uint64_t u = 0;
  if (!GetVarint(in, u)) return false;
  v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

// Saturating int64 arithmetic. Durations come from event timestamps that
// anyone with write access to the bucket chooses (an end in the year 9999),
// and stats are decoded from index files, so a sum or count may reach the
// int64 limits: it stops there instead of overflowing (undefined behaviour).
// A saturated sum is wrong from then on, but stays at the limit it hit.
int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? INT64_MAX : INT64_MIN;
}
int64_t SaturatingMultiply(int64_t a, int64_t b) {
  int64_t out = 0;
  if (!__builtin_mul_overflow(a, b, &out)) return out;
  return (a > 0) == (b > 0) ? INT64_MAX : INT64_MIN;
}

}  // namespace

int DurationStats::BucketOf(int64_t duration_ns) {
  if (duration_ns < 1000) return 0;
  const double octaves = std::log2(static_cast<double>(duration_ns) / 1000.0);
  return 1 + static_cast<int>(octaves * kBucketsPerOctave);
}

int64_t DurationStats::UpperBound(int bucket) {
  if (bucket <= 0) return 1000;
  const double bound = 1000.0 * std::exp2(static_cast<double>(bucket) / kBucketsPerOctave);
  return bound >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(bound);
}

void DurationStats::Add(int64_t duration_ns, int64_t times) {
  if (duration_ns < 0) duration_ns = 0;
  count_ = SaturatingAdd(count_, times);
  sum_ns_ = SaturatingAdd(sum_ns_, SaturatingMultiply(duration_ns, times));
  if (times > 0) max_ns_ = std::max(max_ns_, duration_ns);
  int64_t& bucket = buckets_[BucketOf(duration_ns)];
  bucket = SaturatingAdd(bucket, times);
  if (bucket == 0) buckets_.erase(BucketOf(duration_ns));
}

void DurationStats::Merge(const DurationStats& other, int64_t sign) {
  count_ = SaturatingAdd(count_, SaturatingMultiply(sign, other.count_));
  sum_ns_ = SaturatingAdd(sum_ns_, SaturatingMultiply(sign, other.sum_ns_));
  if (sign > 0) max_ns_ = std::max(max_ns_, other.max_ns_);
  for (const auto& [bucket, count] : other.buckets_) {
    int64_t& mine = buckets_[bucket];
    mine = SaturatingAdd(mine, SaturatingMultiply(sign, count));
    if (mine == 0) buckets_.erase(bucket);
  }
  if (count_ == 0) max_ns_ = 0;
}

int64_t DurationStats::Quantile(double q) const {
  if (count_ <= 0) return 0;
  const double wanted = std::ceil(q * static_cast<double>(count_));
  // Clamped before the cast: a double at or above 2^63 (a count near
  // INT64_MAX), or NaN, has no int64 value.
  const int64_t rank = !(wanted < 9.2e18) ? INT64_MAX
                       : wanted < 1       ? 1
                                          : static_cast<int64_t>(wanted);
  int64_t seen = 0;
  for (const auto& [bucket, count] : buckets_) {
    seen = SaturatingAdd(seen, count);
    if (seen >= rank) {
      // The bucket's geometric middle, never above the exact max.
      const double low = bucket == 0 ? 0.0 : static_cast<double>(UpperBound(bucket - 1));
      const double high = static_cast<double>(UpperBound(bucket));
      const double middle = bucket == 0 ? high / 2 : std::sqrt(low * high);
      return std::min<int64_t>(static_cast<int64_t>(middle), max_ns_);
    }
  }
  return max_ns_;
}

std::vector<std::pair<int64_t, int64_t>> DurationStats::Octaves() const {
  std::map<int, int64_t> octaves;
  for (const auto& [bucket, count] : buckets_) {
    const int octave = bucket == 0 ? 0 : 1 + (bucket - 1) / kBucketsPerOctave;
    octaves[octave] = SaturatingAdd(octaves[octave], count);
  }
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& [octave, count] : octaves) {
    if (count == 0) continue;
    out.emplace_back(UpperBound(octave * kBucketsPerOctave), count);
  }
  return out;
}

void DurationStats::EncodeTo(std::string& out) const {
  PutSigned(out, count_);
  PutSigned(out, sum_ns_);
  PutSigned(out, max_ns_);
  PutVarint(out, buckets_.size());
  int previous = 0;
  for (const auto& [bucket, count] : buckets_) {
    PutVarint(out, static_cast<uint64_t>(bucket - previous));
    previous = bucket;
    PutSigned(out, count);
  }
}

absl::Status DurationStats::DecodeFrom(std::string_view& in) {
  *this = DurationStats();
  uint64_t buckets = 0;
  if (!GetSigned(in, count_) || !GetSigned(in, sum_ns_) || !GetSigned(in, max_ns_) ||
      !GetVarint(in, buckets) || buckets > in.size()) {
    return absl::DataLossError("stored duration histogram is corrupt");
  }
  int bucket = 0;
  for (uint64_t i = 0; i < buckets; ++i) {
    uint64_t delta = 0;
    int64_t count = 0;
    if (!GetVarint(in, delta) || !GetSigned(in, count) || delta > 4096) {
      return absl::DataLossError("stored duration histogram is corrupt");
    }
    bucket += static_cast<int>(delta);
    // No duration lands above the bucket of INT64_MAX; also keeps `bucket`
    // far from int overflow whatever the input.
    if (bucket > BucketOf(INT64_MAX)) {
      return absl::DataLossError("stored duration histogram is corrupt");
    }
    buckets_[bucket] = count;
  }
  return absl::OkStatus();
}

}  // namespace rayagg::history
