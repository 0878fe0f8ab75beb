#include "history/index/duration_stats.h"

#include <algorithm>
#include <bit>
#include <climits>
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

namespace {

constexpr int64_t kMaxUs = INT64_MAX / 1000;

// 2^(j/16), j = 1..16: the steps between two powers of two. Literals, so
// the bounds (and the bucket numbers stored in every index) do not depend
// on a libm's exp2.
constexpr double kSteps[DurationStats::kBucketsPerOctave] = {
    1.0442737824274138, 1.0905077326652577, 1.1387886347566916, 1.189207115002721,
    1.241857812073484,  1.2968395546510096, 1.3542555469368927, 1.4142135623730951,
    1.4768261459394993, 1.5422108254079407, 1.6104903319492543, 1.681792830507429,
    1.7562521603732995, 1.8340080864093424, 1.9152065613971474, 2.0};

// ends[b]: the first whole microsecond above bucket b, strictly increasing;
// bucket 0 is [0, 1) us, bucket b > 0 is [ends[b - 1], ends[b]) us. The last
// end is the first past the longest duration.
std::vector<int64_t> MakeEnds() {
  std::vector<int64_t> ends = {1};
  for (int octave = 0; ends.back() <= kMaxUs; ++octave) {
    for (double step : kSteps) {
      // Exact: a power-of-two scaling of a double, then one rounding.
      const int64_t end = std::llround(std::ldexp(step, octave));
      if (end > ends.back()) ends.push_back(end);
      if (ends.back() > kMaxUs) break;
    }
  }
  return ends;
}

const std::vector<int64_t>& Ends() {
  static const std::vector<int64_t> ends = MakeEnds();
  return ends;
}

}  // namespace

int DurationStats::BucketOf(int64_t duration_ns) {
  const int64_t us = duration_ns < 0 ? 0 : duration_ns / 1000;
  const std::vector<int64_t>& ends = Ends();
  return static_cast<int>(std::upper_bound(ends.begin(), ends.end(), us) - ends.begin());
}

int DurationStats::LastBucket() { return static_cast<int>(Ends().size()) - 1; }

HistogramBucket DurationStats::BucketBoundsUs(int bucket) {
  const std::vector<int64_t>& ends = Ends();
  bucket = std::clamp(bucket, 0, LastBucket());
  HistogramBucket out;
  out.lower_us = bucket == 0 ? -1 : ends[static_cast<size_t>(bucket) - 1] - 1;
  out.upper_us = std::min(ends[static_cast<size_t>(bucket)] - 1, kMaxUs);
  return out;
}

NsRange DurationStats::NsRangeOfUs(int64_t lower_us, int64_t upper_us) {
  // From the first ns of microsecond lower + 1 to the last ns of microsecond
  // upper; {0, -1} (nothing) when no duration is in between.
  if (lower_us >= kMaxUs) return {0, -1};
  const int64_t first_us = lower_us < 0 ? 0 : lower_us + 1;
  if (upper_us < first_us) return {0, -1};
  const int64_t last_us = std::min(upper_us, kMaxUs);
  return {first_us * 1000, last_us == kMaxUs ? INT64_MAX : (last_us + 1) * 1000 - 1};
}

int64_t DurationStats::UpperBound(int bucket) {
  const std::vector<int64_t>& ends = Ends();
  const int64_t end = ends[static_cast<size_t>(std::clamp(bucket, 0, LastBucket()))];
  return end > kMaxUs ? INT64_MAX : end * 1000;
}

void DurationStats::Add(int64_t duration_ns, int64_t times) {
  AddInBucket(duration_ns, BucketOf(duration_ns), times);
}

void DurationStats::AddInBucket(int64_t duration_ns, int index, int64_t times) {
  if (duration_ns < 0) duration_ns = 0;
  count_ = SaturatingAdd(count_, times);
  sum_ns_ = SaturatingAdd(sum_ns_, SaturatingMultiply(duration_ns, times));
  if (times > 0) max_ns_ = std::max(max_ns_, duration_ns);
  int64_t& bucket = buckets_[index];
  bucket = SaturatingAdd(bucket, times);
  if (bucket == 0) buckets_.erase(index);
  if (count_ == 0) max_ns_ = 0;  // as Merge: nothing left, no max
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
  // Every power of two of microseconds is a bucket bound, so bucket b lies
  // in the octave of its first microsecond: [2^(o-1), 2^o) us, o >= 1
  // (octave 0: under 1 us).
  std::map<int, int64_t> octaves;
  for (const auto& [bucket, count] : buckets_) {
    const int octave =
        bucket == 0
            ? 0
            : std::bit_width(static_cast<uint64_t>(Ends()[static_cast<size_t>(bucket) - 1]));
    octaves[octave] = SaturatingAdd(octaves[octave], count);
  }
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& [octave, count] : octaves) {
    if (count == 0) continue;
    out.emplace_back(octave >= 54 ? INT64_MAX : (int64_t{1} << octave) * 1000, count);
  }
  return out;
}

std::vector<HistogramBucket> DurationStats::Buckets() const {
  std::vector<HistogramBucket> out;
  for (const auto& [bucket, count] : buckets_) {
    if (count == 0) continue;
    HistogramBucket b = BucketBoundsUs(bucket);
    b.count = count;
    out.push_back(b);
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
    if (bucket > LastBucket()) {
      return absl::DataLossError("stored duration histogram is corrupt");
    }
    buckets_[bucket] = count;
  }
  return absl::OkStatus();
}

}  // namespace rayagg::history
