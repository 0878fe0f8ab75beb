// Ready-made RayEvents for tests: one of every EventType with every field set
// (the builder of tests/unit/proto/proto_roundtrip_test.cc, made reusable),
// and small factories for tests that need many cheap events.
//
// Every event built here gets a distinct 28-byte event_id (Ray's ids are 28
// bytes), drawn from a process-wide counter, so a later dedup stage never
// mistakes two test events for one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/ray/protobuf/common.pb.h"
#include "src/ray/protobuf/events_event_aggregator_service.pb.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::test {

using ray::rpc::events::AddEventsRequest;
using ray::rpc::events::RayEvent;

// A fresh 28-byte event id: a fixed 20-byte prefix and a big-endian counter.
std::string NextEventId();

// One RayEvent for each EventType 1..20, in type order, each with its payload
// and every field of the envelope and the payload set to a non-default value.
std::vector<RayEvent> OneEventOfEveryType();

// OneEventOfEveryType() plus extra events for the other members of every
// oneof (function descriptors, error infos, actor death causes), so that
// together they set every field reachable from AddEventsRequest.
std::vector<RayEvent> EventsSettingEveryField();

// One RayEvent for each EventType 1..20 with only event_id and event_type set
// and its payload present but empty: every other field prints only because
// of always_print_primitive_fields, so these check that option per type.
std::vector<RayEvent> MinimalEventOfEveryType();

// A small TASK_LIFECYCLE_EVENT (one state transition) for `task_id` and
// `attempt`, with a full envelope.
RayEvent TaskLifecycleEvent(std::string task_id, int attempt,
                            ray::rpc::TaskStatus state = ray::rpc::RUNNING);

// A small TASK_DEFINITION_EVENT for `task_id` and `attempt`.
RayEvent TaskDefinitionEvent(std::string task_id, int attempt);

// `count` TaskLifecycleEvents for tasks "<prefix>-0", "<prefix>-1", ...: cheap
// events whose order can be checked by task id.
std::vector<RayEvent> TaskLifecycleEvents(size_t count, std::string_view prefix = "task");

// An AddEventsRequest carrying `events` (and no task_events_metadata).
AddEventsRequest RequestOf(std::span<const RayEvent> events);

// Adds `count` dropped task attempts to the request's task_events_metadata.
void AddDroppedTaskAttempts(AddEventsRequest& request, size_t count);

}  // namespace rayagg::test
