#include "http/resolve.h"

#include <memory>

namespace rayagg {
namespace {

using asio::ip::tcp;

// Shared by the coroutine and the resolver's completion handler, which may
// outlive the coroutine when the deadline wins.
struct ResolveRace {
  explicit ResolveRace(const asio::any_io_executor& executor)
      : resolver(executor), deadline_timer(executor) {}

  tcp::resolver resolver;
  // Expires at the deadline; the resolve handler cancels it to wake the
  // coroutine early (Asio 1.18 has no awaitable operators to race with).
  asio::steady_timer deadline_timer;
  bool resolved = false;
  ResolveResult result;
};

}  // namespace

asio::awaitable<ResolveResult> ResolveWithDeadline(asio::any_io_executor executor, std::string host,
                                                   uint16_t port,
                                                   std::chrono::steady_clock::time_point deadline) {
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (!ec) co_return ResolveResult{{}, {tcp::endpoint(address, port)}};

  if (std::chrono::steady_clock::now() >= deadline)
    co_return ResolveResult{asio::error::timed_out, {}};

  auto race = std::make_shared<ResolveRace>(executor);
  race->deadline_timer.expires_at(deadline);
  race->resolver.async_resolve(
      host, std::to_string(port),
      [race](const boost::system::error_code& error, const tcp::resolver::results_type& results) {
        if (race->resolved) return;  // the deadline already won
        race->resolved = true;
        race->result.error = error;
        for (const auto& entry : results) race->result.endpoints.push_back(entry.endpoint());
        race->deadline_timer.cancel();
      });

  boost::system::error_code timer_error;
  co_await race->deadline_timer.async_wait(asio::redirect_error(asio::use_awaitable, timer_error));
  if (!race->resolved) {
    race->resolved = true;
    race->resolver.cancel();  // skips getaddrinfo if it has not started yet
    co_return ResolveResult{asio::error::timed_out, {}};
  }
  if (!race->result.error && race->result.endpoints.empty()) {
    race->result.error = asio::error::host_not_found;
  }
  co_return race->result;
}

}  // namespace rayagg
