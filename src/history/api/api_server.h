// The HTTP side of ray-task-history: the JSON API (docs/HISTORY.md "API")
// and Ray's State API for tasks on the API listener; /healthz, /readyz and
// /metrics on the ops listener (no task data there, and never behind a
// query). Queries run on a bounded pool of read-only SQLite connections (WAL
// lets them read beside the indexer's writes).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "history/api/queries.h"
#include "history/api/redactor.h"
#include "history/api/ui_options.h"
#include "history/index/index_schema.h"
#include "history/ops/history_metrics.h"
#include "http/http_server.h"
#include "rayagg/mutex.h"

namespace rayagg::history {

class ReaderPool {
 public:
  ReaderPool(std::string index_dir, size_t max_connections, uint64_t cache_bytes,
             uint64_t mmap_bytes = kDefaultMmapBytes)
      : index_dir_(std::move(index_dir)),
        max_(max_connections),
        cache_bytes_(cache_bytes),
        mmap_bytes_(mmap_bytes) {}

  // A connection for the caller's exclusive use until the lease ends.
  class Lease {
   public:
    Lease(ReaderPool& pool, std::unique_ptr<SqliteDb> db) : pool_(&pool), db_(std::move(db)) {}
    Lease(Lease&& other) noexcept = default;
    ~Lease();
    SqliteDb& db() { return *db_; }

   private:
    ReaderPool* pool_;
    std::unique_ptr<SqliteDb> db_;
  };
  absl::StatusOr<Lease> Acquire();

 private:
  void Release(std::unique_ptr<SqliteDb> db);
  const std::string index_dir_;
  const size_t max_;
  const uint64_t cache_bytes_;
  const uint64_t mmap_bytes_;
  Mutex mutex_;
  CondVar available_;
  std::vector<std::unique_ptr<SqliteDb>> idle_ ABSL_GUARDED_BY(mutex_);
  size_t open_ ABSL_GUARDED_BY(mutex_) = 0;
};

struct ApiOptions {
  QueryLimits limits;
  // Exports (GET /api/history/v1/export) read the index on connections of
  // their own, outside the reader pool: where it is, their page cache, how
  // many may run at once (429 with Retry-After beyond) and their page size.
  std::string index_dir;
  uint64_t export_cache_bytes = 8ull << 20;
  uint64_t mmap_bytes = kDefaultMmapBytes;  // index.mmap_bytes (index_schema.h)
  size_t max_exports = 2;
  uint64_t export_rows_per_page = 2000;
  // The `ui:` settings: what GET /api/history/v1/ui answers, and whether
  // (and what) the answers redact.
  UiOptions ui{};
  std::string version = "unknown";  // the product's, for the page
};

// A listener whose HttpServer counters /metrics exports (rayhist_http_*).
struct NamedListener {
  std::string name;  // the `listener` label: "api", "ops"
  const HttpServer* server;
};

// The options every listener of the history shares: answers only for
// `allowed_hosts` (421 otherwise), JSON errors, and on every answer nosniff,
// Content-Security-Policy (below) and Referrer-Policy: no-referrer. The
// page's headers go on the API's answers too: it costs nothing, and a JSON
// answer opened as a page can then run nothing.
inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
    "object-src 'none'";
HttpServerOptions HistoryListenerOptions(std::string address, uint16_t port,
                                         std::vector<std::string> allowed_hosts);

class HistoryApi {
 public:
  // `serving` says whether the API answers: OK, or why not (Unavailable,
  // e.g. an index of a newer schema), which every API route and /readyz
  // answer with 503 and that message.
  HistoryApi(ReaderPool& readers, HistoryMetrics& metrics, ApiOptions options,
             std::function<absl::Status()> serving, std::function<int64_t()> now_ms)
      : readers_(readers),
        metrics_(metrics),
        options_(options),
        redactor_(RedactorOf(options_.ui)),
        serving_(std::move(serving)),
        now_ms_(std::move(now_ms)) {}
  // The same with a plain ready flag ("the index is not open yet" when false).
  HistoryApi(ReaderPool& readers, HistoryMetrics& metrics, ApiOptions options,
             std::function<bool()> ready, std::function<int64_t()> now_ms);

  // Adds every API route to `server` (before it starts).
  void AddRoutes(HttpServer& server);
  // Adds /healthz, /readyz and /metrics to the ops listener; /metrics also
  // exports the HTTP counters of `listeners` (which must outlive `ops`).
  void AddOpsRoutes(HttpServer& ops, std::vector<NamedListener> listeners);

 private:
  using Query = absl::StatusOr<nlohmann::json> (HistoryQueries::*)(const QueryParams&);
  HttpServerResponse Answer(ApiRoute route, Query query, HttpRequest& request);
  HttpStreamedResponse Export(HttpRequest& request);
  // GET /api/history/v1/ui: the page's settings (no index needed).
  HttpServerResponse UiSettings(HttpRequest& request);
  // ui.redact compiled; everything when it does not compile (the config
  // check refuses such a pattern before this is built).
  static Redactor RedactorOf(const UiOptions& ui);

  ReaderPool& readers_;
  HistoryMetrics& metrics_;
  const ApiOptions options_;
  const Redactor redactor_;
  const std::function<absl::Status()> serving_;
  const std::function<int64_t()> now_ms_;
  std::atomic<size_t> exports_running_{0};
};

}  // namespace rayagg::history
