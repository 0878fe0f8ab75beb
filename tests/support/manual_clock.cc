#include "support/manual_clock.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "rayagg/asio.h"

namespace rayagg::test {

class ManualTimer final : public Timer {
 public:
  ManualTimer(ManualClock& clock, asio::any_io_executor executor)
      : clock_(clock), executor_(executor), parked_(std::move(executor), SteadyTime::max()) {}
  ~ManualTimer() override { clock_.ForgetTimer(this); }

  void ExpiresAt(SteadyTime deadline) override { deadline_ = deadline; }

  asio::awaitable<void> Wait() override {
    // The clock outlives the timer; the timer may be gone when the wait ends.
    ManualClock& clock = clock_;
    const std::optional<uint64_t> id = clock.BeginWait(this, deadline_, executor_);
    if (!id) co_return;  // the deadline has already passed
    // The parked wait ends only by a cancel: Cancel(), the clock's Fire() or
    // the timer's destruction.
    parked_.expires_at(SteadyTime::max());
    boost::system::error_code ignored;
    co_await parked_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    clock.EndWait(*id);
  }

  void Cancel() override { parked_.cancel(); }

 private:
  friend class ManualClock;
  ManualClock& clock_;
  asio::any_io_executor executor_;
  asio::steady_timer parked_;
  SteadyTime deadline_ = SteadyTime::max();
};

ManualClock::ManualClock(SteadyTime start, WallTime wall_start)
    : now_(start), wall_now_(wall_start) {}

ManualClock::~ManualClock() = default;

SteadyTime ManualClock::Now() const {
  MutexLock lock(mutex_);
  return now_;
}

WallTime ManualClock::WallNow() const {
  MutexLock lock(mutex_);
  return wall_now_;
}

std::unique_ptr<Timer> ManualClock::MakeTimer(asio::any_io_executor executor) {
  return std::make_unique<ManualTimer>(*this, std::move(executor));
}

void ManualClock::Advance(std::chrono::steady_clock::duration by) {
  std::vector<std::pair<uint64_t, asio::any_io_executor>> to_fire;
  {
    MutexLock lock(mutex_);
    if (by <= std::chrono::steady_clock::duration::zero()) return;
    now_ += by;
    wall_now_ += std::chrono::duration_cast<WallTime::duration>(by);
    for (auto& [id, wait] : waits_) {
      if (!wait.fired && wait.deadline <= now_) {
        wait.fired = true;
        to_fire.emplace_back(id, wait.executor);
      }
    }
  }
  armed_changed_.SignalAll();
  for (auto& [id, executor] : to_fire) {
    asio::post(executor, [this, fired = id] { Fire(fired); });
  }
}

void ManualClock::AdvanceTo(SteadyTime when) { Advance(when - Now()); }

size_t ManualClock::ArmedTimers() const {
  MutexLock lock(mutex_);
  return ArmedLocked();
}

std::optional<SteadyTime> ManualClock::NextDeadline() const {
  MutexLock lock(mutex_);
  return NextDeadlineLocked();
}

bool ManualClock::WaitForArmedTimers(size_t count, std::chrono::milliseconds timeout) {
  MutexLock lock(mutex_);
  return armed_changed_.WaitFor(mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return ArmedLocked() >= count;
  });
}

std::optional<SteadyTime> ManualClock::WaitForNextDeadline(std::chrono::milliseconds timeout) {
  MutexLock lock(mutex_);
  armed_changed_.WaitFor(mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return NextDeadlineLocked().has_value();
  });
  return NextDeadlineLocked();
}

std::optional<uint64_t> ManualClock::BeginWait(ManualTimer* timer, SteadyTime deadline,
                                               asio::any_io_executor executor) {
  uint64_t id = 0;
  {
    MutexLock lock(mutex_);
    if (deadline <= now_) return std::nullopt;
    id = next_wait_id_++;
    waits_.emplace(id, PendingWait{timer, deadline, std::move(executor), /*fired=*/false});
  }
  armed_changed_.SignalAll();
  return id;
}

void ManualClock::EndWait(uint64_t id) {
  {
    MutexLock lock(mutex_);
    waits_.erase(id);
  }
  armed_changed_.SignalAll();
}

void ManualClock::Fire(uint64_t id) {
  // Runs on the timer's executor, as the timer's own calls do. The wait may
  // have ended already (Cancel()) or its timer be gone: then nothing to do.
  MutexLock lock(mutex_);
  const auto found = waits_.find(id);
  if (found != waits_.end()) found->second.timer->parked_.cancel();
}

void ManualClock::ForgetTimer(const ManualTimer* timer) {
  MutexLock lock(mutex_);
  std::erase_if(waits_, [timer](const auto& entry) { return entry.second.timer == timer; });
}

std::optional<SteadyTime> ManualClock::NextDeadlineLocked() const {
  std::optional<SteadyTime> next;
  for (const auto& [id, wait] : waits_) {
    if (wait.fired || wait.deadline == SteadyTime::max()) continue;
    if (!next || wait.deadline < *next) next = wait.deadline;
  }
  return next;
}

size_t ManualClock::ArmedLocked() const {
  return static_cast<size_t>(std::count_if(waits_.begin(), waits_.end(),
                                           [](const auto& entry) { return !entry.second.fired; }));
}

}  // namespace rayagg::test
