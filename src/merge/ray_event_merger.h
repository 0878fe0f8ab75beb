// Merges two serialized RayEvents of one entity by the rules of
// docs/COALESCING.md. Generic over fields through protobuf reflection, so a
// field added to Ray's protos is merged without code changes; only the
// transition lists (repeated messages with `state` and a Timestamp
// `timestamp`) and profile spans (ProfileEvents.events) are special.
#pragma once

#include <string>
#include <string_view>

#include "rayagg/event_merger.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {

class RayEventMerger final : public EventMerger {
 public:
  // Not thread-safe: the scratch messages are reused. The event log calls it
  // under its lock.
  bool Merge(std::string_view earlier, std::string_view later, std::string& merged) override;

 private:
  ray::rpc::events::RayEvent earlier_;
  ray::rpc::events::RayEvent later_;
};

}  // namespace rayagg
