#include "app/listener_thread.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <exception>
#include <utility>

namespace rayagg {

ListenerThread::ListenerThread(std::string name, spdlog::logger& logger)
    : name_(std::move(name)), logger_(logger) {}

ListenerThread::~ListenerThread() { Stop(); }

void ListenerThread::Start() {
  if (thread_.joinable()) return;
  work_.emplace(io_.get_executor());
  thread_ = std::jthread([this] {
    try {
      io_.run();
    } catch (const std::exception& error) {
      // A bug in a listener: fail loudly so the supervisor restarts us.
      logger_.critical("internal error in the {} listener: {}", name_, error.what());
      logger_.flush();
      std::abort();
    }
  });
}

void ListenerThread::Stop() {
  work_.reset();
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace rayagg
