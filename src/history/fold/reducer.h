// Folds RayEvents into task, actor, job, node and worker records
// (task_record.h) for one session. A FoldedSession holds one batch: the
// indexer folds a bounded number of objects into it, merges it with what the
// index holds (index_writer.h) and starts the next batch empty.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "history/fold/task_record.h"

namespace ray::rpc::events {
class RayEvent;
}

namespace rayagg::history {

struct TaskKey {
  std::string task_id;  // hex
  int32_t attempt = 0;
  friend bool operator==(const TaskKey&, const TaskKey&) = default;
};

struct TaskKeyHash {
  size_t operator()(const TaskKey& key) const {
    return std::hash<std::string>()(key.task_id) * 31 + static_cast<size_t>(key.attempt);
  }
};

struct FoldCounters {
  uint64_t events = 0;
  uint64_t ignored_events = 0;     // types the history does not fold (placement groups, ...)
  uint64_t events_without_id = 0;  // a task/actor/job/... event with an empty id
};

struct FoldedSession {
  std::unordered_map<TaskKey, TaskRecord, TaskKeyHash> tasks;
  std::unordered_map<std::string, ActorRecord> actors;
  std::unordered_map<std::string, JobRecord> jobs;
  std::unordered_map<std::string, NodeRecord> nodes;
  std::unordered_map<std::string, WorkerRecord> workers;
  int64_t first_event_ns = kNoTime;
  int64_t last_event_ns = kNoTime;
  FoldCounters counters;
  // A rough count of the bytes held, to bound a batch's memory.
  uint64_t approximate_bytes = 0;

  void Merge(FoldedSession&& other);
  bool empty() const {
    return tasks.empty() && actors.empty() && jobs.empty() && nodes.empty() && workers.empty();
  }
};

// Folds one event into `into`. Never fails: what cannot be used is counted.
void FoldEvent(const ray::rpc::events::RayEvent& event, FoldedSession& into);

// Lowercase hex of raw id bytes.
std::string HexId(std::string_view bytes);

}  // namespace rayagg::history
