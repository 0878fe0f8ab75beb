#include "ingest/event_keys.h"

#include <array>
#include <string_view>
#include <tuple>

#include "absl/hash/hash.h"
#include "rayagg/incoming_event.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;

uint64_t EntityHash(int payload_field, std::string_view id, int64_t attempt = 0) {
  // Never 0: 0 is reserved for "not mergeable".
  const uint64_t hash = absl::Hash<std::tuple<int, std::string_view, int64_t>>{}(
      std::make_tuple(payload_field, id, attempt));
  return hash == 0 ? 1 : hash;
}

uint64_t EntityKeyOf(const ray::rpc::events::RayEvent& e) {
  using ray::rpc::events::RayEvent;
  if (e.has_task_definition_event()) {
    const auto& p = e.task_definition_event();
    return EntityHash(RayEvent::kTaskDefinitionEventFieldNumber, p.task_id(), p.task_attempt());
  }
  if (e.has_task_lifecycle_event()) {
    const auto& p = e.task_lifecycle_event();
    return EntityHash(RayEvent::kTaskLifecycleEventFieldNumber, p.task_id(), p.task_attempt());
  }
  if (e.has_actor_task_definition_event()) {
    const auto& p = e.actor_task_definition_event();
    return EntityHash(RayEvent::kActorTaskDefinitionEventFieldNumber, p.task_id(),
                      p.task_attempt());
  }
  if (e.has_task_profile_events()) {
    const auto& p = e.task_profile_events();
    return EntityHash(RayEvent::kTaskProfileEventsFieldNumber, p.task_id(), p.attempt_number());
  }
  if (e.has_driver_job_definition_event()) {
    return EntityHash(RayEvent::kDriverJobDefinitionEventFieldNumber,
                      e.driver_job_definition_event().job_id());
  }
  if (e.has_driver_job_lifecycle_event()) {
    return EntityHash(RayEvent::kDriverJobLifecycleEventFieldNumber,
                      e.driver_job_lifecycle_event().job_id());
  }
  if (e.has_node_definition_event()) {
    return EntityHash(RayEvent::kNodeDefinitionEventFieldNumber,
                      e.node_definition_event().node_id());
  }
  if (e.has_node_lifecycle_event()) {
    return EntityHash(RayEvent::kNodeLifecycleEventFieldNumber, e.node_lifecycle_event().node_id());
  }
  if (e.has_actor_definition_event()) {
    return EntityHash(RayEvent::kActorDefinitionEventFieldNumber,
                      e.actor_definition_event().actor_id());
  }
  if (e.has_actor_lifecycle_event()) {
    return EntityHash(RayEvent::kActorLifecycleEventFieldNumber,
                      e.actor_lifecycle_event().actor_id());
  }
  if (e.has_placement_group_definition_event()) {
    return EntityHash(RayEvent::kPlacementGroupDefinitionEventFieldNumber,
                      e.placement_group_definition_event().placement_group_id());
  }
  if (e.has_placement_group_lifecycle_event()) {
    return EntityHash(RayEvent::kPlacementGroupLifecycleEventFieldNumber,
                      e.placement_group_lifecycle_event().placement_group_id());
  }
  if (e.has_submission_job_definition_event()) {
    return EntityHash(RayEvent::kSubmissionJobDefinitionEventFieldNumber,
                      e.submission_job_definition_event().submission_id());
  }
  if (e.has_submission_job_lifecycle_event()) {
    return EntityHash(RayEvent::kSubmissionJobLifecycleEventFieldNumber,
                      e.submission_job_lifecycle_event().submission_id());
  }
  if (e.has_worker_definition_event()) {
    return EntityHash(RayEvent::kWorkerDefinitionEventFieldNumber,
                      e.worker_definition_event().worker_id());
  }
  if (e.has_worker_lifecycle_event()) {
    return EntityHash(RayEvent::kWorkerLifecycleEventFieldNumber,
                      e.worker_lifecycle_event().worker_id());
  }
  return 0;  // platform, autoscaler, or no payload: never merged
}

// Payload field numbers in EntityKeyOf's order, and whether their entity
// includes the attempt (field 2 of the payload, like its id is field 1).
struct PayloadKind {
  int field;
  bool with_attempt;
};
constexpr std::array<PayloadKind, 16> kPayloadKinds = {{
    {RayEvent::kTaskDefinitionEventFieldNumber, true},
    {RayEvent::kTaskLifecycleEventFieldNumber, true},
    {RayEvent::kActorTaskDefinitionEventFieldNumber, true},
    {RayEvent::kTaskProfileEventsFieldNumber, true},
    {RayEvent::kDriverJobDefinitionEventFieldNumber, false},
    {RayEvent::kDriverJobLifecycleEventFieldNumber, false},
    {RayEvent::kNodeDefinitionEventFieldNumber, false},
    {RayEvent::kNodeLifecycleEventFieldNumber, false},
    {RayEvent::kActorDefinitionEventFieldNumber, false},
    {RayEvent::kActorLifecycleEventFieldNumber, false},
    {RayEvent::kPlacementGroupDefinitionEventFieldNumber, false},
    {RayEvent::kPlacementGroupLifecycleEventFieldNumber, false},
    {RayEvent::kSubmissionJobDefinitionEventFieldNumber, false},
    {RayEvent::kSubmissionJobLifecycleEventFieldNumber, false},
    {RayEvent::kWorkerDefinitionEventFieldNumber, false},
    {RayEvent::kWorkerLifecycleEventFieldNumber, false},
}};

// Reads protobuf wire format; every method returns false on malformed input.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())), end_(p_ + bytes.size()) {}

  bool AtEnd() const { return p_ == end_; }

  bool Varint(uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      const uint8_t byte = *p_++;
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if (byte < 0x80) return true;
    }
    return false;
  }

  bool Bytes(std::string_view& out) {
    uint64_t length = 0;
    if (!Varint(length) || length > static_cast<uint64_t>(end_ - p_)) return false;
    out = std::string_view(reinterpret_cast<const char*>(p_), length);
    p_ += length;
    return true;
  }

  // Skips a value of `wire_type`; groups are not followed.
  bool Skip(int wire_type) {
    uint64_t ignored = 0;
    std::string_view bytes;
    switch (wire_type) {
      case 0:
        return Varint(ignored);
      case 1:
        return Advance(8);
      case 2:
        return Bytes(bytes);
      case 5:
        return Advance(4);
      default:
        return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) return false;
    p_ += n;
    return true;
  }

  const uint8_t* p_;
  const uint8_t* end_;
};

struct PayloadFacts {
  bool present = false;
  std::string_view id;
  int32_t attempt = 0;
};

bool ReadPayload(std::string_view bytes, PayloadFacts& facts) {
  facts.present = true;
  WireReader in(bytes);
  while (!in.AtEnd()) {
    uint64_t tag = 0;
    if (!in.Varint(tag)) return false;
    const uint64_t number = tag >> 3;
    const int wire_type = static_cast<int>(tag & 7);
    if (number == 1 && wire_type == 2) {
      if (!in.Bytes(facts.id)) return false;
    } else if (number == 2 && wire_type == 0) {
      uint64_t attempt = 0;
      if (!in.Varint(attempt)) return false;
      facts.attempt = static_cast<int32_t>(attempt);
    } else if (number == 0 || !in.Skip(wire_type)) {
      return false;
    }
  }
  return true;
}

constexpr uint32_t PayloadFieldMask() {
  uint32_t mask = 0;
  for (const PayloadKind& kind : kPayloadKinds) mask |= uint32_t{1} << kind.field;
  return mask;
}

}  // namespace

std::optional<WireEventFacts> FactsOfWire(std::string_view wire) {
  std::array<PayloadFacts, 32> payloads{};
  std::string_view event_id;
  int32_t event_type = 0;
  WireReader in(wire);
  while (!in.AtEnd()) {
    uint64_t tag = 0;
    if (!in.Varint(tag)) return std::nullopt;
    const uint64_t number = tag >> 3;
    const int wire_type = static_cast<int>(tag & 7);
    if (number == 1 && wire_type == 2) {
      if (!in.Bytes(event_id)) return std::nullopt;
    } else if (number == 3 && wire_type == 0) {
      uint64_t type = 0;
      if (!in.Varint(type)) return std::nullopt;
      event_type = static_cast<int32_t>(type);
    } else if (number < payloads.size() && (PayloadFieldMask() >> number & 1) != 0 &&
               wire_type == 2) {
      std::string_view payload;
      if (!in.Bytes(payload) || !ReadPayload(payload, payloads[number])) return std::nullopt;
    } else if (number == 0 || !in.Skip(wire_type)) {
      return std::nullopt;
    }
  }
  WireEventFacts facts{event_type, EventKeys{HashEventId(event_id), 0}};
  for (const PayloadKind& kind : kPayloadKinds) {
    const PayloadFacts& payload = payloads[kind.field];
    if (!payload.present) continue;
    facts.keys.entity_key =
        EntityHash(kind.field, payload.id, kind.with_attempt ? payload.attempt : 0);
    break;
  }
  return facts;
}

EventKeys KeysOf(const ray::rpc::events::RayEvent& event) {
  const uint64_t id_hash = HashEventId(event.event_id());
  return EventKeys{id_hash, EntityKeyOf(event)};
}

}  // namespace rayagg
