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

}  // namespace rayagg::test
