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
  void OnHealthChanged(spool::SpoolHealth health, const std::string& reason) override;
  void OnProblem(const std::string& line) override;

  // One line for the /readyz body: "spool: healthy", or down and why.
  std::string HealthLine() const;

  // Until sinks resume from the spool after a restart (issue 15, step 3),
  // an earlier run's unsent records are kept for them: a sink the ledger
  // names with a position below this run's first sequence keeps that
  // position, and no segment at or after the lowest such position is
  // deleted (max_bytes still bounds the disk).
  void KeepEarlierRun(const spool::LedgerState& ledger, uint64_t first_sequence);
  // The sinks' released positions (name, position) as the ledger should
  // hold them, and the position below which segments may be deleted.
  void PublishPositions(spool::Spool& spool,
                        std::vector<std::pair<std::string, uint64_t>> positions) const;

 private:
  EventLog& log_;
  spdlog::logger& logger_;
  mutable Mutex mutex_;
  spool::SpoolHealth health_ ABSL_GUARDED_BY(mutex_) = spool::SpoolHealth::kHealthy;
  std::string reason_ ABSL_GUARDED_BY(mutex_);
  // Set before the sinks start; read-only afterwards.
  std::vector<std::pair<std::string, uint64_t>> earlier_positions_;
  uint64_t keep_from_ = UINT64_MAX;
};

}  // namespace rayagg
