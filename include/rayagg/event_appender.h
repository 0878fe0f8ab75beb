// The contract between ingest (gRPC, HTTP) and the event log.
#pragma once

#include <span>

#include "absl/status/status.h"
#include "rayagg/incoming_event.h"

namespace rayagg {

class EventAppender {
 public:
  virtual ~EventAppender() = default;

  // Inserts a whole request's events atomically with respect to readers: a
  // sink sees all of them or none. Never blocks on a sink. Returns OK once the
  // events are held (or counted as dropped by the overflow policy); a non-OK
  // status means nothing was inserted and the caller should report it.
  // Thread-safe.
  virtual absl::Status Append(std::span<const IncomingEvent> events) = 0;
};

}  // namespace rayagg
