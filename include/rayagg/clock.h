// The one way our code reads time and waits for it, so that tests can run
// "30 s later" at once (tests/support/manual_clock.h) instead of waiting.
// Modelled on Envoy's TimeSource: steady time for deadlines and intervals,
// wall time only for what is printed or signed, and timers made by the clock
// so that a manual clock fires them when it is advanced.
//
// Production code gets a Clock& by constructor (the daemon owns one
// RealClock, src/common/real_clock.h); nothing below src/ reads
// std::chrono clocks or arms an asio::steady_timer for scheduling.
#pragma once

#include <chrono>
#include <memory>

#include "rayagg/awaitable.h"

namespace rayagg {

using SteadyTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

// A one-shot deadline to wait for, bound to one executor. Like an
// asio::steady_timer it is not thread-safe: use it from its executor (a
// strand) only, one Wait at a time.
class Timer {
 public:
  virtual ~Timer() = default;

  // Sets the deadline of the next Wait(). SteadyTime::max() waits until
  // Cancel(). Call while no Wait() is pending.
  virtual void ExpiresAt(SteadyTime deadline) = 0;
  // Completes once the deadline has passed (at once if it already has) or on
  // Cancel(), whichever comes first.
  virtual asio::awaitable<void> Wait() = 0;
  // Ends the pending Wait() now; no effect when none is pending (a later
  // Wait() is not cut short).
  virtual void Cancel() = 0;
};

class Clock {
 public:
  virtual ~Clock() = default;

  // Monotonic time: deadlines, intervals, elapsed times.
  virtual SteadyTime Now() const = 0;
  // Calendar time: only for what is printed, exported or signed (last
  // success timestamps, HTTP dates), never to measure an interval.
  virtual WallTime WallNow() const = 0;
  // A timer whose Wait() runs on `executor`.
  virtual std::unique_ptr<Timer> MakeTimer(asio::any_io_executor executor) = 0;
};

}  // namespace rayagg
