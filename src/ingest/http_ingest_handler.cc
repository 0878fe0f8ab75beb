#include "ingest/http_ingest_handler.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "http/content_encoding.h"
#include "ingest/event_keys.h"
#include "ingest/json_event_parser.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kJson = "application/json";

HttpServerResponse JsonResponse(const HttpRequest& request, http::status status, const Json& body) {
  // dump() escapes non-ASCII (ensure_ascii) and never throws on our own strings.
  return MakeHttpResponse(request, status,
                          body.dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace),
                          kJson);
}

HttpServerResponse ErrorResponse(const HttpRequest& request, http::status status,
                                 std::string message) {
  return JsonResponse(request, status, Json{{"error", std::move(message)}});
}

}  // namespace

HttpIngestHandler::HttpIngestHandler(EventAppender& appender, IngestCounters& counters,
                                     spdlog::logger& logger, uint64_t max_body_bytes)
    : appender_(appender), counters_(counters), logger_(logger), max_body_bytes_(max_body_bytes) {}

void HttpIngestHandler::HandleAsync(HttpRequest& request, HttpResponder respond) {
  counters_.requests.fetch_add(1, std::memory_order_relaxed);
  counters_.http_requests.fetch_add(1, std::memory_order_relaxed);
  const auto encoding = request[http::field::content_encoding];
  absl::StatusOr<std::string> body =
      DecodeContentEncoding(std::string_view(encoding.data(), encoding.size()),
                            std::move(request.body()), max_body_bytes_);
  if (!body.ok()) {
    counters_.rejected_requests.fetch_add(1, std::memory_order_relaxed);
    const std::string message(body.status().message());
    if (auto suppressed = reject_log_limiter_.Allow()) {
      logger_.warn("rejected HTTP ingest request: {} suppressed_warnings={}", message, *suppressed);
    }
    switch (body.status().code()) {
      case absl::StatusCode::kResourceExhausted:
        respond(ErrorResponse(request, http::status::payload_too_large, message));
        return;
      case absl::StatusCode::kUnimplemented:
        respond(ErrorResponse(request, http::status::unsupported_media_type, message));
        return;
      default:
        respond(ErrorResponse(request, http::status::bad_request, message));
        return;
    }
  }

  // One pass over the text, no DOM (ingest/json_event_parser.h); what it
  // reports only counts once the whole body turned out to be a JSON array.
  std::vector<std::string> serialized;  // IncomingEvent holds views of these
  std::vector<IncomingEvent> events;
  struct Rejection {
    size_t index;
    int32_t claimed_type;
    std::string reason;
  };
  std::vector<Rejection> rejections;
  const absl::Status parsed = ParseEventArray(
      *body, EventArrayCallbacks{
                 .on_event =
                     [&](size_t, ray::rpc::events::RayEvent& event) {
                       const EventKeys keys = KeysOf(event);
                       serialized.push_back(event.SerializeAsString());
                       events.push_back(IncomingEvent{{},
                                                      static_cast<int32_t>(event.event_type()),
                                                      keys.event_id_hash,
                                                      keys.entity_key});
                     },
                 .on_error =
                     [&](size_t index, int32_t claimed_type, std::string reason) {
                       rejections.push_back(Rejection{index, claimed_type, std::move(reason)});
                     }});
  if (!parsed.ok()) {
    counters_.rejected_requests.fetch_add(1, std::memory_order_relaxed);
    const std::string message(parsed.message());
    if (auto suppressed = reject_log_limiter_.Allow()) {
      logger_.warn("rejected HTTP ingest request: {} bytes={} suppressed_warnings={}", message,
                   body->size(), *suppressed);
    }
    respond(ErrorResponse(request, http::status::bad_request, message));
    return;
  }
  const size_t elements = events.size() + rejections.size();
  counters_.received_events.fetch_add(elements, std::memory_order_relaxed);
  Json rejected = Json::array();
  for (Rejection& rejection : rejections) {
    counters_.drops.Add(DropReason::kBadElement, rejection.claimed_type);
    rejected.push_back(Json{{"index", rejection.index}, {"reason", std::move(rejection.reason)}});
  }
  for (size_t i = 0; i < events.size(); ++i) events[i].bytes = serialized[i];
  if (!rejected.empty()) {
    // Positions only: reasons may quote values, and event contents never reach the log.
    if (auto suppressed = bad_element_log_limiter_.Allow()) {
      logger_.warn(
          "HTTP ingest dropped {} of {} elements as bad_element (first: #{}) "
          "suppressed_warnings={}",
          rejections.size(), elements, rejections.front().index, *suppressed);
    }
  }

  // `request` stays valid until `respond` is called (HttpServer's contract).
  appender_.AppendAsync(
      events, [this, &request, accepted = events.size(), rejected = std::move(rejected),
               respond = std::move(respond)](absl::Status appended) mutable {
        if (!appended.ok()) {
          counters_.refused_requests.fetch_add(1, std::memory_order_relaxed);
          HttpServerResponse response = ErrorResponse(request, http::status::service_unavailable,
                                                      std::string(appended.message()));
          response.set(http::field::retry_after, "1");
          respond(std::move(response));
          return;
        }
        counters_.accepted_events.fetch_add(accepted, std::memory_order_relaxed);
        respond(JsonResponse(request, http::status::ok,
                             Json{{"accepted", accepted}, {"rejected", std::move(rejected)}}));
      });
}

}  // namespace rayagg
