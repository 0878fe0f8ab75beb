// The contract between ingest (gRPC, HTTP) and the event log.
#pragma once

#include <functional>
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

  // The form ingest uses: `done` gets what Append would return, at once or
  // later on another thread — with a disk spool, once the events are written
  // (docs/DELIVERY.md, "What an acknowledgement means"), so no ingest thread
  // waits on the disk. The events are copied before this returns. `done`
  // must be cheap (finish a gRPC call, post an HTTP answer). Thread-safe.
  using AppendDone = std::function<void(absl::Status)>;
  virtual void AppendAsync(std::span<const IncomingEvent> events, AppendDone done) {
    done(Append(events));
  }

  // The name of a `when_full: block` sink that is full right now (so Append
  // would refuse even a small request), if any. For readiness and HTTP 503
  // answers; Append decides for itself. Thread-safe.
  virtual std::optional<std::string> FullBlockingSink() const { return std::nullopt; }
};

}  // namespace rayagg
