// An io_context with one thread of its own for one of the daemon's HTTP
// listeners. HTTP ingest and ops each get one, so parsing a large ingest
// body (or waiting on the spool) never delays /healthz, /readyz or /metrics.
#pragma once

#include <optional>
#include <string>
#include <thread>

#include "rayagg/asio.h"

namespace spdlog {
class logger;
}

namespace rayagg {

class ListenerThread {
 public:
  // `name` says which listener in the log line of an internal error.
  ListenerThread(std::string name, spdlog::logger& logger);
  ~ListenerThread();  // Stop()
  ListenerThread(const ListenerThread&) = delete;
  ListenerThread& operator=(const ListenerThread&) = delete;

  asio::io_context& io_context() { return io_; }

  // Starts the thread; it runs the io_context until Stop().
  void Start();
  // Stops the io_context and joins the thread. Stop the servers on it first
  // (HttpServer::Stop needs the thread running). Idempotent.
  void Stop();

 private:
  const std::string name_;
  spdlog::logger& logger_;
  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::jthread thread_;
};

}  // namespace rayagg
