// The production clock's timers: a past deadline returns at once, Cancel()
// ends a wait, and steady time does not go backwards. (How long a real wait
// takes is never asserted.)
#include "common/real_clock.h"

#include <gtest/gtest.h>

#include "support/run_coroutine.h"

namespace rayagg {
namespace {

using namespace std::chrono_literals;

TEST(RealClockTest, SteadyTimeDoesNotGoBackwards) {
  RealClock clock;
  const SteadyTime first = clock.Now();
  EXPECT_GE(clock.Now(), first);
  EXPECT_GT(clock.WallNow().time_since_epoch(), std::chrono::hours(24 * 365 * 50));
}

TEST(RealClockTest, WaitForAPastDeadlineReturns) {
  RealClock clock;
  asio::io_context io;
  auto timer = clock.MakeTimer(io.get_executor());
  timer->ExpiresAt(clock.Now() - 1s);
  test::RunCoroutine(io, timer->Wait());
}

TEST(RealClockTest, CancelEndsAWaitThatWouldNeverEnd) {
  RealClock clock;
  asio::io_context io;
  auto timer = clock.MakeTimer(io.get_executor());
  timer->ExpiresAt(SteadyTime::max());
  bool done = false;
  asio::co_spawn(io, timer->Wait(), [&done](std::exception_ptr) { done = true; });
  io.poll();
  EXPECT_FALSE(done);
  timer->Cancel();
  io.restart();
  io.run();
  EXPECT_TRUE(done);
}

}  // namespace
}  // namespace rayagg
