// Realistic task events as a Ray core worker reports them, pre-built so the
// load generator spends its time sending rather than building messages.
//
// Per task: one TASK_DEFINITION_EVENT (function descriptor, resources, a
// ~200-character runtime env, ref ids, labels) and three TASK_LIFECYCLE_EVENTs
// (1-2 state transitions each); 1 task in 50 ends FAILED with a 2 KB stack
// trace. A request built here is reused for many sends; StampForSend gives
// every send fresh event ids, task ids and timestamps, so a daemon that
// deduplicates still sees distinct events. As with Ray's once-a-second
// flushes, a task's three lifecycle reports arrive in three consecutive
// requests, not together: coalescing merges them only when a sink falls
// behind.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "src/ray/protobuf/events_event_aggregator_service.pb.h"

namespace rayagg::bench {

inline constexpr size_t kEventsPerTask = 4;
inline constexpr size_t kFailedTaskEvery = 50;

// A request of `event_count` events (whole tasks first, the last task cut
// short if `event_count` is not a multiple of kEventsPerTask). `variant`
// varies node, worker and function names between the requests of a pool.
ray::rpc::events::AddEventsRequest BuildTaskEventsRequest(size_t event_count, uint64_t variant);

// Reserves `count` sequence numbers, unique within this process; event and
// task ids also carry a per-process random salt, so separate loadgen runs
// against one daemon do not collide either.
uint64_t ReserveSequences(uint64_t count);

// Rewrites, in place and without allocating, every event id and task id of
// `request` from sequence numbers [first_sequence, first_sequence + size),
// and sets every timestamp to `now` (state transitions slightly before it).
// Lifecycle report r (1-3) of a definition at sequence s names the task
// defined at s - r * request size (the same slot r requests earlier).
void StampForSend(ray::rpc::events::AddEventsRequest& request, uint64_t first_sequence,
                  std::chrono::system_clock::time_point now);

}  // namespace rayagg::bench
