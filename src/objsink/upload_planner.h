// What the object-store sink does with an object after each attempt to
// upload it, from the store's answer (an absl::Status whose code the
// backends set: include/rayagg/object_store.h). docs/DELIVERY.md has the
// table:
//   OK                                   done
//   ALREADY_EXISTS                       the name is taken: upload under a new name at once
//   UNAVAILABLE, DEADLINE_EXCEEDED,      transient (SlowDown, 5xx, timeouts, resets):
//   other codes not below                retry with the jittered backoff, within
//                                        retry.max_retries and retry.max_elapsed
//   UNAUTHENTICATED, PERMISSION_DENIED,  needs an operator (credentials, permissions,
//   FAILED_PRECONDITION, NOT_FOUND       bucket): retry every retry.max_backoff without
//                                        limit, so fixing it delivers everything held
//   DATA_LOSS                            the body arrived damaged: retried 3 times, then
//                                        dropped as `rejected`
//   INVALID_ARGUMENT                     a key or metadata the store can never accept:
//                                        dropped as `rejected`
// While draining, an attempt at or after the drain deadline drops the object
// (`shutdown`) and no wait passes the deadline.
//
// Pure: times and the random draw are passed in (tests/unit/objsink).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "rayagg/config.h"
#include "rayagg/drop_reason.h"
#include "sinks/backoff.h"
#include "sinks/delivery_planner.h"

namespace rayagg {

// One object's upload so far; the caller keeps it across attempts.
struct UploadHistory {
  SteadyTime first_attempt{};
  uint64_t retries = 0;          // retries decided so far
  uint64_t data_loss_count = 0;  // DATA_LOSS answers so far
};

struct UploadDecision {
  enum class Action {
    kDone,
    kRekey,  // upload again at once under a new name
    kRetry,  // attempt again at retry_at
    kDrop,   // give the object up, counted under drop_reason
  };
  Action action = Action::kDone;
  // kRetry: the failure needs an operator (logged once per change of reason).
  bool needs_operator = false;
  DropReason drop_reason = DropReason::kShutdown;
  SteadyTime retry_at{};
  Duration wait{0};
};

class UploadPlanner {
 public:
  static constexpr uint64_t kMaxDataLossAttempts = 4;  // the first and 3 retries

  explicit UploadPlanner(const RetryConfig& retry);

  // After an attempt that ended in `status`. Updates `history` (retries and
  // DATA_LOSS answers) when the decision is kRetry.
  UploadDecision AfterAttempt(const absl::Status& status, UploadHistory& history,
                              const DeliveryTimes& times, double unit_random) const;

 private:
  RetryConfig retry_;
  Backoff backoff_;
};

}  // namespace rayagg
