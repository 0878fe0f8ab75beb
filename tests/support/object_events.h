// RayEvents as the object-store sink files them (a session, a node, a job),
// and what tests read its objects back with.
#pragma once

#include <cstdint>
#include <string>

// What these tests read the objects back with: the dir:// store and the layout's parsers.
#include "objstore/dir_object_store.h"
#include "objstore/rules/kuberay_layout.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::test {

inline constexpr char kSession[] = "session_2026-01-01_00-00-00_000000_1";

// A task definition of `job` (raw id bytes; "" for none) seen on `node` (raw
// bytes; "" for none), with a distinct event id and timestamp.
inline ray::rpc::events::RayEvent ObjectTestEvent(int64_t n, std::string session = kSession,
                                                  std::string node = "\x01\x02",
                                                  std::string job = "\x0a") {
  ray::rpc::events::RayEvent event;
  event.set_event_id("e" + std::to_string(n));
  event.set_session_name(std::move(session));
  event.set_node_id(std::move(node));
  event.mutable_timestamp()->set_seconds(1767225600 + n);
  if (job.empty()) {
    event.set_event_type(ray::rpc::events::RayEvent::NODE_DEFINITION_EVENT);
    event.mutable_node_definition_event()->set_node_id("\x01\x02");
  } else {
    event.set_event_type(ray::rpc::events::RayEvent::TASK_DEFINITION_EVENT);
    event.mutable_task_definition_event()->set_task_id("t" + std::to_string(n));
    event.mutable_task_definition_event()->set_job_id(std::move(job));
  }
  return event;
}

}  // namespace rayagg::test
