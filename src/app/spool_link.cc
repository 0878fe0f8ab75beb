#include "app/spool_link.h"

#include <algorithm>

#include "common/text.h"

namespace rayagg {

void SpoolLink::OnEvict(const spool::SegmentInfo& segment) {
  log_.OnSegmentEvicted(segment);
  logger_.warn("spool full (spool.max_bytes): evicted segment {} (sequences from {})",
               segment.number, segment.sequence_floor);
}

void SpoolLink::OnHealthChanged(spool::SpoolHealth health, const std::string& reason) {
  {
    MutexLock lock(mutex_);
    health_ = health;
    reason_ = reason;
  }
  if (health == spool::SpoolHealth::kHealthy) {
    logger_.warn("spool healthy again: {}", reason);
  } else if (health == spool::SpoolHealth::kMemory) {
    logger_.error(
        "spool cannot write ({}); acknowledging from memory (spool.on_write_error: memory), "
        "retrying every second",
        reason);
  } else {
    logger_.error(
        "spool cannot write ({}); refusing requests (spool.on_write_error: refuse), retrying "
        "every second",
        reason);
  }
}

void SpoolLink::OnProblem(const std::string& line) { logger_.warn("{}", line); }

std::string SpoolLink::HealthLine() const {
  MutexLock lock(mutex_);
  switch (health_) {
    case spool::SpoolHealth::kHealthy:
      return "spool: healthy";
    case spool::SpoolHealth::kMemory:
      return "spool: down, acknowledging from memory (" + reason_ + ")";
    case spool::SpoolHealth::kRefusing:
      return "spool: down, refusing requests (" + reason_ + ")";
  }
  return "spool: unknown";
}

std::string SpoolLink::RecoveryLine(const spool::SpoolStats& stats) {
  if (stats.recovering) {
    return "spool recovery: scanning the earlier run's segments (ingest serves meanwhile)";
  }
  return strings::Cat("spool recovery: done, records=", stats.recovered_records,
                      " bytes=", stats.recovered_bytes, " corrupt_regions=", stats.corrupt_regions,
                      " torn_bytes=", stats.torn_bytes);
}

void SpoolLink::PublishPositions(spool::Spool& spool,
                                 std::vector<std::pair<std::string, uint64_t>> positions) const {
  uint64_t min_released = UINT64_MAX;
  for (const auto& [name, position] : positions) min_released = std::min(min_released, position);
  spool.UpdatePositions(std::move(positions), min_released);
}

}  // namespace rayagg
