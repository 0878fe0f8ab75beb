#include "config/event_type_list.h"

#include "common/event_type_names.h"
#include "common/text.h"

namespace rayagg {

bool IsAllEventTypes(std::string_view text) {
  return strings::EqualsIgnoreCase(strings::StripBlanks(text), "ALL");
}

RayEventTypeList ParseRayEventTypeList(std::string_view value) {
  RayEventTypeList result;
  if (IsAllEventTypes(value)) {
    result.filter = EventTypeFilter::All();
    return result;
  }
  for (std::string_view item : strings::Split(value, ',')) {
    item = strings::StripBlanks(item);
    if (item.empty()) continue;
    const std::optional<int32_t> type = EventTypeFromName(item);
    if (!type.has_value() || !result.filter.Add(*type)) {
      result.unknown_names.emplace_back(item);
    }
  }
  return result;
}

std::string FormatEventTypeFilter(const EventTypeFilter& filter) {
  if (filter.accepts_all()) return "ALL";
  if (filter.accepts_none()) return "none";
  std::vector<std::string> names;
  for (int type = 0; type < EventTypeFilter::kMaxListedType; ++type) {
    if (filter.Accepts(type)) names.push_back(EventTypeName(type));
  }
  return strings::Join(names, ",");
}

}  // namespace rayagg
