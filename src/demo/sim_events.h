// RayEvents of the simulated cluster, as Ray's processes report them: a
// task attempt's definition and lifecycle steps (from its owner, and RUNNING
// from the worker that runs it), and the GCS's node, job and actor events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "demo/sim_model.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::demo {

// Protobuf writes map entries in no fixed order: every byte the demo sends
// or stores goes through this, so one seed gives the same bytes.
void SerializeDeterministic(const ray::rpc::events::RayEvent& event, std::string& out);

// A task attempt's reports, in order: 0 definition (owner, at creation),
// 1 PENDING_ARGS_AVAIL (+ PENDING_NODE_ASSIGNMENT for normal tasks; owner),
// 2 SUBMITTED_TO_WORKER (owner), 3 RUNNING (the executing node),
// 4 FINISHED or FAILED (owner).
inline constexpr int kTaskStages = 5;

// When stage `stage` of the attempt is reported, and by which node;
// at == kNever when it never is.
struct StageSlot {
  int64_t at = kNever;
  size_t node = 0;
};
StageSlot StageOf(const SimLayout& layout, const TaskPlan& plan, int attempt, int stage);

// The stage's event. `event_salt` varies event ids between sessions of one
// seed (a daemon drops an event id it has seen).
void BuildTaskEvent(const SimLayout& layout, const TaskPlan& plan, int attempt, int stage,
                    uint64_t event_salt, ray::rpc::events::RayEvent& event);

// Node, job and actor events (definitions and lifecycles) with the node
// that sends them, unsorted; only those the layout lets out (Sent).
struct TimedEvent {
  int64_t at;
  size_t node;
  ray::rpc::events::RayEvent event;
};
std::vector<TimedEvent> BuildClusterEvents(const SimLayout& layout, uint64_t event_salt);

}  // namespace rayagg::demo
