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
};

inline constexpr TaskField kTaskFields[] = {
    {"state", "state", "t.state", FieldKind::kTaskState},
    {"raw_state", "", "t.raw_state", FieldKind::kTaskState},
    {"type", "type", "t.type", FieldKind::kTaskType},
    {"error_type", "error_type", "t.error_type", FieldKind::kErrorType},
    {"function", "func_or_class_name", "t.func_id", FieldKind::kNameRef},
    {"node_id", "node_id", "t.node_id", FieldKind::kNameRef, true},
    {"exception", "", "t.exception_id", FieldKind::kNameRef},
    {"name", "name", "t.name", FieldKind::kText},
    {"job_id", "job_id", "t.job_id", FieldKind::kText, true},
    {"task_id", "task_id", "t.task_id", FieldKind::kHexId},
    {"worker_id", "worker_id", "t.worker_id", FieldKind::kHexId},
    {"actor_id", "actor_id", "t.actor_id", FieldKind::kHexId},
    {"attempt", "attempt_number", "t.attempt", FieldKind::kInt},
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

// The task list's sort columns. Text columns compare as text, the others
// as integers (unknown times and durations are -1).
struct TaskSort {
  std::string_view name;
  std::string_view expression;
  bool text;
};

inline constexpr TaskSort kTaskSorts[] = {
    {"start_time", "t.start_ns", false},
    {"end_time", "t.end_ns", false},
    {"creation_time", "t.creation_ns", false},
    {"pending_duration", "t.pending_ns", false},
    {"running_duration", "t.running_ns", false},
    {"total_duration", "t.total_ns", false},
    {"state", "t.state", false},
    {"attempt", "t.attempt", false},
    {"worker_pid", "t.worker_pid", false},
    {"error_type", "t.error_type", false},
    {"job_id", "t.job_id", true},
    {"name", "t.name", true},
    {"function", "f.text", true},
    {"node_id", "n.text", true},
    {"exception", "e.text", true},
};

const TaskSort* FindTaskSort(std::string_view name);

// The history's task filters and ranges as " AND ..." over `t`; an unknown
// state, type or error type is a 400 naming the parameter.
absl::StatusOr<SqlClause> HistoryTaskFilters(const QueryParams& params);
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
