// A fixed-bucket latency histogram that many threads may Observe() and any
// thread may Read() without locks, for /metrics. The buckets are Ray's
// publish-latency buckets (behaviour reference §12), so our histogram and
// Ray's ray_aggregator_agent_publish_latency_seconds are the same data.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace rayagg {

class LatencyHistogram {
 public:
  static constexpr std::array<double, 11> kBucketSeconds = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                            0.25,  0.5,   1.0,  2.0,   5.0};
  // One count per bucket (not cumulative) and the last for "above 5 s".
  static constexpr size_t kSlots = kBucketSeconds.size() + 1;

  struct Snapshot {
    std::array<uint64_t, kSlots> counts{};
    uint64_t count = 0;
    double sum_seconds = 0;
  };

  void Observe(std::chrono::nanoseconds elapsed) {
    const double seconds = std::chrono::duration<double>(elapsed).count();
    size_t slot = 0;
    while (slot < kBucketSeconds.size() && seconds > kBucketSeconds[slot]) ++slot;
    counts_[slot].fetch_add(1, std::memory_order_relaxed);
    sum_nanos_.fetch_add(static_cast<uint64_t>(std::max<int64_t>(0, elapsed.count())),
                         std::memory_order_relaxed);
  }

  // Counts read one by one: a scrape racing an Observe may see the count a
  // moment before the sum, which Prometheus tolerates.
  Snapshot Read() const {
    Snapshot snapshot;
    for (size_t i = 0; i < kSlots; ++i) {
      snapshot.counts[i] = counts_[i].load(std::memory_order_relaxed);
      snapshot.count += snapshot.counts[i];
    }
    snapshot.sum_seconds = static_cast<double>(sum_nanos_.load(std::memory_order_relaxed)) / 1e9;
    return snapshot;
  }

 private:
  std::array<std::atomic<uint64_t>, kSlots> counts_{};
  std::atomic<uint64_t> sum_nanos_{0};
};

}  // namespace rayagg
