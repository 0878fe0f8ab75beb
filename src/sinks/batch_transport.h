// Where a sink's encoded batches go. The sink owns batching, retry and
// accounting; a transport only attempts one delivery and reports the outcome.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/asio.h"

namespace rayagg {

// Why an attempt failed, as a low-cardinality metric label
// (rayagg_sink_request_failures_total{reason}).
enum class FailureReason { kOther, kHttp4xx, kHttp5xx, kHttpOther, kTimeout, kConnection, kIo };
inline constexpr size_t kFailureReasonCount = 7;

constexpr std::string_view FailureReasonName(FailureReason reason) {
  switch (reason) {
    case FailureReason::kOther: return "other";
    case FailureReason::kHttp4xx: return "http_4xx";
    case FailureReason::kHttp5xx: return "http_5xx";
    case FailureReason::kHttpOther: return "http_other";
    case FailureReason::kTimeout: return "timeout";
    case FailureReason::kConnection: return "connection";
    case FailureReason::kIo: return "io";
  }
  return "other";
}

struct DeliveryOutcome {
  bool delivered = false;
  // Short, payload-free description of a failure ("status 503", "timed out").
  std::string failure;
  FailureReason reason = FailureReason::kOther;  // meaningful when !delivered
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
