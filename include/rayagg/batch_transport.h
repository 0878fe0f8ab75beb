// Where a sink's encoded batches go. The sink owns batching, retry and
// accounting; a transport only attempts one delivery and reports the outcome.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "rayagg/awaitable.h"

namespace rayagg {

// Why an attempt failed, as a low-cardinality metric label
// (rayagg_sink_request_failures_total{reason}). Transports set the network
// and I/O reasons; the sink's retry policy (sinks/delivery_policy.h) derives
// the HTTP ones from the status. Append new reasons at the end.
enum class FailureReason {
  kOther,
  kHttp4xx,     // a 4xx without a reason of its own below
  kHttp5xx,     // a 5xx other than 501
  kHttpOther,   // 1xx as final answer, or a status above 599
  kTimeout,     // no complete answer within request_timeout (hung, dripping)
  kConnection,  // refused, reset, closed mid-response, DNS, protocol errors
  kIo,          // a file sink could not write
  kHttp3xx,     // redirect (never followed)
  kHttp408,
  kHttp413,  // the batch is split in halves
  kHttp429,
  kHttp501,
};
inline constexpr size_t kFailureReasonCount = 12;

constexpr std::string_view FailureReasonName(FailureReason reason) {
  switch (reason) {
    case FailureReason::kOther:
      return "other";
    case FailureReason::kHttp4xx:
      return "http_4xx";
    case FailureReason::kHttp5xx:
      return "http_5xx";
    case FailureReason::kHttpOther:
      return "http_other";
    case FailureReason::kTimeout:
      return "timeout";
    case FailureReason::kConnection:
      return "connection";
    case FailureReason::kIo:
      return "io";
    case FailureReason::kHttp3xx:
      return "http_3xx";
    case FailureReason::kHttp408:
      return "http_408";
    case FailureReason::kHttp413:
      return "http_413";
    case FailureReason::kHttp429:
      return "http_429";
    case FailureReason::kHttp501:
      return "http_501";
  }
  return "other";
}

// What one attempt did. Transports report facts; the sink's retry policy
// (sinks/delivery_policy.h) decides what they mean.
struct DeliveryOutcome {
  // A transport without statuses (file) succeeded. Ignored when `status` is set.
  bool delivered = false;
  // Short, payload-free description of a failure ("status 503", "timed out").
  std::string failure{};
  // Why it failed when no status arrived (timeout, connection, io).
  FailureReason reason = FailureReason::kOther;
  // The HTTP status of the answer, when one arrived.
  std::optional<unsigned> status = std::nullopt;
  // The answer's Retry-After header, raw.
  std::optional<std::string> retry_after = std::nullopt;
};

class BatchTransport {
 public:
  virtual ~BatchTransport() = default;

  // One attempt to deliver `body` (a JSON array). Runs on the sink's
  // executor; `body` stays alive until the returned awaitable completes.
  // Bounded by the transport's own deadline.
  virtual asio::awaitable<DeliveryOutcome> Deliver(std::string_view body) = 0;

  // Human-readable destination for logs (no secrets).
  virtual std::string Describe() const = 0;
};

}  // namespace rayagg
