// Turns the wire bytes of an AddEventsRequest into IncomingEvents without
// re-serializing anything: each event keeps the exact bytes the sender wrote
// (unknown fields included), and is parsed once only to validate it and to
// extract its type and keys.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "rayagg/incoming_event.h"

namespace rayagg {

struct DecodedRequest {
  std::vector<IncomingEvent> events;  // views into the decoded bytes
  // Task attempts the sender reported as dropped (task_events_metadata).
  uint64_t dropped_task_attempts = 0;
};

// `wire` must outlive the returned views. Returns InvalidArgument for bytes
// that are not a valid AddEventsRequest.
absl::StatusOr<DecodedRequest> DecodeAddEventsRequest(std::string_view wire);

}  // namespace rayagg
