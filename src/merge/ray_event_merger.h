// Merges serialized RayEvents of one entity by the rules of
// docs/COALESCING.md: protobuf's generated MergeFrom after the fix-ups a
// MergePlans lists for the type (found by reflection once per type). Generic
// over fields, so a field added to Ray's protos is merged without code
// changes; only the transition lists (repeated messages with `state` and a
// Timestamp `timestamp`) and profile spans (ProfileEvents.events) are special.
//
// TASK_LIFECYCLE_EVENT, most of what a backlog merges, has two fast paths:
// on the wire without parsing (LifecycleWireMerge), and where that declines,
// on generated accessors (no reflection). A differential test holds both
// equal to the generic path on random events, so a field added to
// TaskLifecycleEvent that a fast path would get wrong fails the tests.
#pragma once

#include <google/protobuf/arena.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "merge/lifecycle_wire_merge.h"
#include "merge/merge_plan.h"
#include "rayagg/event_merger.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {

class RayEventMerger final : public EventMerger {
 public:
  // `fast_paths` false: the generic path for every type (tests compare).
  explicit RayEventMerger(bool fast_paths = true);

  // Not thread-safe: the scratch arena and plans are reused. The event log
  // makes one per cursor and calls it on that cursor's reading thread.
  bool Merge(std::span<const std::string_view> parts, std::string& merged) override;

  static EventMergerFactory Factory();

 private:
  // Merges `later` into `earlier` (both parsed, same type).
  void MergeInto(ray::rpc::events::RayEvent& later, ray::rpc::events::RayEvent& earlier);
  void MergeLifecycle(ray::rpc::events::TaskLifecycleEvent& later,
                      ray::rpc::events::TaskLifecycleEvent& earlier);

  const bool fast_paths_;
  // Parsed parts live on an arena reset per Merge: no allocation per field.
  std::vector<char> arena_block_;
  std::optional<google::protobuf::Arena> arena_;
  MergePlans plans_;
  LifecycleWireMerge wire_;
};

}  // namespace rayagg
