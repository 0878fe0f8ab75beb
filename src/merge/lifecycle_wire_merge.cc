#include "merge/lifecycle_wire_merge.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <optional>

#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {
namespace {

namespace pb = google::protobuf;
using pb::FieldDescriptor;
using ray::rpc::events::RayEvent;
using ray::rpc::events::TaskLifecycleEvent;

constexpr int kEventIdField = RayEvent::kEventIdFieldNumber;
constexpr int kEventTypeField = RayEvent::kEventTypeFieldNumber;
constexpr int kTimestampField = RayEvent::kTimestampFieldNumber;
constexpr int kPayloadField = RayEvent::kTaskLifecycleEventFieldNumber;
constexpr int kTransitionsField = TaskLifecycleEvent::kStateTransitionsFieldNumber;
constexpr uint32_t kWireVarint = 0, kWireFixed64 = 1, kWireLength = 2, kWireFixed32 = 5;

// One field as found on the wire.
struct WireField {
  int number;
  uint32_t wire_type;
  uint64_t varint;           // kWireVarint
  std::string_view content;  // kWireLength: the bytes after the length
  std::string_view whole;    // tag through end
};

// Walks the fields of one message encoding. Hand-rolled rather than over
// protobuf's CodedInputStream: a merge opens a reader per message, per
// transition and per timestamp, and constructing a CodedInputStream each time
// cost more than the walk itself.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}

  // The next field, or nullopt at the end; `failed()` tells an error apart.
  std::optional<WireField> Next() {
    if (position_ == bytes_.size()) return std::nullopt;
    const size_t start = position_;
    uint64_t tag = 0;
    if (!ReadVarint(tag) || tag > UINT32_MAX || (tag >> 3) == 0) return Fail();
    WireField field{static_cast<int>(tag >> 3), static_cast<uint32_t>(tag & 7), 0, {}, {}};
    switch (field.wire_type) {
      case kWireVarint:
        if (!ReadVarint(field.varint)) return Fail();
        break;
      case kWireFixed64:
        if (!Skip(8)) return Fail();
        break;
      case kWireFixed32:
        if (!Skip(4)) return Fail();
        break;
      case kWireLength: {
        uint64_t length = 0;
        if (!ReadVarint(length) || length > bytes_.size() - position_) return Fail();
        field.content = bytes_.substr(position_, length);
        position_ += length;
        break;
      }
      default:
        return Fail();  // groups: not in Ray's protos
    }
    field.whole = bytes_.substr(start, position_ - start);
    return field;
  }
  bool failed() const { return failed_; }

 private:
  std::optional<WireField> Fail() {
    failed_ = true;
    position_ = bytes_.size();
    return std::nullopt;
  }
  bool Skip(size_t count) {
    if (count > bytes_.size() - position_) return false;
    position_ += count;
    return true;
  }
  // At most 10 bytes, as protobuf allows.
  bool ReadVarint(uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 70 && position_ < bytes_.size(); shift += 7) {
      const auto byte = static_cast<uint8_t>(bytes_[position_++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) return true;
    }
    return false;
  }

  std::string_view bytes_;
  size_t position_ = 0;
  bool failed_ = false;
};

void AppendVarint(uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void AppendLengthDelimited(int number, std::string_view content, std::string& out) {
  AppendVarint((static_cast<uint64_t>(number) << 3) | kWireLength, out);
  AppendVarint(content.size(), out);
  out.append(content);
}

// A message type whose fields are all singular scalars (TaskLogInfo): for
// it MergeFrom is exactly the coalescing rule.
bool AllSingularScalars(const pb::Descriptor& type) {
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    if (field.is_repeated() || field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) return false;
  }
  return true;
}

bool IsField(const pb::Descriptor& type, const char* name, int number, bool repeated,
             const char* message_type) {
  const FieldDescriptor* field = type.FindFieldByName(name);
  if (field == nullptr || field->number() != number || field->is_repeated() != repeated)
    return false;
  if (message_type == nullptr) return field->message_type() == nullptr;
  return field->message_type() != nullptr && field->message_type()->full_name() == message_type;
}

}  // namespace

LifecycleWireMerge::LifecycleWireMerge() {
  const pb::Descriptor& event = *RayEvent::descriptor();
  const pb::Descriptor& lifecycle = *TaskLifecycleEvent::descriptor();
  const pb::Descriptor& transition = *TaskLifecycleEvent::StateTransition::descriptor();
  enabled_ = IsField(event, "event_id", kEventIdField, false, nullptr) &&
             IsField(event, "event_type", kEventTypeField, false, nullptr) &&
             IsField(event, "timestamp", kTimestampField, false, "google.protobuf.Timestamp") &&
             IsField(event, "task_lifecycle_event", kPayloadField, false,
                     "ray.rpc.events.TaskLifecycleEvent") &&
             IsField(lifecycle, "state_transitions", kTransitionsField, true,
                     "ray.rpc.events.TaskLifecycleEvent.StateTransition") &&
             transition.field_count() == 2 && IsField(transition, "state", 1, false, nullptr) &&
             IsField(transition, "timestamp", 2, false, "google.protobuf.Timestamp");
  for (int i = 0; i < event.field_count(); ++i) {
    const FieldDescriptor& field = *event.field(i);
    const bool blocked = field.is_repeated() ||
                         (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
                          field.number() != kTimestampField && field.number() != kPayloadField);
    if (envelope_blocked_.size() <= static_cast<size_t>(field.number())) {
      envelope_blocked_.resize(static_cast<size_t>(field.number()) + 1, false);
    }
    envelope_blocked_[static_cast<size_t>(field.number())] = blocked;
  }
  for (int i = 0; i < lifecycle.field_count(); ++i) {
    const FieldDescriptor& field = *lifecycle.field(i);
    if (field.number() == kTransitionsField) continue;
    const bool exclusive =
        field.is_repeated() || (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
                                !AllSingularScalars(*field.message_type()));
    if (payload_exclusive_.size() <= static_cast<size_t>(field.number())) {
      payload_exclusive_.resize(static_cast<size_t>(field.number()) + 1, false);
    }
    payload_exclusive_[static_cast<size_t>(field.number())] = exclusive;
  }
}

bool LifecycleWireMerge::Merge(std::span<const std::string_view> parts, std::string& merged) {
  if (!enabled_ || parts.size() < 2) return false;
  envelope_.clear();
  payload_.clear();
  transitions_.clear();
  exclusive_owner_.assign(payload_exclusive_.size(), -1);
  std::optional<uint64_t> event_type;
  for (size_t index = 0; index < parts.size(); ++index) {
    accumulated_ = transitions_.size();
    WireReader reader(parts[index]);
    bool has_payload = false;
    uint64_t type = 0;  // proto3 default when absent
    while (const std::optional<WireField> field = reader.Next()) {
      const auto number = static_cast<size_t>(field->number);
      if (number < envelope_blocked_.size() && envelope_blocked_[number]) return false;
      if (field->number == kPayloadField) {
        if (field->wire_type != kWireLength ||
            !ReadPayload(field->content, static_cast<int>(index))) {
          return false;
        }
        has_payload = true;
        continue;
      }
      if (field->number == kEventTypeField && field->wire_type == kWireVarint) type = field->varint;
      // The first event's identity and time stay.
      if (index > 0 && (field->number == kEventIdField || field->number == kTimestampField))
        continue;
      envelope_.append(field->whole);
    }
    if (reader.failed() || !has_payload) return false;
    if (event_type.has_value() && *event_type != type) return false;
    event_type = type;
  }
  // Union in received order, then a stable sort by time: ties keep it. An
  // insertion sort: a handful of transitions, mostly in order already, and
  // unlike std::stable_sort it allocates nothing.
  for (size_t i = 1; i < transitions_.size(); ++i) {
    const Transition moving = transitions_[i];
    size_t j = i;
    for (; j > 0 && Earlier(moving, transitions_[j - 1]); --j)
      transitions_[j] = transitions_[j - 1];
    transitions_[j] = moving;
  }
  for (const Transition& transition : transitions_) {
    AppendLengthDelimited(kTransitionsField, transition.bytes, payload_);
  }
  merged.clear();
  merged.reserve(envelope_.size() + payload_.size() + 8);
  merged.append(envelope_);
  AppendLengthDelimited(kPayloadField, payload_, merged);
  return true;
}

bool LifecycleWireMerge::ReadPayload(std::string_view payload_bytes, int part) {
  WireReader reader(payload_bytes);
  while (const std::optional<WireField> field = reader.Next()) {
    const auto number = static_cast<size_t>(field->number);
    if (field->number != kTransitionsField) {
      if (number < payload_exclusive_.size() && payload_exclusive_[number]) {
        if (exclusive_owner_[number] != -1 && exclusive_owner_[number] != part) return false;
        exclusive_owner_[number] = part;
      }
      payload_.append(field->whole);
      continue;
    }
    if (field->wire_type != kWireLength) return false;
    Transition transition{0, 0, 0, field->content};
    WireReader element(field->content);
    while (const std::optional<WireField> inner = element.Next()) {
      if (inner->number == 1 && inner->wire_type == kWireVarint) {
        transition.state = inner->varint;
      } else if (inner->number == 2 && inner->wire_type == kWireLength) {
        WireReader timestamp(inner->content);
        while (const std::optional<WireField> time_field = timestamp.Next()) {
          if (time_field->wire_type != kWireVarint) return false;
          if (time_field->number == 1) {
            transition.seconds = static_cast<int64_t>(time_field->varint);
          } else if (time_field->number == 2) {
            transition.nanos = static_cast<int32_t>(time_field->varint);
          } else {
            return false;
          }
        }
        if (timestamp.failed()) return false;
      } else {
        return false;  // a field the generic path would merge, not just compare
      }
    }
    if (element.failed()) return false;
    // Each (state, timestamp) once, against what earlier parts brought;
    // repeats within one event stay, as in the generic path.
    const auto same = std::find_if(
        transitions_.begin(), transitions_.begin() + static_cast<ptrdiff_t>(accumulated_),
        [&](const Transition& t) {
          return t.state == transition.state && t.seconds == transition.seconds &&
                 t.nanos == transition.nanos;
        });
    if (same != transitions_.begin() + static_cast<ptrdiff_t>(accumulated_)) {
      // Encoded differently (an explicit empty timestamp, say): the generic
      // merge would combine them; leave it to it.
      if (same->bytes != transition.bytes) return false;
      continue;
    }
    transitions_.push_back(transition);
  }
  return !reader.failed();
}

}  // namespace rayagg
