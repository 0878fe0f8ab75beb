// The production Clock: std::chrono's steady and system clocks, timers on
// asio::steady_timer. The daemon owns one and passes it down by reference.
#pragma once

#include "rayagg/clock.h"

namespace rayagg {

class RealClock final : public Clock {
 public:
  SteadyTime Now() const override;
  WallTime WallNow() const override;
  std::unique_ptr<Timer> MakeTimer(asio::any_io_executor executor) override;
};

}  // namespace rayagg
