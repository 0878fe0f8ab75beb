// What a sink does with a batch after each attempt to deliver it: done,
// split, drop (with the reason it is counted under) or retry at a given
// time. It applies the retry policy's table (delivery_policy.h), the retry
// limits (max_retries, max_elapsed), Retry-After within max_retry_after, the
// jittered backoff and the drain deadline, as docs/DELIVERY.md describes.
//
// Pure: the caller passes every time and the random draw, so each rule is
// tested with plain values (tests/unit/sinks/delivery_planner_test.cc). It
// reads no clock, waits on nothing and logs nothing; the sink acts on what it
// returns (counters, logs, the wait).
//
// Every time it returns to wait for (FirstAttemptAt, a retry's retry_at) is
// at or before the drain deadline of the DeliveryTimes it was given, so the
// sink waits for it as it is; a drain that starts during such a wait cuts it
// short (Sink::Drain cancels the waits).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "rayagg/batch_transport.h"
#include "rayagg/config.h"
#include "rayagg/drop_reason.h"
#include "sinks/backoff.h"

namespace rayagg {

// The same as rayagg/clock.h's, without pulling Asio into a pure header.
using SteadyTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

// One batch's delivery so far; the caller keeps it across attempts.
struct DeliveryHistory {
  SteadyTime first_attempt;  // when its first attempt started
  uint64_t retries = 0;      // retries decided so far (0 during the first attempt)
};

// The times a decision depends on.
struct DeliveryTimes {
  SteadyTime now;
  // For a Retry-After given as an HTTP date.
  WallTime wall_now;
  // Set while the sink drains: after it, the batch is dropped (`shutdown`).
  std::optional<SteadyTime> drain_deadline = std::nullopt;
};

struct DeliveryDecision {
  enum class Action {
    kDone,   // delivered
    kSplit,  // 413 on more than one event: deliver each half on its own
    kDrop,   // give the batch up, counted under `drop_reason`
    kRetry,  // attempt it again at `retry_at`
  };
  Action action = Action::kDone;
  // Why the attempt failed (all but kDone): the metric label and the logs.
  FailureReason failure = FailureReason::kOther;
  DropReason drop_reason = DropReason::kShutdown;  // kDrop only
  SteadyTime retry_at{};                           // kRetry only
  // For the logs: kRetry's wait from now to retry_at, and the time since
  // the first attempt (every failure).
  Duration wait{0};
  Duration elapsed{0};
};

class DeliveryPlanner {
 public:
  DeliveryPlanner(const RetryConfig& retry, RetryPolicy policy);

  // Before an attempt: whether the drain deadline has passed, so the batch
  // is to be dropped (`shutdown`) instead of sent.
  static bool DrainExpired(const DeliveryTimes& times);

  // When a batch that the rate limit lets go at `rate_not_before` is first
  // attempted: then, or at the drain deadline if that is earlier (where the
  // attempt finds the drain expired and drops the batch as `shutdown`).
  static SteadyTime FirstAttemptAt(SteadyTime rate_not_before, const DeliveryTimes& times);

  // The retry limits every sink applies (the object-store sink's
  // UploadPlanner too): whether what failed after `retries` retries, `elapsed`
  // after its first attempt, is given up (`retries_exhausted`) under
  // max_retries and max_elapsed.
  static bool RetriesExhausted(const RetryConfig& retry, uint64_t retries, Duration elapsed);
  // `retry_at` no later than the last moment max_elapsed (when set) allows:
  // one last attempt then, rather than sleeping past it.
  static SteadyTime WithinMaxElapsed(const RetryConfig& retry, SteadyTime retry_at,
                                     SteadyTime first_attempt);
  // `at` no later than the drain deadline, while draining: the attempt there
  // finds the drain expired unless an earlier one succeeded.
  static SteadyTime WithinDrain(SteadyTime at, const DeliveryTimes& times);

  // After an attempt that ended in `outcome`, for a batch of `events`
  // elements. `unit_random` is uniform in [0, 1) (the backoff's jitter).
  DeliveryDecision AfterAttempt(const DeliveryOutcome& outcome, size_t events,
                                const DeliveryHistory& history, const DeliveryTimes& times,
                                double unit_random) const;

 private:
  RetryConfig retry_;
  RetryPolicy policy_;
  Backoff backoff_;
};

}  // namespace rayagg
