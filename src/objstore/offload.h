// Runs a blocking function (file I/O, fsync) on a thread pool and resumes
// the awaiting coroutine on its own executor with the result, so a slow disk
// holds up only the pool's thread, never the caller's io thread.
#pragma once

#include <type_traits>
#include <utility>

#include "rayagg/asio.h"

namespace rayagg {

// `fn` must own everything it touches (capture by value): it may still run
// after the awaiting coroutine was destroyed with its io_context.
template <typename Fn>
asio::awaitable<std::invoke_result_t<Fn>> OffloadTo(asio::thread_pool& pool, Fn fn) {
  using Result = std::invoke_result_t<Fn>;
  co_return co_await asio::async_initiate<decltype(asio::use_awaitable), void(Result)>(
      [&pool](auto handler, Fn work) {
        // Keeps the caller's io_context from running out of work meanwhile.
        auto guard = asio::make_work_guard(handler);
        asio::post(pool, [work = std::move(work), handler = std::move(handler),
                          guard = std::move(guard)]() mutable {
          Result result = work();
          auto executor = guard.get_executor();
          asio::post(executor,
                     [handler = std::move(handler), result = std::move(result),
                      guard = std::move(guard)]() mutable { handler(std::move(result)); });
        });
      },
      asio::use_awaitable, std::move(fn));
}

}  // namespace rayagg
