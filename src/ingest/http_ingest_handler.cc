#include "ingest/http_ingest_handler.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "http/content_encoding.h"
#include "ingest/browser_content_type.h"
#include "ingest/event_keys.h"
#include "json/event_json_parser.h"
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

// The transcoder's own output is always readable by FactsOfWire; parsing is
// the safety net, not a path taken.
WireEventFacts FactsByParsing(std::string_view bytes) {
  ray::rpc::events::RayEvent event;
  if (!event.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return {};
  return WireEventFacts{static_cast<int32_t>(event.event_type()), KeysOf(event)};
}

}  // namespace

struct HttpIngestHandler::Workspace {
  explicit Workspace(std::shared_ptr<const WireSchema> schema) : parser(std::move(schema)) {}
  EventJsonParser parser;
  EventJsonBatch batch;
  std::vector<IncomingEvent> events;  // views into batch
};

HttpIngestHandler::HttpIngestHandler(EventAppender& appender, IngestCounters& counters,
                                     spdlog::logger& logger, uint64_t max_body_bytes, Clock& clock)
    : appender_(appender),
      counters_(counters),
      logger_(logger),
      max_body_bytes_(max_body_bytes),
      clock_(clock),
      schema_(EventJsonParser::RayEventSchema()) {}

HttpIngestHandler::~HttpIngestHandler() = default;

std::unique_ptr<HttpIngestHandler::Workspace> HttpIngestHandler::Acquire() {
  {
    MutexLock lock(idle_mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<Workspace> workspace = std::move(idle_.back());
      idle_.pop_back();
      return workspace;
    }
  }
  return std::make_unique<Workspace>(schema_);
}

void HttpIngestHandler::Release(std::unique_ptr<Workspace> workspace) {
  MutexLock lock(idle_mutex_);
  idle_.push_back(std::move(workspace));
}

void HttpIngestHandler::HandleAsync(HttpRequest& request, HttpResponder respond) {
  counters_.requests.fetch_add(1, std::memory_order_relaxed);
  counters_.http_requests.fetch_add(1, std::memory_order_relaxed);
  // A page open in a browser on this machine may POST these to a loopback
  // listener without asking: refused before anything is parsed.
  const auto type = request[http::field::content_type];
  if (IsCrossSiteFormContentType(std::string_view(type.data(), type.size()))) {
    counters_.unsupported_content_type_requests.fetch_add(1, std::memory_order_relaxed);
    if (auto suppressed = reject_log_limiter_.Allow(clock_.Now())) {
      logger_.warn(
          "refused an HTTP ingest request whose Content-Type a web page may send (415) "
          "suppressed_warnings={}",
          *suppressed);
    }
    respond(ErrorResponse(request, http::status::unsupported_media_type,
                          "this Content-Type may come from a web page and is refused: send "
                          "Content-Type: application/json"));
    return;
  }
  const auto encoding = request[http::field::content_encoding];
  absl::StatusOr<std::string> body =
      DecodeContentEncoding(std::string_view(encoding.data(), encoding.size()),
                            std::move(request.body()), max_body_bytes_);
  if (!body.ok()) {
    counters_.rejected_requests.fetch_add(1, std::memory_order_relaxed);
    const std::string message(body.status().message());
    if (auto suppressed = reject_log_limiter_.Allow(clock_.Now())) {
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

  std::unique_ptr<Workspace> workspace = Acquire();
  Ingest(*body, *workspace, request, respond);
  Release(std::move(workspace));
}

void HttpIngestHandler::Ingest(std::string& body, Workspace& workspace, HttpRequest& request,
                               HttpResponder& respond) {
  // What the parser reports only counts once the whole body turned out to be
  // a JSON array.
  EventJsonBatch& batch = workspace.batch;
  if (const absl::Status parsed = workspace.parser.ParseArray(body, batch); !parsed.ok()) {
    counters_.rejected_requests.fetch_add(1, std::memory_order_relaxed);
    const std::string message(parsed.message());
    if (auto suppressed = reject_log_limiter_.Allow(clock_.Now())) {
      logger_.warn("rejected HTTP ingest request: {} bytes={} suppressed_warnings={}", message,
                   body.size(), *suppressed);
    }
    respond(ErrorResponse(request, http::status::bad_request, message));
    return;
  }
  std::vector<IncomingEvent>& events = workspace.events;
  events.clear();
  for (const EventJsonBatch::Event& event : batch.events()) {
    const std::string_view bytes = batch.bytes(event);
    std::optional<WireEventFacts> facts = FactsOfWire(bytes);
    if (!facts) facts = FactsByParsing(bytes);
    events.push_back(
        IncomingEvent{bytes, facts->event_type, facts->keys.event_id_hash, facts->keys.entity_key});
  }
  const size_t elements = batch.elements();
  counters_.received_events.fetch_add(elements, std::memory_order_relaxed);
  Json rejected = Json::array();
  for (const EventJsonBatch::Rejection& rejection : batch.rejections()) {
    counters_.drops.Add(DropReason::kBadElement, rejection.claimed_type);
    rejected.push_back(Json{{"index", rejection.index}, {"reason", rejection.reason}});
  }
  if (!batch.rejections().empty()) {
    // Positions only: reasons may quote values, and event contents never reach the log.
    if (auto suppressed = bad_element_log_limiter_.Allow(clock_.Now())) {
      logger_.warn(
          "HTTP ingest dropped {} of {} elements as bad_element (first: #{}) "
          "suppressed_warnings={}",
          batch.rejections().size(), elements, batch.rejections().front().index, *suppressed);
    }
  }

  // `request` stays valid until `respond` is called (HttpServer's contract);
  // the events (views into the workspace) are copied before AppendAsync
  // returns, so the workspace can be reused at once.
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
