// Per-sink drop counts by (reason, event type). Shared by the event log (which
// evicts on a sink's behalf) and the sink itself, so every drop a sink
// suffers is counted in one place. Thread-safe; increments are rare (only on
// drops), so one mutex is enough. Bounded: event types outside
// [0, kMaxTrackedEventType) — numbers a sender invented or a newer Ray added —
// are counted together under kUntrackedEventType.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "rayagg/drop_reason.h"
#include "rayagg/event_type_filter.h"
#include "rayagg/mutex.h"

namespace rayagg {

class DropCounters {
 public:
  using Key = std::pair<DropReason, int32_t>;  // reason, RayEvent.event_type

  // The same bound as the numbers a sink filter can list.
  static constexpr int32_t kMaxTrackedEventType = EventTypeFilter::kMaxListedType;
  static constexpr int32_t kUntrackedEventType = -1;

  void Add(DropReason reason, int32_t event_type, uint64_t count = 1) {
    if (event_type < 0 || event_type >= kMaxTrackedEventType) event_type = kUntrackedEventType;
    MutexLock lock(mutex_);
    counts_[{reason, event_type}] += count;
  }

  std::map<Key, uint64_t> Snapshot() const {
    MutexLock lock(mutex_);
    return counts_;
  }

  uint64_t Total(DropReason reason) const {
    MutexLock lock(mutex_);
    uint64_t total = 0;
    for (const auto& [key, count] : counts_) {
      if (key.first == reason) total += count;
    }
    return total;
  }

  uint64_t Total() const {
    MutexLock lock(mutex_);
    uint64_t total = 0;
    for (const auto& [key, count] : counts_) total += count;
    return total;
  }

 private:
  mutable Mutex mutex_;
  std::map<Key, uint64_t> counts_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace rayagg
