// The two real binaries of the end-to-end task-history tests, run as a
// supervisor runs them: ray-event-aggregator with one object-store sink
// receives a Scenario over gRPC and HTTP JSON and is stopped (SIGTERM uploads
// what is still open), then ray-task-history indexes that store and its API
// answers are checked against the Scenario. Ports are chosen by the OS and
// read from port files; every wait is for a condition, with a deadline.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "integration/history/history_scenario.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

#ifndef RAYAGG_BINARY
#error "RAYAGG_BINARY must name the ray-event-aggregator executable"
#endif
#ifndef RAYAGG_HISTORY_BINARY
#error "RAYAGG_HISTORY_BINARY must name the ray-task-history executable"
#endif

namespace rayagg::test::history_e2e {

// Generous: both binaries start, deliver and index under sanitizers on a
// loaded 2-core machine; only a failing test waits this long.
inline constexpr std::chrono::milliseconds kPipelineTimeout{300'000};

class HistoryPipeline {
 public:
  explicit HistoryPipeline(const TempDir& dir) : dir_(dir) {}

  // Runs the daemon with one object-store sink; `sink_yaml` holds the
  // sink's url and store keys, indented for a sink entry (4 spaces).
  ::testing::AssertionResult StartDaemon(const std::string& sink_yaml);
  // The scenario's task events over gRPC AddEvents, the rest as one HTTP
  // JSON POST; both acknowledged.
  ::testing::AssertionResult Send(const Scenario& scenario);
  // SIGTERM: the sink uploads every open object, then the daemon exits 0.
  ::testing::AssertionResult StopDaemon();

  // Runs ray-task-history on `store_url` with a fresh index directory;
  // `config_yaml` is its --config file (short poll intervals, store keys).
  ::testing::AssertionResult StartHistory(const std::string& store_url,
                                          const std::string& config_yaml);
  // Until the indexer has read everything it listed once (rayhist_lag_seconds
  // is no longer -1): the store was complete before it started.
  ::testing::AssertionResult WaitUntilCaughtUp();
  ::testing::AssertionResult StopHistory();

  // GET on the history's API: status and parsed body (discarded if not JSON).
  std::pair<int, nlohmann::json> Get(const std::string& target);
  std::string GetText(const std::string& target);
  // GET on the history's ops listener (/metrics, /healthz, /readyz).
  std::string GetOpsText(const std::string& target);

  // The daemon's ports (after StartDaemon).
  int http_port() const { return http_port_; }
  int grpc_port() const { return grpc_port_; }

  // Both programs' stderr, for a failure's context.
  std::string Logs() const;

 private:
  const TempDir& dir_;
  std::unique_ptr<Subprocess> daemon_, history_;
  int grpc_port_ = 0, http_port_ = 0, history_port_ = 0, history_ops_port_ = 0;
  int history_runs_ = 0;
};

// Every answer checked against the scenario: sessions, counts by state (the
// session's and the job's), group-by function and error type, the task list
// (filtered, sorted and paged by cursor), one task, the job and the actor,
// and Ray's State API (/api/v0/tasks with filters and detail, summarize).
void ExpectAnswersMatch(HistoryPipeline& pipeline, const Scenario& scenario);

}  // namespace rayagg::test::history_e2e
