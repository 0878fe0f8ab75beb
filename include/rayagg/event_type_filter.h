// Which RayEvent.EventType numbers a sink accepts. Pure value type: no protobuf.
#pragma once

#include <bitset>
#include <cstdint>
#include <initializer_list>

namespace rayagg {

class EventTypeFilter {
 public:
  // Numbers below this can be listed individually; larger (unknown, newer)
  // types pass only a filter that accepts all.
  static constexpr int kMaxListedType = 64;

  // Every type, including numbers unknown to this build (Ray's `ALL`).
  static EventTypeFilter All() {
    EventTypeFilter filter;
    filter.all_ = true;
    return filter;
  }
  // Nothing at all (Ray: an empty exposable list exports nothing).
  static EventTypeFilter None() { return EventTypeFilter(); }
  static EventTypeFilter Of(std::initializer_list<int> types) {
    EventTypeFilter filter;
    for (int type : types) filter.Add(type);
    return filter;
  }
  // Ray's default exposable list (newest agent): task, actor-task, job, actor,
  // node, worker definition/lifecycle and platform events. Never profile,
  // placement-group, submission-job or autoscaler events.
  static EventTypeFilter RayDefault() {
    // Numbers from RayEvent.EventType (wire spec §4.3).
    return Of({1, 2, 3, 5, 6, 7, 8, 9, 10, 15, 16, 17});
  }

  // Returns false for a number that cannot be listed.
  bool Add(int type) {
    if (type < 0 || type >= kMaxListedType) return false;
    types_.set(static_cast<size_t>(type));
    return true;
  }
  bool Accepts(int32_t type) const {
    if (all_) return true;
    return type >= 0 && type < kMaxListedType && types_.test(static_cast<size_t>(type));
  }
  bool accepts_all() const { return all_; }
  bool accepts_none() const { return !all_ && types_.none(); }

  friend bool operator==(const EventTypeFilter&, const EventTypeFilter&) = default;

 private:
  bool all_ = false;
  std::bitset<kMaxListedType> types_;
};

}  // namespace rayagg
