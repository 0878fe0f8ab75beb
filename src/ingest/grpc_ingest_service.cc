#include "ingest/grpc_ingest_service.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <string>
#include <string_view>

#include "ingest/add_events_decoder.h"

namespace rayagg {
namespace {

grpc::StatusCode ToGrpcCode(absl::StatusCode code) {
  // absl and gRPC canonical codes share their numbering.
  return static_cast<grpc::StatusCode>(static_cast<int>(code));
}

// The call's "authorization" metadata, if it has one.
std::optional<std::string_view> AuthorizationOf(const grpc::CallbackServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) return std::nullopt;
  return std::string_view(it->second.data(), it->second.size());
}

}  // namespace

GrpcIngestService::GrpcIngestService(EventAppender& appender, IngestCounters& counters,
                                     spdlog::logger& logger, BearerTokenChecker auth, Clock& clock)
    : appender_(appender),
      counters_(counters),
      logger_(logger),
      auth_(std::move(auth)),
      clock_(clock) {}

grpc::ServerUnaryReactor* GrpcIngestService::AddEvents(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  // Ray's agent checks the token in an interceptor, before the handler: an
  // unauthenticated call is not counted as a request and never decoded.
  if (!auth_.Allows(AuthorizationOf(*context))) {
    counters_.unauthenticated_requests.fetch_add(1, std::memory_order_relaxed);
    reactor->Finish(
        grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                     "missing or invalid authorization bearer token (RAY_AUTH_MODE=token)"));
    return reactor;
  }
  Handle(*request, *response, [reactor](grpc::Status status) { reactor->Finish(status); });
  return reactor;
}

void GrpcIngestService::Handle(const grpc::ByteBuffer& request, grpc::ByteBuffer& response,
                               std::function<void(grpc::Status)> finish) {
  counters_.requests.fetch_add(1, std::memory_order_relaxed);
  grpc::Slice slice;
  if (!request.DumpToSingleSlice(&slice).ok()) {
    // No payload at all (an empty message is a payload of 0 bytes): the call
    // was cut off before its message arrived, e.g. by gRPC's resource quota.
    // The client already has gRPC's status; this one is never seen.
    counters_.no_message_requests.fetch_add(1, std::memory_order_relaxed);
    finish(grpc::Status(grpc::StatusCode::CANCELLED, "the request message never arrived"));
    return;
  }
  const std::string_view wire(reinterpret_cast<const char*>(slice.begin()), slice.size());
  absl::StatusOr<DecodedRequest> decoded = DecodeAddEventsRequest(wire);
  if (!decoded.ok()) {
    counters_.rejected_requests.fetch_add(1, std::memory_order_relaxed);
    // The message names the defect, never event contents.
    if (auto suppressed = reject_log_limiter_.Allow(clock_.Now())) {
      logger_.warn("rejected AddEvents request: {} bytes={} suppressed_warnings={}",
                   std::string(decoded.status().message()), wire.size(), *suppressed);
    }
    finish(
        grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(decoded.status().message())));
    return;
  }
  counters_.received_events.fetch_add(decoded->events.size(), std::memory_order_relaxed);
  counters_.sender_dropped_task_attempts.fetch_add(decoded->dropped_task_attempts,
                                                   std::memory_order_relaxed);
  const size_t events = decoded->events.size();
  appender_.AppendAsync(decoded->events, [this, events, &response,
                                          finish = std::move(finish)](absl::Status appended) {
    if (!appended.ok()) {
      counters_.refused_requests.fetch_add(1, std::memory_order_relaxed);
      finish(grpc::Status(ToGrpcCode(appended.code()), std::string(appended.message())));
      return;
    }
    counters_.accepted_events.fetch_add(events, std::memory_order_relaxed);
    // Ray's agent always answers an empty AddEventsReply (status unset = OK).
    grpc::Slice empty_reply;
    response = grpc::ByteBuffer(&empty_reply, 1);
    finish(grpc::Status::OK);
  });
}

}  // namespace rayagg
