// The project's one lock type, and the only one our code uses (no bare
// std::mutex, absl::Mutex or std::condition_variable elsewhere).
//
// Why one type:
// - clang's -Wthread-safety checks ABSL_GUARDED_BY / ABSL_EXCLUSIVE_LOCKS_REQUIRED
//   only through annotated lock types; libstdc++'s std::mutex and std::lock_guard
//   carry no annotations, so members they guard went unchecked.
// - ThreadSanitizer must see every lock. It intercepts pthread mutexes and
//   condition variables, but Debian's abseil is not built with TSan, so an
//   absl::Mutex's own atomics are invisible to it and a correctly locked
//   counter is reported as a race. std::mutex is a pthread mutex.
//
// std::mutex underneath in every build, not only under TSan: the TSan leg then
// checks the very locking code that ships, and std::mutex is as fast as
// absl::Mutex for our critical sections (docs/PERFORMANCE.md, "Locks").
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <utility>

#include "absl/base/thread_annotations.h"

namespace rayagg {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mutex_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mutex_.unlock(); }
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mutex_.try_lock(); }

 private:
  friend class CondVar;
  std::mutex mutex_;
};

// Holds a Mutex for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) ABSL_EXCLUSIVE_LOCK_FUNCTION(mutex) : mutex_(mutex) {
    mutex_.Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mutex_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mutex_;
};

// A condition variable waited on with a held Mutex. The predicate forms run
// `done` with the mutex held; annotate it so the analysis checks its reads:
//   MutexLock lock(mutex_);
//   changed_.Wait(mutex_, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return done_; });
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Releases `mutex` while waiting; holds it again on return.
  void Wait(Mutex& mutex) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
    std::unique_lock<std::mutex> lock(mutex.mutex_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }

  // Like Wait, up to `deadline`. Returns false once the deadline has passed.
  template <typename Clock, typename Duration>
  bool WaitUntil(Mutex& mutex, std::chrono::time_point<Clock, Duration> deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
    std::unique_lock<std::mutex> lock(mutex.mutex_, std::adopt_lock);
    const bool in_time = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return in_time;
  }

  // Waits until `done()` holds.
  template <typename Predicate>
  void Wait(Mutex& mutex, Predicate done) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex)
      ABSL_NO_THREAD_SAFETY_ANALYSIS {  // `done` requires `mutex`, held here
    while (!done()) Wait(mutex);
  }

  // Waits until `done()` holds or `deadline` passes; returns `done()`.
  template <typename Clock, typename Duration, typename Predicate>
  bool WaitUntil(Mutex& mutex, std::chrono::time_point<Clock, Duration> deadline, Predicate done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    while (!done()) {
      if (!WaitUntil(mutex, deadline)) return done();
    }
    return true;
  }

  template <typename Rep, typename Period, typename Predicate>
  bool WaitFor(Mutex& mutex, std::chrono::duration<Rep, Period> timeout, Predicate done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return WaitUntil(mutex, std::chrono::steady_clock::now() + timeout, std::move(done));
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace rayagg
