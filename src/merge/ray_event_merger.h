// Merges serialized RayEvents of one entity by the rules of
// docs/COALESCING.md. Generic over fields through protobuf reflection, so a
// field added to Ray's protos is merged without code changes; only the
// transition lists (repeated messages with `state` and a Timestamp
// `timestamp`) and profile spans (ProfileEvents.events) are special.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "rayagg/event_merger.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {

class RayEventMerger final : public EventMerger {
 public:
  // Not thread-safe: the scratch messages are reused. The event log makes
  // one per cursor and calls it on that cursor's reading thread.
  bool Merge(std::span<const std::string_view> parts, std::string& merged) override;

  static EventMergerFactory Factory();

 private:
  ray::rpc::events::RayEvent earlier_;
  ray::rpc::events::RayEvent later_;
};

}  // namespace rayagg
