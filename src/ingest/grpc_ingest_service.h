// /ray.rpc.events.EventAggregatorService/AddEvents, callback API.
//
// The method is registered raw (ByteBuffer in, ByteBuffer out) so that the
// request is decoded once by AddEventsDecoder into views of the received
// bytes: events are stored exactly as sent (no re-serialization), and a
// payload that is not an AddEventsRequest gets INVALID_ARGUMENT instead of
// the generic error gRPC's own deserializer would produce.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>

#include "ingest/bearer_token_checker.h"
#include "ingest/ingest_counters.h"
#include "ops/log_rate_limiter.h"
#include "rayagg/clock.h"
#include "rayagg/event_appender.h"
#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"

namespace spdlog {
class logger;
}

namespace rayagg {

class GrpcIngestService final
    : public ray::rpc::events::EventAggregatorService::WithRawCallbackMethod_AddEvents<
          ray::rpc::events::EventAggregatorService::Service> {
 public:
  // With `auth` required, calls without Ray's token get UNAUTHENTICATED.
  // `clock` (for log rate limiting) outlives the service.
  GrpcIngestService(EventAppender& appender, IngestCounters& counters, spdlog::logger& logger,
                    BearerTokenChecker auth, Clock& clock);

  // Runs on a gRPC callback thread. Never blocks: decode and append; the
  // call finishes once the log has the events (with a spool: once they are
  // written, from the spool's writer thread).
  grpc::ServerUnaryReactor* AddEvents(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;

  bool auth_required() const { return auth_.required(); }

 private:
  // Decodes and appends; calls `finish` exactly once with the answer.
  void Handle(const grpc::ByteBuffer& request, grpc::ByteBuffer& response,
              std::function<void(grpc::Status)> finish);

  EventAppender& appender_;
  IngestCounters& counters_;
  spdlog::logger& logger_;
  const BearerTokenChecker auth_;
  Clock& clock_;
  // A sender stuck re-sending a bad request must not flood the log.
  LogRateLimiter reject_log_limiter_{std::chrono::seconds(10)};
};

}  // namespace rayagg
