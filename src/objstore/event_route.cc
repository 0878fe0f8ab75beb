#include "objstore/event_route.h"

#include <optional>

namespace rayagg {
namespace {

// RayEvent field numbers (proto/src/ray/protobuf/public/events_base_event.proto).
constexpr uint32_t kEventType = 3;
constexpr uint32_t kTimestamp = 4;
constexpr uint32_t kSessionName = 7;
constexpr uint32_t kNodeId = 18;
constexpr int32_t kNodeDefinitionEvent = 7;
constexpr int32_t kNodeLifecycleEvent = 8;

// Payload field of RayEvent -> job_id field inside that payload, for the
// payloads the history server files by job.
std::optional<uint32_t> JobIdFieldOf(uint32_t payload_field) {
  switch (payload_field) {
    case 8:  // task_definition_event
      return 9;
    case 9:  // task_lifecycle_event
      return 8;
    case 10:  // actor_task_definition_event
      return 8;
    case 11:  // task_profile_events
      return 3;
    case 12:  // driver_job_definition_event
      return 1;
    case 13:  // driver_job_lifecycle_event
      return 1;
    case 16:  // actor_definition_event
      return 2;
    default:
      return std::nullopt;
  }
}

// A forward-only reader of protobuf wire format over a byte view.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}

  bool done() const { return at_ >= bytes_.size(); }

  std::optional<uint64_t> Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= bytes_.size()) return std::nullopt;
      const auto byte = static_cast<uint8_t>(bytes_[at_++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return std::nullopt;
  }

  std::optional<std::string_view> Bytes() {
    const std::optional<uint64_t> length = Varint();
    if (!length || *length > bytes_.size() - at_) return std::nullopt;
    const std::string_view view = bytes_.substr(at_, *length);
    at_ += *length;
    return view;
  }

  bool Skip(uint32_t wire_type) {
    switch (wire_type) {
      case 0:
        return Varint().has_value();
      case 1:
        return Advance(8);
      case 2:
        return Bytes().has_value();
      case 5:
        return Advance(4);
      default:  // groups are not used by these protos
        return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (n > bytes_.size() - at_) return false;
    at_ += n;
    return true;
  }

  std::string_view bytes_;
  size_t at_ = 0;
};

// The last occurrence of length-delimited field `field` in `message`
// (proto3: the last one wins); nullopt when malformed.
std::optional<std::string_view> FindBytesField(std::string_view message, uint32_t field) {
  WireReader reader(message);
  std::string_view found;
  while (!reader.done()) {
    const std::optional<uint64_t> tag = reader.Varint();
    if (!tag) return std::nullopt;
    const auto number = static_cast<uint32_t>(*tag >> 3);
    const auto wire_type = static_cast<uint32_t>(*tag & 7);
    if (number == field && wire_type == 2) {
      const std::optional<std::string_view> value = reader.Bytes();
      if (!value) return std::nullopt;
      found = *value;
    } else if (!reader.Skip(wire_type)) {
      return std::nullopt;
    }
  }
  return found;
}

// google.protobuf.Timestamp as nanoseconds since the epoch.
std::optional<int64_t> TimestampNanos(std::string_view message) {
  WireReader reader(message);
  int64_t seconds = 0, nanos = 0;
  while (!reader.done()) {
    const std::optional<uint64_t> tag = reader.Varint();
    if (!tag) return std::nullopt;
    const auto number = static_cast<uint32_t>(*tag >> 3);
    const auto wire_type = static_cast<uint32_t>(*tag & 7);
    if ((number == 1 || number == 2) && wire_type == 0) {
      const std::optional<uint64_t> value = reader.Varint();
      if (!value) return std::nullopt;
      (number == 1 ? seconds : nanos) = static_cast<int64_t>(*value);
    } else if (!reader.Skip(wire_type)) {
      return std::nullopt;
    }
  }
  return seconds * 1'000'000'000 + nanos;
}

absl::Status Malformed() { return absl::InvalidArgumentError("malformed RayEvent"); }

}  // namespace

absl::StatusOr<EventRoute> ScanEventRoute(std::string_view serialized_event) {
  EventRoute route;
  WireReader reader(serialized_event);
  while (!reader.done()) {
    const std::optional<uint64_t> tag = reader.Varint();
    if (!tag) return Malformed();
    const auto number = static_cast<uint32_t>(*tag >> 3);
    const auto wire_type = static_cast<uint32_t>(*tag & 7);
    if (number == kEventType && wire_type == 0) {
      const std::optional<uint64_t> value = reader.Varint();
      if (!value) return Malformed();
      route.event_type = static_cast<int32_t>(*value);
      continue;
    }
    if (wire_type != 2) {
      if (!reader.Skip(wire_type)) return Malformed();
      continue;
    }
    const std::optional<std::string_view> value = reader.Bytes();
    if (!value) return Malformed();
    if (number == kSessionName) {
      route.session_name = *value;
    } else if (number == kNodeId) {
      route.node_id = *value;
    } else if (number == kTimestamp) {
      const std::optional<int64_t> nanos = TimestampNanos(*value);
      if (!nanos) return Malformed();
      route.timestamp_nanos = *nanos;
    } else if (const std::optional<uint32_t> job_field = JobIdFieldOf(number)) {
      const std::optional<std::string_view> job_id = FindBytesField(*value, *job_field);
      if (!job_id) return Malformed();
      if (!job_id->empty()) route.job_id = *job_id;
    }
  }
  if (route.event_type == kNodeDefinitionEvent || route.event_type == kNodeLifecycleEvent) {
    route.job_id = {};
  }
  return route;
}

}  // namespace rayagg
