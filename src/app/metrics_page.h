// Renders /metrics (docs/METRICS.md) from the daemon's live counters: every
// value is read at scrape time, nothing is aggregated in the background.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "buffer/event_log.h"
#include "ingest/ingest_counters.h"
#include "rayagg/config.h"
#include "sinks/sink.h"

namespace rayagg {

struct MetricsInput {
  const IngestCounters& ingest;
  EventLog::Snapshot buffer;
  const BufferConfig& buffer_config;
  const std::vector<std::unique_ptr<Sink>>& sinks;
  bool ready = false;
  uint64_t reloads_succeeded = 0;
  uint64_t reloads_failed = 0;
  const std::vector<std::pair<std::string, std::string>>& constant_labels;
};

std::string RenderMetrics(const MetricsInput& input);

}  // namespace rayagg
