// What connects the disk spool to the rest of the daemon (docs/SPOOL.md):
// the spool's reports go to the event log (durable positions, so memory
// may free records) and to the log file; its health is kept for /readyz
// and /metrics; the sinks' released positions go to the spool's ledger.
#pragma once

#include <spdlog/logger.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "buffer/event_log.h"
#include "rayagg/mutex.h"
#include "spool/spool.h"

namespace rayagg {

class SpoolLink final : public spool::SpoolListener {
 public:
  SpoolLink(EventLog& log, spdlog::logger& logger) : log_(log), logger_(logger) {}

  void OnDurable(uint64_t position) override { log_.OnDurable(position); }
  void OnEvict(const spool::SegmentInfo& segment) override;
  bool MayEvict(const spool::SegmentInfo& segment) override {
    return log_.MayEvictSegment(segment);
  }
  void OnHealthChanged(spool::SpoolHealth health, const std::string& reason) override;
  void OnProblem(const std::string& line) override;

  // One line for the /readyz body: "spool: healthy", or down and why.
  std::string HealthLine() const;
  // One line for the /readyz body: the earlier run's segments are being
  // scanned (serving goes on meanwhile), or what recovery found.
  static std::string RecoveryLine(const spool::SpoolStats& stats);

  // The sinks' released positions (name, position) for the ledger; the
  // smallest of them is where segments may be deleted below.
  void PublishPositions(spool::Spool& spool,
                        std::vector<std::pair<std::string, uint64_t>> positions) const;

 private:
  EventLog& log_;
  spdlog::logger& logger_;
  mutable Mutex mutex_;
  spool::SpoolHealth health_ ABSL_GUARDED_BY(mutex_) = spool::SpoolHealth::kHealthy;
  std::string reason_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace rayagg
