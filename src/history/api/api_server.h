// The HTTP side of ray-task-history: the JSON API (docs/HISTORY.md "API"),
// Ray's State API for tasks, /healthz, /readyz and /metrics, as routes on
// the project's HttpServer. Queries run on a bounded pool of read-only
// SQLite connections (WAL lets them read beside the indexer's writes).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "history/api/queries.h"
#include "history/ops/history_metrics.h"
#include "http/http_server.h"
#include "rayagg/mutex.h"

namespace rayagg::history {

class ReaderPool {
 public:
  ReaderPool(std::string index_dir, size_t max_connections, uint64_t cache_bytes)
      : index_dir_(std::move(index_dir)), max_(max_connections), cache_bytes_(cache_bytes) {}

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
  Mutex mutex_;
  CondVar available_;
  std::vector<std::unique_ptr<SqliteDb>> idle_ ABSL_GUARDED_BY(mutex_);
  size_t open_ ABSL_GUARDED_BY(mutex_) = 0;
};

struct ApiOptions {
  QueryLimits limits;
};

class HistoryApi {
 public:
  HistoryApi(ReaderPool& readers, HistoryMetrics& metrics, ApiOptions options,
             std::function<bool()> ready, std::function<int64_t()> now_ms)
      : readers_(readers),
        metrics_(metrics),
        options_(options),
        ready_(std::move(ready)),
        now_ms_(std::move(now_ms)) {}

  // Adds every route to `server` (before it starts).
  void AddRoutes(HttpServer& server);

 private:
  using Query = absl::StatusOr<nlohmann::json> (HistoryQueries::*)(const QueryParams&);
  HttpServerResponse Answer(ApiRoute route, Query query, HttpRequest& request);

  ReaderPool& readers_;
  HistoryMetrics& metrics_;
  const ApiOptions options_;
  const std::function<bool()> ready_;
  const std::function<int64_t()> now_ms_;
};

}  // namespace rayagg::history
