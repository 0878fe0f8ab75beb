// A one-shot event: one thread announces it once, others wait for it with a
// timeout (e.g. "the sink's loop has finished"). absl::Notification would do,
// but locks go through rayagg::Mutex so ThreadSanitizer sees them (mutex.h).
#pragma once

#include <chrono>

#include "absl/base/thread_annotations.h"
#include "rayagg/mutex.h"

namespace rayagg {

class Notification {
 public:
  // Announced under the lock: a waiter may destroy the owner (and this) as
  // soon as it sees the event.
  void Notify() {
    MutexLock lock(mutex_);
    notified_ = true;
    cv_.SignalAll();
  }

  // Waits until Notify() or `timeout` of real time; returns whether notified.
  bool WaitFor(std::chrono::milliseconds timeout) {
    MutexLock lock(mutex_);
    return cv_.WaitFor(mutex_, timeout,
                       [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return notified_; });
  }

 private:
  Mutex mutex_;
  CondVar cv_;
  bool notified_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace rayagg
