// Event type lists as Ray spells them: names of RayEvent.EventType values,
// or the wildcard ALL.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rayagg/event_type_filter.h"

namespace rayagg {

// "ALL" in any case, surrounding blanks ignored (Ray >= 2.54).
bool IsAllEventTypes(std::string_view text);

struct RayEventTypeList {
  EventTypeFilter filter = EventTypeFilter::None();
  // Names no EventType has; Ray keeps them in its set and never matches them.
  std::vector<std::string> unknown_names;
};

// Parses a `…_EXPOSABLE_EVENT_TYPES` value the way Ray does: ALL as the whole
// value means every type; otherwise split on ',', strip blanks and newlines
// of each item, drop empty items, match names exactly (case-sensitive).
// A blank value yields a filter that accepts nothing, as in Ray.
RayEventTypeList ParseRayEventTypeList(std::string_view value);

// "ALL", "none", or the accepted names joined by ",".
std::string FormatEventTypeFilter(const EventTypeFilter& filter);

}  // namespace rayagg
