// A Clock that only moves when a test advances it, with timers that fire
// when it does: a test runs "30 s later" at once, and never races real time.
//
// A timer's Wait() parks on an asio::steady_timer set to forever; Advance()
// marks every pending wait whose deadline has passed as fired and posts, to
// that timer's executor, a cancel of its parked wait. Whether a timer has
// fired is decided inside Advance() (under the clock's lock), so right after
// Advance() returns ArmedTimers() and NextDeadline() already say which waits
// are over, even if their coroutines resume a moment later.
//
// Thread-safe. Timers follow the Timer contract (one strand each). The clock
// must outlive its timers and the io_context their executors belong to.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "rayagg/clock.h"
#include "rayagg/mutex.h"

namespace rayagg::test {

class ManualTimer;

class ManualClock final : public Clock {
 public:
  // Arbitrary, far from zero so that `Now() - interval` never underflows.
  static constexpr SteadyTime kDefaultStart{std::chrono::hours(1000)};
  // 2026-01-01T00:00:00Z.
  static constexpr WallTime kDefaultWallStart{std::chrono::seconds(1767225600)};
  // How long the Wait* helpers wait in real time before giving up: generous,
  // since sanitizer builds on a busy machine are slow.
  static constexpr std::chrono::milliseconds kRealTimeout{60'000};

  explicit ManualClock(SteadyTime start = kDefaultStart, WallTime wall_start = kDefaultWallStart);
  ~ManualClock() override;
  ManualClock(const ManualClock&) = delete;
  ManualClock& operator=(const ManualClock&) = delete;

  SteadyTime Now() const override;
  WallTime WallNow() const override;
  std::unique_ptr<Timer> MakeTimer(asio::any_io_executor executor) override;

  // Moves steady and wall time forward by `by` and fires every pending wait
  // whose deadline is now reached.
  void Advance(std::chrono::steady_clock::duration by);
  // Advance() to `when`; nothing happens if `when` is not later than Now().
  void AdvanceTo(SteadyTime when);

  // Pending waits that have not fired (those on SteadyTime::max() included).
  size_t ArmedTimers() const;
  // The earliest deadline of a pending, unfired wait other than
  // SteadyTime::max(); nullopt when there is none.
  std::optional<SteadyTime> NextDeadline() const;

  // Waits in real time (up to `timeout`) until at least `count` waits are
  // armed; returns whether they are.
  bool WaitForArmedTimers(size_t count, std::chrono::milliseconds timeout = kRealTimeout);
  // Waits in real time (up to `timeout`) until a wait with a finite deadline
  // is armed and returns the earliest such deadline (nullopt on timeout):
  // how a test knows the code under test is now waiting for the clock.
  std::optional<SteadyTime> WaitForNextDeadline(std::chrono::milliseconds timeout = kRealTimeout);

 private:
  friend class ManualTimer;
  struct PendingWait {
    ManualTimer* timer;
    SteadyTime deadline;
    asio::any_io_executor executor;
    bool fired;
  };

  // Registers a wait, or returns nullopt when `deadline` has already passed.
  std::optional<uint64_t> BeginWait(ManualTimer* timer, SteadyTime deadline,
                                    asio::any_io_executor executor);
  void EndWait(uint64_t id);
  // On the timer's executor: cuts the wait short if it is still pending.
  void Fire(uint64_t id);
  void ForgetTimer(const ManualTimer* timer);
  std::optional<SteadyTime> NextDeadlineLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  size_t ArmedLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable Mutex mutex_;
  CondVar armed_changed_;
  SteadyTime now_ ABSL_GUARDED_BY(mutex_);
  WallTime wall_now_ ABSL_GUARDED_BY(mutex_);
  uint64_t next_wait_id_ ABSL_GUARDED_BY(mutex_) = 0;
  std::map<uint64_t, PendingWait> waits_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace rayagg::test
