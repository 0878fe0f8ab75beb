// The identity facts the event log needs about one RayEvent: a hash of its
// event_id (dedup) and of the entity it describes (coalescing).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ray::rpc::events {
class RayEvent;
}

namespace rayagg {

struct EventKeys {
  uint64_t event_id_hash = 0;
  // 0 means "never merged" (platform and autoscaler events, or no payload).
  uint64_t entity_key = 0;
};

// Entities (issue: coalescing): task, actor-task definition, lifecycle and
// profile events by (task_id, attempt); job, node, actor, placement group,
// submission job and worker events by their id. The payload's field number is
// part of the key, so a definition never merges with a lifecycle event.
EventKeys KeysOf(const ray::rpc::events::RayEvent& event);

// What ingest needs of a serialized RayEvent, read straight from its bytes.
struct WireEventFacts {
  int32_t event_type = 0;
  EventKeys keys;
};

// The same facts KeysOf and event_type() give after parsing `wire`, under
// protobuf's rules for a field that occurs more than once (the last scalar
// wins, messages merge), without parsing it. nullopt for bytes this reader
// does not follow (malformed, or groups): parse those instead.
std::optional<WireEventFacts> FactsOfWire(std::string_view wire);

}  // namespace rayagg
