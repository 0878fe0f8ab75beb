// The task filters and sort columns of both task APIs, in one table: the
// history's task list (`state=...`, `function=...`) and Ray's State API
// (`filter_keys=state&filter_predicates=%3D&filter_values=...`) name the same
// columns, convert values the same way and bind them with their types.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "history/api/query_params.h"
#include "history/api/sql_clause.h"

namespace rayagg::history {

// How a filter value becomes the bound value of its column.
enum class FieldKind {
  kTaskState,  // a state name; in Ray's API FAILED also matches the reconciled states
  kTaskType,   // a TaskType name
  kErrorType,  // an ErrorType name (the history's API also takes its number)
  kNameRef,    // text kept in the names table; the column holds its id
  kText,       // exact text
  kHexId,      // an id kept as bytes, given as hex
  kInt,
};

struct TaskField {
  std::string_view key;      // the history's parameter; "" when it does not offer it
  std::string_view ray_key;  // Ray's filter key; "" when Ray's API does not offer it
  std::string_view column;   // over the task alias `t`
  FieldKind kind;
  bool lowercase = false;  // ids kept in lowercase hex (job and node ids)
  // The index on (session_id, column, ...) that an equality on this field
  // can lead with; "" when none.
  std::string_view index = "";
  // The summary dimension (SummaryDim) whose values count this field's
  // values, for the planner's estimate; -1 when none (a state is counted by
  // the summary's state column, dimension 0).
  int summary_dim = -1;
};

inline constexpr TaskField kTaskFields[] = {
    {"state", "state", "t.state", FieldKind::kTaskState, false, "tasks_by_state", 0},
    {"raw_state", "", "t.raw_state", FieldKind::kTaskState},
    {"type", "type", "t.type", FieldKind::kTaskType},
    {"error_type", "error_type", "t.error_type", FieldKind::kErrorType, false,
     "tasks_by_error_type", 2},
    {"function", "func_or_class_name", "t.func_id", FieldKind::kNameRef, false, "tasks_by_func", 1},
    {"node_id", "node_id", "t.node_id", FieldKind::kNameRef, true, "tasks_by_node", 3},
    {"exception", "", "t.exception_id", FieldKind::kNameRef, false, "tasks_by_exception"},
    {"name", "name", "t.name", FieldKind::kText, false, "tasks_by_name"},
    {"job_id", "job_id", "t.job_id", FieldKind::kText, true, "tasks_by_job", 0},
    {"task_id", "task_id", "t.task_id", FieldKind::kHexId, false, "tasks_by_key"},
    {"worker_id", "worker_id", "t.worker_id", FieldKind::kHexId},
    {"actor_id", "actor_id", "t.actor_id", FieldKind::kHexId},
    {"attempt", "attempt_number", "t.attempt", FieldKind::kInt, false, "tasks_by_attempt"},
    {"worker_pid", "worker_pid", "t.worker_pid", FieldKind::kInt},
};

// Ranges of the history's task list: times in ms since the epoch and
// durations in ms, compared with the *_ns columns.
struct TaskRange {
  std::string_view key;
  std::string_view clause;  // one `?`, bound to the value in ns
};

inline constexpr TaskRange kTaskRanges[] = {
    {"created_after_ms", "t.creation_ns >= ?"},
    {"created_before_ms", "t.creation_ns >= 0 AND t.creation_ns < ?"},
    {"started_after_ms", "t.start_ns >= ?"},
    {"started_before_ms", "t.start_ns >= 0 AND t.start_ns < ?"},
    {"ended_after_ms", "t.end_ns >= ?"},
    {"ended_before_ms", "t.end_ns >= 0 AND t.end_ns < ?"},
    {"min_pending_ms", "t.pending_ns >= ?"},
    {"max_pending_ms", "t.pending_ns >= 0 AND t.pending_ns <= ?"},
    {"min_running_ms", "t.running_ns >= ?"},
    {"max_running_ms", "t.running_ns >= 0 AND t.running_ns <= ?"},
    {"min_total_ms", "t.total_ns >= ?"},
    {"max_total_ms", "t.total_ns >= 0 AND t.total_ns <= ?"},
};

// The task list's sort columns, each served by its index on (session_id,
// column, start_ns) (tasks_by_start: (session_id, start_ns)): a page is one
// seek to the cursor (column, start_ns, row id) and a walk along the index,
// at page 5,000 as at page 1. Function, node and exception sort by the id
// of their name (first seen first: a value's rows together, not in
// alphabetical order). Nothing else is sortable.
struct TaskSort {
  std::string_view name;
  std::string_view column;  // the first sort key over `t`
  bool text;                // compares as text (else as an integer)
  std::string_view index;
  bool by_start_too = true;  // start_ns is the second key (not for start_time itself)
};

inline constexpr TaskSort kTaskSorts[] = {
    {"start_time", "t.start_ns", false, "tasks_by_start", false},
    {"end_time", "t.end_ns", false, "tasks_by_end"},
    {"creation_time", "t.creation_ns", false, "tasks_by_creation"},
    {"pending_duration", "t.pending_ns", false, "tasks_by_pending"},
    {"running_duration", "t.running_ns", false, "tasks_by_running"},
    {"total_duration", "t.total_ns", false, "tasks_by_total"},
    {"state", "t.state", false, "tasks_by_state"},
    {"attempt", "t.attempt", false, "tasks_by_attempt"},
    {"error_type", "t.error_type", false, "tasks_by_error_type"},
    {"job_id", "t.job_id", true, "tasks_by_job"},
    {"name", "t.name", true, "tasks_by_name"},
    {"function", "t.func_id", false, "tasks_by_func"},
    {"node_id", "t.node_id", false, "tasks_by_node"},
    {"exception", "t.exception_id", false, "tasks_by_exception"},
};

const TaskSort* FindTaskSort(std::string_view name);

// What a count counts (the summary table's `unit`): every attempt, or each
// task once, by its latest attempt (the default of every history route;
// Ray's State API counts attempts, as Ray does).
enum class CountUnit : int { kAttempts = 0, kTasks = 1 };
// `unit` = tasks (default) | attempts.
absl::StatusOr<CountUnit> UnitParam(const QueryParams& params);
std::string_view UnitName(CountUnit unit);

// Duration bands in whole microseconds, (gt_us, le_us], exactly a
// histogram bucket's bounds: the list filtered by a bucket's bounds holds
// exactly the bucket's tasks (DurationStats::NsRangeOfUs).
struct TaskBand {
  std::string_view gt_key, le_key;
  std::string_view column;
};
inline constexpr TaskBand kTaskBands[] = {
    {"pending_gt_us", "pending_le_us", "t.pending_ns"},
    {"running_gt_us", "running_le_us", "t.running_ns"},
    {"total_gt_us", "total_le_us", "t.total_ns"},
};

// The history's task filters, ranges, bands, `outcome` (finally_failed: the
// latest attempt FAILED; recovered: the latest attempt FINISHED after an
// earlier one) and the unit's rows (tasks: latest attempts only) as
// " AND ..." over `t`; an unknown state, type or error type is a 400 naming
// the parameter.
struct EqualityFilter {
  const TaskField* field;
  std::vector<SqlValue> values;
};
struct TaskFilters {
  SqlClause clause;
  // The equality filters among them, for the planner.
  std::vector<EqualityFilter> equalities;
};
absl::StatusOr<TaskFilters> HistoryTaskFilters(const QueryParams& params, CountUnit unit);
// Every parameter name the history's filters take.
std::vector<std::string_view> HistoryTaskFilterNames();

// One of Ray's filters: filter_keys[i] filter_predicates[i] filter_values[i].
struct RayFilter {
  std::string key, predicate, value;
};
// Ray's filters from its three parallel lists; a predicate other than = and
// != is a 400 worded as Ray words it.
absl::StatusOr<std::vector<RayFilter>> RayFiltersOf(const QueryParams& params);
// Ray's filters as " AND ..." over `t`; a value that names no state, type or
// id matches nothing with `=` and everything with `!=`, as in Ray. Drivers
// are left out when `exclude_driver`.
absl::StatusOr<SqlClause> RayTaskFilters(const std::vector<RayFilter>& filters,
                                         bool exclude_driver);

}  // namespace rayagg::history
