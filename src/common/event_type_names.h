// RayEvent.EventType names <-> numbers, from the generated descriptor so the
// table can never drift from proto/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rayagg {

// The enum value name ("TASK_LIFECYCLE_EVENT"), or the decimal number for a
// value this build does not know (as proto3 JSON prints it).
std::string EventTypeName(int32_t type);

// The `event_type` label value of a metric: the enum value name, or
// kUnknownEventTypeLabel for every number this build does not know, so that
// senders inventing numbers cannot grow the label set.
inline constexpr std::string_view kUnknownEventTypeLabel = "UNKNOWN";
std::string EventTypeLabel(int32_t type);

// Exact, case-sensitive match of an enum value name (Ray's filter semantics).
std::optional<int32_t> EventTypeFromName(std::string_view name);

// Highest EventType number this build knows.
int32_t MaxKnownEventType();

}  // namespace rayagg
