// Drives a coroutine to completion on an io_context run by the calling test
// thread. Exceptions escaping the coroutine are rethrown here, so they fail
// the test instead of being swallowed (co_spawn(..., detached) would).
#pragma once

#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

#include "rayagg/asio.h"

namespace rayagg::test {

namespace internal {
// Runs handlers until `done`; stops early rather than waiting for unrelated
// work (e.g. an abandoned name lookup) still queued on the io_context.
inline void RunUntil(asio::io_context& io_context, const bool& done) {
  io_context.restart();
  while (!done && io_context.run_one() > 0) {
  }
  if (!done) throw std::logic_error("io_context ran out of work before the coroutine completed");
}
}  // namespace internal

template <typename T>
T RunCoroutine(asio::io_context& io_context, asio::awaitable<T> coroutine) {
  std::optional<T> result;
  std::exception_ptr error;
  bool done = false;
  asio::co_spawn(io_context, std::move(coroutine), [&](std::exception_ptr e, T value) {
    error = e;
    result.emplace(std::move(value));
    done = true;
  });
  internal::RunUntil(io_context, done);
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

inline void RunCoroutine(asio::io_context& io_context, asio::awaitable<void> coroutine) {
  std::exception_ptr error;
  bool done = false;
  asio::co_spawn(io_context, std::move(coroutine), [&](std::exception_ptr e) {
    error = e;
    done = true;
  });
  internal::RunUntil(io_context, done);
  if (error) std::rethrow_exception(error);
}

}  // namespace rayagg::test
