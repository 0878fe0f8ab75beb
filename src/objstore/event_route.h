// Where the history-server layout files one serialized RayEvent: its
// session, node and category (node_events or job_events/<job>), read from
// the wire bytes without building a message. The routing rule is the KubeRay
// collector's (../shared/reference/history-server.md §2.3): node definition
// and lifecycle events go to node_events; an event whose payload is one of
// the task, actor-task, profile, driver-job or actor-definition messages
// with a non-empty job id goes to job_events/<hex>; everything else
// (actor lifecycle, placement groups, workers, submission jobs, autoscaler,
// platform) goes to node_events.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace rayagg {

struct EventRoute {
  int32_t event_type = 0;
  std::string_view session_name;  // views into the serialized event
  std::string_view node_id;       // raw bytes; empty when the event has none
  std::string_view job_id;        // raw bytes; empty: node_events
  // RayEvent.timestamp; 0 when absent.
  int64_t timestamp_nanos = 0;
};

// Fails (INVALID_ARGUMENT) only on bytes that are not a well-formed message
// at the levels it reads.
absl::StatusOr<EventRoute> ScanEventRoute(std::string_view serialized_event);

}  // namespace rayagg
