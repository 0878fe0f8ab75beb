// One event as ingest hands it to the event log: the serialized RayEvent bytes
// exactly as the sender wrote them (unknown fields included) plus the few
// facts the log needs without parsing them again.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/hash/hash.h"

namespace rayagg {

struct IncomingEvent {
  // Serialized ray.rpc.events.RayEvent; only valid during the Append call.
  std::string_view bytes;
  // RayEvent.event_type as received; numbers unknown to this build are kept.
  int32_t event_type = 0;
  // HashEventId(RayEvent.event_id): the dedup window's key. 0 (and the hash
  // of an empty id) mean "no id": never deduplicated.
  uint64_t event_id_hash = 0;
  // Hash of the entity the event describes (task id + attempt, actor id, ...)
  // and its payload kind; 0 for events that are never merged.
  uint64_t entity_key = 0;
};

// The event_id hash, used by ingest (ingest/event_keys.cc) and the event
// log alike. Within one process it is deterministic, which is all the
// dedup window needs: nothing hashed is persisted.
inline uint64_t HashEventId(std::string_view event_id) {
  return absl::Hash<std::string_view>{}(event_id);
}

}  // namespace rayagg
