#include "ingest/event_keys.h"

#include <string_view>
#include <tuple>

#include "absl/hash/hash.h"
#include "rayagg/incoming_event.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {
namespace {

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

}  // namespace

EventKeys KeysOf(const ray::rpc::events::RayEvent& event) {
  const uint64_t id_hash = HashEventId(event.event_id());
  return EventKeys{id_hash, EntityKeyOf(event)};
}

}  // namespace rayagg
