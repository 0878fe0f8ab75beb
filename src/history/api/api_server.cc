#include "history/api/api_server.h"

#include <chrono>
#include <utility>

#include "common/text.h"
#include "history/api/param_parsing.h"
#include "history/api/redact_answer.h"
#include "history/api/task_export.h"
#include "history/index/index_schema.h"

namespace rayagg::history {

ReaderPool::Lease::~Lease() {
  if (db_ != nullptr && pool_ != nullptr) pool_->Release(std::move(db_));
}

absl::StatusOr<ReaderPool::Lease> ReaderPool::Acquire() {
  {
    MutexLock lock(mutex_);
    available_.Wait(mutex_, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return !idle_.empty() || open_ < max_;
    });
    if (!idle_.empty()) {
      std::unique_ptr<SqliteDb> db = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(db));
    }
    ++open_;
  }
  absl::StatusOr<std::unique_ptr<SqliteDb>> db =
      OpenIndexForReading(index_dir_, cache_bytes_, mmap_bytes_);
  if (!db.ok()) {
    MutexLock relock(mutex_);
    --open_;
    available_.Signal();
    return db.status();
  }
  return Lease(*this, std::move(*db));
}

void ReaderPool::Release(std::unique_ptr<SqliteDb> db) {
  MutexLock lock(mutex_);
  idle_.push_back(std::move(db));
  available_.Signal();
}

namespace {

// The HTTP server's numbers for one listener, for the metrics page.
HttpListenerStats StatsOf(const NamedListener& listener) {
  const HttpServerCounters& c = listener.server->counters();
  const HttpConnectionCounts open = listener.server->connection_counts();
  return HttpListenerStats{
      .name = listener.name,
      .connections_accepted = c.connections_accepted.load(),
      .connections_refused = c.connections_refused.load(),
      .evicted_idle = c.evicted_idle.load(),
      .evicted_in_request = c.evicted_in_request.load(),
      .idle_timeouts = c.idle_timeouts.load(),
      .max_requests_reached = c.max_requests_reached.load(),
      .requests = c.requests.load(),
      .misdirected = c.misdirected.load(),
      .unauthorized = c.unauthorized.load(),
      .bad_requests = c.bad_requests.load(),
      .headers_too_large = c.headers_too_large.load(),
      .too_many_header_fields = c.too_many_header_fields.load(),
      .bodies_too_large = c.bodies_too_large.load(),
      .timeouts = c.timeouts.load(),
      .handler_errors = c.handler_errors.load(),
      .stream_errors = c.stream_errors.load(),
      .open = open.open,
      .idle = open.idle,
      .in_request = open.in_request,
  };
}

http::status HttpStatusOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      return http::status::bad_request;
    case absl::StatusCode::kNotFound:
      return http::status::not_found;
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kUnavailable:
      return http::status::service_unavailable;
    default:
      return http::status::internal_server_error;
  }
}

}  // namespace

HttpServerOptions HistoryListenerOptions(std::string address, uint16_t port,
                                         std::vector<std::string> allowed_hosts) {
  HttpServerOptions options;
  options.address = std::move(address);
  options.port = port;
  options.allowed_hosts = std::move(allowed_hosts);
  options.json_errors = true;
  options.fixed_headers = {{"Content-Security-Policy", std::string(kContentSecurityPolicy)},
                           {"Referrer-Policy", "no-referrer"}};
  return options;
}

Redactor HistoryApi::RedactorOf(const UiOptions& ui) {
  absl::StatusOr<Redactor> redactor = Redactor::Make(ui.redact);
  return redactor.ok() ? *std::move(redactor) : Redactor::Everything();
}

HistoryApi::HistoryApi(ReaderPool& readers, HistoryMetrics& metrics, ApiOptions options,
                       std::function<bool()> ready, std::function<int64_t()> now_ms)
    : HistoryApi(
          readers, metrics, options,
          [ready = std::move(ready)] {
            return ready() ? absl::OkStatus() : absl::UnavailableError("the index is not open yet");
          },
          std::move(now_ms)) {}

HttpServerResponse HistoryApi::Answer(ApiRoute route, Query query, HttpRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  auto json_response = [&](http::status status, const nlohmann::json& body) {
    HttpServerResponse response = MakeHttpResponse(
        request, status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
        "application/json");
    response.set(http::field::cache_control, "no-store");
    return response;
  };
  auto error = [&](const absl::Status& status) {
    metrics_.query_errors[static_cast<size_t>(route)].fetch_add(1);
    return json_response(HttpStatusOf(status),
                         {{"result", false}, {"msg", strings::View(status.message())}});
  };
  HttpServerResponse response;
  if (absl::Status serving = serving_(); !serving.ok()) {
    response = error(serving);
  } else {
    absl::StatusOr<QueryParams> params =
        QueryParams::FromTarget(std::string_view(request.target().data(), request.target().size()));
    if (!params.ok()) {
      response = error(params.status());
    } else {
      absl::StatusOr<ReaderPool::Lease> lease = readers_.Acquire();
      if (!lease.ok()) {
        response = error(absl::UnavailableError(lease.status().message()));
      } else {
        HistoryQueries queries(lease->db(), options_.limits);
        // One budget for all the SQLite work of this answer, ended with it.
        SqliteStepBudget budget(lease->db(), options_.limits.max_steps_thousands);
        absl::StatusOr<nlohmann::json> answer = (queries.*query)(*params);
        // Secrets never leave: hidden before the answer is written.
        if (answer.ok() && !options_.ui.show_secrets) RedactAnswer(route, redactor_, *answer);
        response = answer.ok() ? json_response(http::status::ok, *answer) : error(answer.status());
      }
    }
  }
  metrics_.query_latency[static_cast<size_t>(route)].Observe(std::chrono::steady_clock::now() -
                                                             started);
  return response;
}

void HistoryApi::AddRoutes(HttpServer& server) {
  struct Route {
    const char* path;
    ApiRoute route;
    Query query;
  };
  const Route routes[] = {
      {"/api/history/v1/sessions", ApiRoute::kSessions, &HistoryQueries::Sessions},
      {"/api/history/v1/counts", ApiRoute::kCounts, &HistoryQueries::Counts},
      {"/api/history/v1/groups", ApiRoute::kGroups, &HistoryQueries::Groups},
      {"/api/history/v1/tasks", ApiRoute::kTasks, &HistoryQueries::Tasks},
      {"/api/history/v1/tasks/count", ApiRoute::kTaskCount, &HistoryQueries::TaskCount},
      {"/api/history/v1/task", ApiRoute::kTask, &HistoryQueries::Task},
      {"/api/history/v1/actors", ApiRoute::kActors, &HistoryQueries::Actors},
      {"/api/history/v1/actor", ApiRoute::kActor, &HistoryQueries::Actor},
      {"/api/history/v1/jobs", ApiRoute::kJobs, &HistoryQueries::Jobs},
      {"/api/history/v1/job", ApiRoute::kJob, &HistoryQueries::Job},
      {"/api/v0/tasks", ApiRoute::kRayTasks, &HistoryQueries::RayListTasks},
      {"/api/v0/tasks/summarize", ApiRoute::kRaySummarize, &HistoryQueries::RaySummarizeTasks},
  };
  for (const Route& route : routes) {
    server.AddRoute(route.path, {http::verb::get}, [this, route](HttpRequest& request) {
      return Answer(route.route, route.query, request);
    });
  }
  server.AddStreamRoute("/api/history/v1/export", {http::verb::get},
                        [this](HttpRequest& request) { return Export(request); });
  server.AddRoute("/api/history/v1/ui", {http::verb::get},
                  [this](HttpRequest& request) { return UiSettings(request); });
}

HttpServerResponse HistoryApi::UiSettings(HttpRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  absl::StatusOr<QueryParams> params =
      QueryParams::FromTarget(std::string_view(request.target().data(), request.target().size()));
  absl::Status known =
      params.ok() ? RequireKnownParams(*params, std::vector<std::string_view>{}) : params.status();
  nlohmann::json body;
  http::status status = http::status::ok;
  if (!known.ok()) {
    metrics_.query_errors[static_cast<size_t>(ApiRoute::kUi)].fetch_add(1);
    status = http::status::bad_request;
    body = {{"result", false}, {"msg", strings::View(known.message())}};
  } else {
    const UiOptions& ui = options_.ui;
    body = {
        {"grafana_url", ui.grafana_url.empty() ? nlohmann::json() : nlohmann::json(ui.grafana_url)},
        {"show_secrets", ui.show_secrets},
        {"redact", ui.redact},
        {"version", options_.version}};
  }
  HttpServerResponse response = MakeHttpResponse(
      request, status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
      "application/json");
  response.set(http::field::cache_control, "no-store");
  metrics_.query_latency[static_cast<size_t>(ApiRoute::kUi)].Observe(
      std::chrono::steady_clock::now() - started);
  return response;
}

HttpStreamedResponse HistoryApi::Export(HttpRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  auto error = [&](const absl::Status& status, http::status code) {
    metrics_.query_errors[static_cast<size_t>(ApiRoute::kExport)].fetch_add(1);
    const nlohmann::json body = {{"result", false}, {"msg", strings::View(status.message())}};
    HttpServerResponse response = MakeHttpResponse(
        request, code, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
        "application/json");
    response.set(http::field::cache_control, "no-store");
    return HttpStreamedResponse{std::move(response), nullptr};
  };
  if (absl::Status serving = serving_(); !serving.ok()) {
    return error(serving, http::status::service_unavailable);
  }
  absl::StatusOr<QueryParams> params =
      QueryParams::FromTarget(std::string_view(request.target().data(), request.target().size()));
  if (!params.ok()) return error(params.status(), http::status::bad_request);
  // A slot per running export, given back when its producer ends (the
  // answer completed, the client stopped reading, or the server stopped).
  struct Slot {
    std::atomic<size_t>* running;
    explicit Slot(std::atomic<size_t>& counter) : running(&counter) {}
    Slot(Slot&& other) noexcept : running(std::exchange(other.running, nullptr)) {}
    Slot(const Slot&) = delete;
    ~Slot() {
      if (running != nullptr) running->fetch_sub(1);
    }
  };
  if (exports_running_.fetch_add(1) >= options_.max_exports) {
    exports_running_.fetch_sub(1);
    HttpStreamedResponse busy =
        error(absl::ResourceExhaustedError(
                  strings::Cat(options_.max_exports, " exports are running; try again shortly")),
              http::status::too_many_requests);
    busy.head.set(http::field::retry_after, "5");
    return busy;
  }
  Slot slot(exports_running_);
  absl::StatusOr<std::unique_ptr<TaskExport>> exporter =
      TaskExport::Start(options_.index_dir, options_.export_cache_bytes, options_.mmap_bytes,
                        *params, options_.limits, options_.export_rows_per_page);
  if (!exporter.ok()) return error(exporter.status(), HttpStatusOf(exporter.status()));
  HttpServerResponse head =
      MakeHttpResponse(request, http::status::ok, std::string(), (*exporter)->content_type());
  head.set(http::field::cache_control, "no-store");
  head.set(http::field::content_disposition,
           strings::Cat("attachment; filename=\"", (*exporter)->file_name(), "\""));
  metrics_.query_latency[static_cast<size_t>(ApiRoute::kExport)].Observe(
      std::chrono::steady_clock::now() - started);
  auto producer = MakeHttpBodyProducer([exporter = std::move(*exporter), slot = std::move(slot)](
                                           std::string& out) mutable -> absl::StatusOr<bool> {
    absl::StatusOr<std::string> chunk = exporter->Next();
    if (!chunk.ok()) return chunk.status();
    out = std::move(*chunk);
    return !exporter->done();
  });
  return HttpStreamedResponse{std::move(head), std::move(producer)};
}

void HistoryApi::AddOpsRoutes(HttpServer& ops, std::vector<NamedListener> listeners) {
  ops.AddRoute("/healthz", {http::verb::get}, [](HttpRequest& request) {
    return MakeHttpResponse(request, http::status::ok, "ok\n");
  });
  ops.AddRoute("/readyz", {http::verb::get}, [this](HttpRequest& request) {
    // Ready: the API answers (the index is open, not of a newer schema) and
    // the indexer's last pass did not fail store-wide.
    absl::Status serving = serving_();
    if (serving.ok() && !metrics_.last_pass_ok.load()) {
      serving = absl::UnavailableError("the last indexing pass failed");
    }
    if (serving.ok()) return MakeHttpResponse(request, http::status::ok, "ready\n");
    const nlohmann::json body = {{"result", false}, {"msg", strings::View(serving.message())}};
    return MakeHttpResponse(request, http::status::service_unavailable,
                            body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                            "application/json");
  });
  ops.AddRoute("/metrics", {http::verb::get},
               [this, listeners = std::move(listeners)](HttpRequest& request) {
                 std::vector<HttpListenerStats> stats;
                 for (const NamedListener& listener : listeners) stats.push_back(StatsOf(listener));
                 return MakeHttpResponse(
                     request, http::status::ok,
                     RenderHistoryMetrics(metrics_, serving_().ok(), now_ms_(), stats),
                     "text/plain; version=0.0.4; charset=utf-8");
               });
}

}  // namespace rayagg::history
