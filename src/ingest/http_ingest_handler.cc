#include "ingest/http_ingest_handler.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/event_type_names.h"
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

// The event type a rejected element claims, for the drop counter's label:
// its number when the name or number is known to this build, else 0
// (EVENT_TYPE_UNSPECIFIED, rendered as "unknown" event type).
int32_t ClaimedEventType(const Json& element) {
  if (!element.is_object()) return 0;
  for (const char* key : {"eventType", "event_type"}) {
    auto it = element.find(key);
    if (it == element.end()) continue;
    if (it->is_string()) return EventTypeFromName(it->get_ref<const std::string&>()).value_or(0);
    if (it->is_number_integer()) {
      const int64_t number = it->get<int64_t>();
      return number > 0 && number <= MaxKnownEventType() ? static_cast<int32_t>(number) : 0;
    }
  }
  return 0;
}

}  // namespace

HttpIngestHandler::HttpIngestHandler(EventAppender& appender, IngestCounters& counters,
                                     spdlog::logger& logger, uint64_t max_body_bytes)
    : appender_(appender), counters_(counters), logger_(logger), max_body_bytes_(max_body_bytes) {}

HttpServerResponse HttpIngestHandler::Handle(HttpRequest& request) {
  counters_.requests.fetch_add(1, std::memory_order_relaxed);
  counters_.http_requests.fetch_add(1, std::memory_order_relaxed);
  const auto encoding = request[http::field::content_encoding];
  absl::StatusOr<std::string> body = DecodeContentEncoding(
      std::string_view(encoding.data(), encoding.size()), std::move(request.body()),
      max_body_bytes_);
  if (!body.ok()) {
    counters_.rejected_requests.fetch_add(1, std::memory_order_relaxed);
    const std::string message(body.status().message());
    logger_.warn("rejected HTTP ingest request: {}", message);
    switch (body.status().code()) {
      case absl::StatusCode::kResourceExhausted:
        return ErrorResponse(request, http::status::payload_too_large, message);
      case absl::StatusCode::kUnimplemented:
        return ErrorResponse(request, http::status::unsupported_media_type, message);
      default:
        return ErrorResponse(request, http::status::bad_request, message);
    }
  }

  // Parsing cannot throw: errors are reported through `discarded`.
  const Json array = Json::parse(*body, nullptr, /*allow_exceptions=*/false);
  if (!array.is_array()) {
    counters_.rejected_requests.fetch_add(1, std::memory_order_relaxed);
    const std::string message = array.is_discarded() ? "body is not valid JSON"
                                                     : "body is not a JSON array of events";
    logger_.warn("rejected HTTP ingest request: {} bytes={}", message, body->size());
    return ErrorResponse(request, http::status::bad_request, message);
  }
  counters_.received_events.fetch_add(array.size(), std::memory_order_relaxed);

  // Serialized events first (IncomingEvent holds views), then the views.
  std::vector<std::string> serialized;
  std::vector<IncomingEvent> events;
  serialized.reserve(array.size());
  events.reserve(array.size());
  Json rejected = Json::array();
  ray::rpc::events::RayEvent event;
  for (size_t index = 0; index < array.size(); ++index) {
    event.Clear();
    const absl::Status parsed = JsonToMessage(array[index], event);
    if (!parsed.ok()) {
      const int32_t type = ClaimedEventType(array[index]);
      counters_.drops.Add(DropReason::kBadElement, type);
      rejected.push_back(Json{{"index", index}, {"reason", std::string(parsed.message())}});
      continue;
    }
    const EventKeys keys = KeysOf(event);
    serialized.push_back(event.SerializeAsString());
    events.push_back(IncomingEvent{{}, static_cast<int32_t>(event.event_type()),
                                   keys.event_id_hash, keys.entity_key});
  }
  for (size_t i = 0; i < events.size(); ++i) events[i].bytes = serialized[i];
  if (!rejected.empty()) {
    // Positions only: reasons may quote values, and event contents never reach the log.
    logger_.warn("HTTP ingest dropped {} of {} elements as bad_element (first: #{})",
                 rejected.size(), array.size(), rejected[0]["index"].get<size_t>());
  }

  if (absl::Status appended = appender_.Append(events); !appended.ok()) {
    counters_.refused_requests.fetch_add(1, std::memory_order_relaxed);
    HttpServerResponse response = ErrorResponse(request, http::status::service_unavailable,
                                                std::string(appended.message()));
    response.set(http::field::retry_after, "1");
    return response;
  }
  counters_.accepted_events.fetch_add(events.size(), std::memory_order_relaxed);
  return JsonResponse(request, http::status::ok,
                      Json{{"accepted", events.size()}, {"rejected", std::move(rejected)}});
}

}  // namespace rayagg
