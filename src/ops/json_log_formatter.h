// log.format: json — one JSON object per line:
//   {"time":"2026-01-02T03:04:05.678Z","level":"warn","msg":"..."}
// The message is escaped as a JSON string, so any text in it (error strings
// from peers included) cannot break the line structure a collector parses.
#pragma once

#include <spdlog/formatter.h>

#include <memory>

namespace rayagg {

class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

}  // namespace rayagg
