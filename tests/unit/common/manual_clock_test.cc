// The manual clock's timers fire when the clock is advanced past their
// deadline and not before, end on Cancel(), and return at once when the
// deadline has already passed. Most cases run the io_context on the test
// thread (poll), so what has happened after each step is exact.
#include "support/manual_clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "support/io_thread.h"

namespace rayagg::test {
namespace {

using namespace std::chrono_literals;

class ManualClockTest : public ::testing::Test {
 protected:
  // Starts `timer`'s Wait() with `deadline`; `done` turns true when it ends.
  void StartWait(Timer& timer, SteadyTime deadline, bool& done) {
    timer.ExpiresAt(deadline);
    asio::co_spawn(io_, timer.Wait(), [&done](std::exception_ptr error) {
      if (error) std::rethrow_exception(error);
      done = true;
    });
  }
  // Runs every handler that is ready, including those they post.
  void Poll() {
    io_.restart();
    io_.poll();
  }

  ManualClock clock_;
  asio::io_context io_;
};

TEST_F(ManualClockTest, TimeMovesOnlyWhenAdvanced) {
  const SteadyTime start = clock_.Now();
  const WallTime wall_start = clock_.WallNow();
  EXPECT_EQ(clock_.Now(), start);
  clock_.Advance(90s);
  EXPECT_EQ(clock_.Now(), start + 90s);
  EXPECT_EQ(clock_.WallNow(), wall_start + 90s);
  clock_.AdvanceTo(start + 60s);  // the past: no change
  EXPECT_EQ(clock_.Now(), start + 90s);
  clock_.AdvanceTo(start + 100s);
  EXPECT_EQ(clock_.Now(), start + 100s);
}

TEST_F(ManualClockTest, TimerFiresWhenTheClockPassesItsDeadlineNotBefore) {
  auto timer = clock_.MakeTimer(io_.get_executor());
  bool done = false;
  const SteadyTime deadline = clock_.Now() + 30s;
  StartWait(*timer, deadline, done);
  Poll();
  EXPECT_EQ(clock_.ArmedTimers(), 1u);
  EXPECT_EQ(clock_.NextDeadline(), deadline);

  clock_.Advance(30s - 1ns);
  Poll();
  EXPECT_FALSE(done);
  EXPECT_EQ(clock_.ArmedTimers(), 1u);

  clock_.Advance(1ns);
  EXPECT_EQ(clock_.ArmedTimers(), 0u);  // decided by Advance itself
  EXPECT_EQ(clock_.NextDeadline(), std::nullopt);
  Poll();
  EXPECT_TRUE(done);
}

TEST_F(ManualClockTest, CancelEndsTheWaitWithoutTimePassing) {
  auto timer = clock_.MakeTimer(io_.get_executor());
  bool done = false;
  StartWait(*timer, SteadyTime::max(), done);
  Poll();
  EXPECT_EQ(clock_.ArmedTimers(), 1u);
  EXPECT_EQ(clock_.NextDeadline(), std::nullopt);  // max() is not a deadline
  clock_.Advance(std::chrono::hours(24 * 365));
  Poll();
  EXPECT_FALSE(done);

  timer->Cancel();
  Poll();
  EXPECT_TRUE(done);
  EXPECT_EQ(clock_.ArmedTimers(), 0u);
}

TEST_F(ManualClockTest, CancelWithoutAPendingWaitDoesNotCutTheNextOneShort) {
  auto timer = clock_.MakeTimer(io_.get_executor());
  timer->Cancel();
  bool done = false;
  StartWait(*timer, clock_.Now() + 5s, done);
  Poll();
  EXPECT_FALSE(done);
  clock_.Advance(5s);
  Poll();
  EXPECT_TRUE(done);
}

TEST_F(ManualClockTest, WaitBegunAfterTheDeadlineReturnsAtOnce) {
  auto timer = clock_.MakeTimer(io_.get_executor());
  const SteadyTime deadline = clock_.Now() + 5s;
  clock_.Advance(10s);
  bool done = false;
  StartWait(*timer, deadline, done);
  Poll();
  EXPECT_TRUE(done);
  EXPECT_EQ(clock_.ArmedTimers(), 0u);

  bool at_now = false;  // a deadline of exactly now has passed too
  StartWait(*timer, clock_.Now(), at_now);
  Poll();
  EXPECT_TRUE(at_now);
}

TEST_F(ManualClockTest, SeveralTimersFireAsTheClockPassesEach) {
  auto first = clock_.MakeTimer(io_.get_executor());
  auto second = clock_.MakeTimer(io_.get_executor());
  auto third = clock_.MakeTimer(io_.get_executor());
  const SteadyTime start = clock_.Now();
  bool first_done = false, second_done = false, third_done = false;
  StartWait(*third, start + 30s, third_done);
  StartWait(*first, start + 10s, first_done);
  StartWait(*second, start + 20s, second_done);
  Poll();
  EXPECT_EQ(clock_.ArmedTimers(), 3u);
  EXPECT_EQ(clock_.NextDeadline(), start + 10s);

  clock_.Advance(15s);
  Poll();
  EXPECT_TRUE(first_done);
  EXPECT_FALSE(second_done);
  EXPECT_FALSE(third_done);
  EXPECT_EQ(clock_.NextDeadline(), start + 20s);

  clock_.Advance(60s);  // one step past both
  Poll();
  EXPECT_TRUE(second_done);
  EXPECT_TRUE(third_done);
  EXPECT_EQ(clock_.ArmedTimers(), 0u);
}

TEST_F(ManualClockTest, ATimerCanWaitAgainAfterFiring) {
  auto timer = clock_.MakeTimer(io_.get_executor());
  bool first = false;
  StartWait(*timer, clock_.Now() + 1s, first);
  Poll();
  clock_.Advance(1s);
  Poll();
  ASSERT_TRUE(first);

  bool second = false;
  StartWait(*timer, clock_.Now() + 1s, second);
  Poll();
  EXPECT_FALSE(second);
  EXPECT_EQ(clock_.ArmedTimers(), 1u);
  clock_.Advance(1s);
  Poll();
  EXPECT_TRUE(second);
}

TEST_F(ManualClockTest, DestroyingATimerWhoseFireIsQueuedIsHarmless) {
  auto timer = clock_.MakeTimer(io_.get_executor());
  bool done = false;
  StartWait(*timer, clock_.Now() + 1s, done);
  Poll();
  timer->Cancel();
  Poll();
  ASSERT_TRUE(done);
  // A second wait, fired by the clock, then the timer goes away before the
  // queued fire runs.
  bool again = false;
  StartWait(*timer, clock_.Now() + 1s, again);
  Poll();
  clock_.Advance(1s);
  timer->Cancel();
  Poll();
  EXPECT_TRUE(again);
  bool third = false;
  StartWait(*timer, clock_.Now() + 1s, third);
  Poll();
  clock_.Advance(1s);  // queues a fire for the pending wait
  timer.reset();       // ends that wait with the timer (operation aborted)
  Poll();
  EXPECT_TRUE(third);
  EXPECT_EQ(clock_.ArmedTimers(), 0u);
}

// The test thread advances while the timer's executor runs on another
// thread: how sink tests use it. Also the TSan leg's check of its locking.
TEST_F(ManualClockTest, TestThreadWaitsUntilTheTimerIsArmedThenAdvances) {
  auto strand = asio::make_strand(io_);
  auto timer = clock_.MakeTimer(strand);
  std::promise<void> finished;
  const SteadyTime deadline = clock_.Now() + 30s;
  asio::post(strand, [&] {
    timer->ExpiresAt(deadline);
    asio::co_spawn(strand, timer->Wait(),
                   [&finished](std::exception_ptr) { finished.set_value(); });
  });
  IoThread io_thread(io_);
  ASSERT_EQ(clock_.WaitForNextDeadline(), deadline);
  clock_.Advance(30s);
  EXPECT_EQ(finished.get_future().wait_for(ManualClock::kRealTimeout), std::future_status::ready);
}

}  // namespace
}  // namespace rayagg::test
