#include "common/event_type_names.h"

#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {

namespace {
const google::protobuf::EnumDescriptor& EventTypeEnum() {
  return *ray::rpc::events::RayEvent::EventType_descriptor();
}
}  // namespace

std::string EventTypeName(int32_t type) {
  const auto* value = EventTypeEnum().FindValueByNumber(type);
  return value != nullptr ? value->name() : std::to_string(type);
}

std::string EventTypeLabel(int32_t type) {
  const auto* value = EventTypeEnum().FindValueByNumber(type);
  return value != nullptr ? value->name() : std::string(kUnknownEventTypeLabel);
}

std::optional<int32_t> EventTypeFromName(std::string_view name) {
  const auto* value = EventTypeEnum().FindValueByName(std::string(name));
  if (value == nullptr) return std::nullopt;
  return value->number();
}

int32_t MaxKnownEventType() {
  const auto& type_enum = EventTypeEnum();
  int32_t max_number = 0;
  for (int i = 0; i < type_enum.value_count(); ++i) {
    max_number = std::max(max_number, type_enum.value(i)->number());
  }
  return max_number;
}

}  // namespace rayagg
