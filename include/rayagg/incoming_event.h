// One event as ingest hands it to the event log: the serialized RayEvent bytes
// exactly as the sender wrote them (unknown fields included) plus the few
// facts the log needs without parsing them again.
#pragma once

#include <cstdint>
#include <string_view>

namespace rayagg {

struct IncomingEvent {
  // Serialized ray.rpc.events.RayEvent; only valid during the Append call.
  std::string_view bytes;
  // RayEvent.event_type as received; numbers unknown to this build are kept.
  int32_t event_type = 0;
  // Hash of RayEvent.event_id (the dedup window's key).
  uint64_t event_id_hash = 0;
  // Hash of the entity the event describes (task id + attempt, actor id, ...)
  // and its payload kind; 0 for events that are never merged.
  uint64_t entity_key = 0;
};

}  // namespace rayagg
