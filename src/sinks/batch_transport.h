// Where a sink's encoded batches go. The sink owns batching, retry and
// accounting; a transport only attempts one delivery and reports the outcome.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/asio.h"

namespace rayagg {

struct DeliveryOutcome {
  bool delivered = false;
  // Short, payload-free description of a failure ("status 503", "timed out").
  std::string failure;
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
