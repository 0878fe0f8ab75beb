// The contract between ingest (gRPC, HTTP) and the event log.
#pragma once

#include <optional>
#include <span>
#include <string>

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
  // UNAVAILABLE means backpressure: a `when_full: block` sink is full (the
  // message names it); the sender should retry later (gRPC UNAVAILABLE, HTTP
  // 503 with Retry-After). Thread-safe.
  virtual absl::Status Append(std::span<const IncomingEvent> events) = 0;

  // The name of a `when_full: block` sink that is full right now (so Append
  // would refuse even a small request), if any. For readiness and HTTP 503
  // answers; Append decides for itself. Thread-safe.
  virtual std::optional<std::string> FullBlockingSink() const { return std::nullopt; }
};

}  // namespace rayagg
