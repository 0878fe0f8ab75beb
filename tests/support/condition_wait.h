// Waiting for a condition in real time: the one place (with the manual
// clock) where tests read a real clock or sleep. A test waits for what it
// expects to happen, never for an amount of time, and asserts on counters
// and outputs, never on how long something took (docs/TESTING.md, "Time").
#pragma once

#include <chrono>
#include <functional>

namespace rayagg::test {

// How long a test waits for something that should happen at once: generous,
// because sanitizer builds on a loaded 2-core machine are many times slower.
// Only a failing test ever waits this long.
inline constexpr std::chrono::milliseconds kConditionTimeout{60'000};

// Polls `predicate` until it holds or `timeout` of real time passes; returns
// whether it holds. Only for state without a condition variable to wait on
// (counters read from another thread); prefer the CondVar waits of the
// thing observed (TestHttpServer::WaitUntil, ManualClock::WaitFor*).
bool WaitFor(const std::function<bool()>& predicate,
             std::chrono::milliseconds timeout = kConditionTimeout);

// A real-time limit for a wait the test does itself with a blocking call
// that takes a timeout (poll(2) on a pidfd or inotify descriptor).
class WaitDeadline {
 public:
  explicit WaitDeadline(std::chrono::milliseconds timeout = kConditionTimeout);
  // Milliseconds left, for poll(2); 0 once passed.
  int RemainingMs() const;
  bool Passed() const { return RemainingMs() == 0; }
  // The deadline itself, for code under test that takes a steady deadline
  // (a network operation's).
  std::chrono::steady_clock::time_point at() const { return deadline_; }

 private:
  std::chrono::steady_clock::time_point deadline_;
};

// A gRPC client deadline `timeout` from now (grpc::ClientContext::set_deadline
// takes system time).
std::chrono::system_clock::time_point RpcDeadlineIn(std::chrono::milliseconds timeout);

}  // namespace rayagg::test
