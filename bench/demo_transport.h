// How rayagg-demo-cluster delivers a node's flush: Ray's two wire formats,
// gRPC AddEvents (as the core worker sends to its agent) and the JSON array
// Ray's HTTP publisher POSTs (Content-Type: application/json), each request
// retried after a failure with Ray's backoff (10 ms doubling to 5 s, ±10 %)
// until it is accepted or `give_up_after` has passed.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/ray/protobuf/events_event_aggregator_service.pb.h"

namespace rayagg::bench {

class DemoTransport {
 public:
  virtual ~DemoTransport() = default;
  // One try; OK only for gRPC OK or an HTTP 2xx.
  virtual absl::Status SendOnce(const ray::rpc::events::AddEventsRequest& request) = 0;
  virtual std::string Describe() const = 0;
};

// `target` is host:port. Each try has a 3 s deadline (Ray's publisher's).
std::unique_ptr<DemoTransport> MakeGrpcTransport(const std::string& target);
// `url` is http://host:port[/path]; without a path, Ray's /v1/events.
absl::StatusOr<std::unique_ptr<DemoTransport>> MakeHttpTransport(const std::string& url);

struct SendTotals {
  uint64_t requests = 0, retries = 0;
};

// Sends `request` until a try succeeds; the last error once `give_up_after`
// has passed since the first try, or CANCELLED as soon as `stop()` says so
// (a signal: the demo must not wait out its backoff to exit).
absl::Status SendWithRetries(DemoTransport& transport,
                             const ray::rpc::events::AddEventsRequest& request,
                             std::chrono::milliseconds give_up_after,
                             const std::function<bool()>& stop, SendTotals& totals);

}  // namespace rayagg::bench
