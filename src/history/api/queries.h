// The read side of the task index: every answer of the JSON API
// (docs/HISTORY.md "API"), computed on one read-only connection. Callers
// give already parsed query parameters; every value reaches SQL as a bound
// parameter with its type (sql_clause.h), and only names from fixed tables
// (task_fields.h) become SQL text. Every route refuses a parameter it does
// not know.
//
// Errors: InvalidArgument (a bad parameter: 400), NotFound (404),
// DeadlineExceeded (the query needed more work than allowed: 503).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "history/api/query_params.h"
#include "history/api/search.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

struct QueryLimits {
  uint64_t max_page_rows = 10'000;         // our task list's largest page
  uint64_t max_state_api_rows = 200'000;   // Ray's /api/v0/tasks largest answer
  uint64_t max_steps_thousands = 500'000;  // SQLite VM steps per query, in thousands
  // The largest answer in bytes: Ray's task list stops there (and says it
  // truncated, as Ray does); our routes are paged below it.
  uint64_t max_answer_bytes = 16ull << 20;
  // A task list page whose filter keeps at most this many attempts reads
  // them from the filter's index and sorts them; above, it walks the sort's
  // index (task_plan.h). Not a setting: tests lower it to reach both plans.
  int64_t max_rows_sorted_per_page = 50'000;
  // Where the search's clause changes form (search.h). Not a setting.
  SearchLimits search;
};

struct SessionRow {
  int64_t id = 0;
  std::string cluster, name;
};

class HistoryQueries {
 public:
  HistoryQueries(SqliteDb& db, QueryLimits limits) : db_(db), limits_(limits) {}

  absl::StatusOr<nlohmann::json> Sessions(const QueryParams& params);
  absl::StatusOr<nlohmann::json> Counts(const QueryParams& params);
  absl::StatusOr<nlohmann::json> Groups(const QueryParams& params);
  absl::StatusOr<nlohmann::json> Tasks(const QueryParams& params);
  // The exact number of tasks (or attempts) the task list's filters and
  // search keep.
  absl::StatusOr<nlohmann::json> TaskCount(const QueryParams& params);
  absl::StatusOr<nlohmann::json> Task(const QueryParams& params);
  absl::StatusOr<nlohmann::json> Actors(const QueryParams& params);
  absl::StatusOr<nlohmann::json> Actor(const QueryParams& params);
  absl::StatusOr<nlohmann::json> Jobs(const QueryParams& params);
  absl::StatusOr<nlohmann::json> Job(const QueryParams& params);

  // Ray's State API (python/ray/util/state/common.py schemas).
  absl::StatusOr<nlohmann::json> RayListTasks(const QueryParams& params);
  absl::StatusOr<nlohmann::json> RaySummarizeTasks(const QueryParams& params);

  // `selector`: "<cluster>/<session>", a bare session name, or none (the
  // newest session).
  absl::StatusOr<SessionRow> ResolveSession(const std::optional<std::string>& selector);

 private:
  // Counts by state of a session (optionally of one job) in `unit` (0
  // attempts, 1 tasks: CountUnit), with both units' totals beside them.
  absl::StatusOr<nlohmann::json> CountsOf(const SessionRow& session,
                                          const std::optional<std::string>& job, int unit);

  SqliteDb& db_;
  const QueryLimits limits_;
};

}  // namespace rayagg::history
