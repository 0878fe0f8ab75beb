// Name resolution with a deadline. Asio's resolver runs a blocking
// getaddrinfo() on a private thread and cancel() cannot interrupt it, so a
// cancelled resolve still completes only when getaddrinfo returns. To really
// bound the caller we race the resolve against a timer and abandon the loser.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "rayagg/asio.h"

namespace rayagg {

struct ResolveResult {
  boost::system::error_code error;  // asio::error::timed_out when the deadline passed first
  std::vector<asio::ip::tcp::endpoint> endpoints;
};

// Numeric addresses are returned without touching the resolver. Otherwise the
// coroutine resumes at the deadline at the latest; an abandoned lookup keeps
// running on Asio's resolver thread until getaddrinfo() returns and is then
// discarded (it holds only its own state, never the caller's).
// `executor` must be single-threaded (an io_context run by one thread, or a
// strand) because the timer and resolver handlers share state.
asio::awaitable<ResolveResult> ResolveWithDeadline(asio::any_io_executor executor, std::string host,
                                                   uint16_t port,
                                                   std::chrono::steady_clock::time_point deadline);

}  // namespace rayagg
