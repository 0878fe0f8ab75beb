#include "common/real_clock.h"

#include "rayagg/asio.h"

namespace rayagg {
namespace {

class RealTimer final : public Timer {
 public:
  explicit RealTimer(asio::any_io_executor executor) : timer_(std::move(executor)) {}

  void ExpiresAt(SteadyTime deadline) override { timer_.expires_at(deadline); }

  asio::awaitable<void> Wait() override {
    // Cancellation is an expected way to end the wait, not an error.
    boost::system::error_code ignored;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }

  void Cancel() override { timer_.cancel(); }

 private:
  asio::steady_timer timer_;
};

}  // namespace

SteadyTime RealClock::Now() const { return std::chrono::steady_clock::now(); }

WallTime RealClock::WallNow() const { return std::chrono::system_clock::now(); }

std::unique_ptr<Timer> RealClock::MakeTimer(asio::any_io_executor executor) {
  return std::make_unique<RealTimer>(std::move(executor));
}

}  // namespace rayagg
