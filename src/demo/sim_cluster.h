// The simulated Ray cluster as a stream of RayEvents in simulated-time
// order, each with the node whose aggregator sends it (Ray's per-node
// agents). Tasks are planned as their submission time comes and their
// events wait in a heap of small entries (a task's facts are recomputed from
// its index when an event is built), so memory follows the tasks in flight,
// never the session's length.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "demo/sim_events.h"
#include "demo/sim_model.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::demo {

class SimCluster {
 public:
  using Emit = std::function<void(size_t node, ray::rpc::events::RayEvent& event)>;

  explicit SimCluster(SimOptions options);

  const SimLayout& layout() const { return layout_; }

  // Emits, in time order, every event before simulated time `until_ns`.
  // Returns false once the whole session has been emitted.
  bool EmitUntil(int64_t until_ns, const Emit& emit);
  uint64_t events_emitted() const { return events_emitted_; }

 private:
  struct Pending {
    int64_t at;
    uint64_t task;
    uint8_t attempt, stage;
    friend bool operator>(const Pending& a, const Pending& b) {
      return std::tie(a.at, a.task, a.attempt, a.stage) >
             std::tie(b.at, b.task, b.attempt, b.stage);
    }
  };
  void Schedule(const TaskPlan& plan);

  SimLayout layout_;
  uint64_t event_salt_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  std::vector<TimedEvent> cluster_events_;  // nodes, jobs, actors: a few dozen, sorted
  size_t next_cluster_event_ = 0;
  uint64_t next_task_ = 0;
  uint64_t events_emitted_ = 0;
};

}  // namespace rayagg::demo
