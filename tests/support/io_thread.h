// Runs an io_context on its own thread for tests that need the test thread
// free to wait (futures, server conditions). The destructor stops the
// io_context and joins, so a failed ASSERT cannot leave the test hanging.
#pragma once

#include <thread>

#include "rayagg/asio.h"

namespace rayagg::test {

class IoThread {
 public:
  explicit IoThread(asio::io_context& io_context)
      : io_context_(io_context),
        work_(asio::make_work_guard(io_context)),
        thread_([this] { io_context_.run(); }) {}
  IoThread(const IoThread&) = delete;
  IoThread& operator=(const IoThread&) = delete;
  // Handlers still queued are not run; they are destroyed with the io_context.
  ~IoThread() {
    work_.reset();
    io_context_.stop();
  }  // thread_ joins here

 private:
  asio::io_context& io_context_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::jthread thread_;
};

}  // namespace rayagg::test
