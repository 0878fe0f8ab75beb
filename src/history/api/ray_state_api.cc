// Ray's State API for tasks (GET /api/v0/tasks and /api/v0/tasks/summarize)
// over the index: Ray's parameters and response schema
// (python/ray/util/state/common.py: ListApiResponse, TaskState,
// TaskSummaries), with the session chosen by `session_name` and no 10,000
// row cap. Tasks the history reconciled (their job finished or their node
// died before a terminal event arrived) are FAILED here, with error type
// WORKER_DIED or NODE_DIED, as Ray's own GCS marks them; the history's own
// API reports them as UNKNOWN_JOB_FINISHED / UNKNOWN_NODE_DIED.
#include <charconv>

#include "common/text.h"
#include "history/api/answer_json.h"
#include "history/api/param_parsing.h"
#include "history/api/queries.h"
#include "history/api/task_fields.h"
#include "history/fold/record_codec.h"
#include "history/index/index_writer.h"
#include "src/ray/protobuf/common.pb.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

std::string RayStateName(int32_t state) {
  if (state == kUnknownJobFinished || state == kUnknownNodeDied) return "FAILED";
  return TaskStateName(state);
}

json RayErrorType(int32_t state, int32_t error_type) {
  if (state == kUnknownJobFinished) return "WORKER_DIED";
  if (state == kUnknownNodeDied) return "NODE_DIED";
  return error_type < 0 ? json(nullptr) : json(ErrorTypeName(error_type));
}

json NullIfEmpty(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json RayTaskJson(const TaskRecord& task, int32_t state, bool detail) {
  const TaskDefinition empty;
  const TaskDefinition& d = task.definition.has() ? task.definition.value : empty;
  json out;
  out["task_id"] = task.task_id;
  out["attempt_number"] = task.attempt;
  out["name"] = d.task_name;
  out["state"] = RayStateName(state);
  out["job_id"] = task.job_id();
  out["actor_id"] = NullIfEmpty(d.actor_id);
  out["type"] = TaskTypeName(d.task_type);
  out["func_or_class_name"] = d.func_name;
  out["parent_task_id"] = d.parent_task_id;
  out["node_id"] = NullIfEmpty(task.node_id.value);
  out["worker_id"] = NullIfEmpty(task.worker_id.value);
  out["worker_pid"] = task.worker_pid.has() ? json(task.worker_pid.value) : json(nullptr);
  out["error_type"] = RayErrorType(state, task.error.has() ? task.error.value.error_type : -1);
  if (!detail) return out;
  out["language"] = ray::rpc::Language_IsValid(d.language)
                        ? json(ray::rpc::Language_Name(static_cast<ray::rpc::Language>(d.language)))
                        : json(nullptr);
  json resources =
      json::parse(d.required_resources.empty() ? "{}" : d.required_resources, nullptr, false);
  out["required_resources"] = resources.is_discarded() ? json::object() : resources;
  out["runtime_env_info"] = d.serialized_runtime_env.empty()
                                ? json(nullptr)
                                : json({{"serialized_runtime_env", d.serialized_runtime_env}});
  out["placement_group_id"] = NullIfEmpty(d.placement_group_id);
  json events = json::array();
  for (const TaskTransition& t : task.transitions) {
    events.push_back({{"state", TaskStateName(t.state)}, {"created_ms", t.time_ns / 1'000'000}});
  }
  out["events"] = std::move(events);
  if (task.profile.empty()) {
    out["profiling_data"] = nullptr;
  } else {
    const ProfileSpan& first = task.profile.front();
    json spans = json::array();
    for (const ProfileSpan& span : task.profile) {
      spans.push_back(
          {{"event_name", span.event_name},
           {"start_time", span.start_ns / 1'000'000},
           {"end_time", span.end_ns / 1'000'000},
           {"extra_data", span.extra_data.empty() ? json(nullptr) : json(span.extra_data)}});
    }
    out["profiling_data"] = {{"component_type", first.component_type},
                             {"component_id", first.component_id},
                             {"node_ip_address", first.node_ip},
                             {"events", std::move(spans)}};
  }
  auto ms = [](int64_t ns) { return ns == kNoTime ? json(nullptr) : json(ns / 1'000'000); };
  out["creation_time_ms"] = ms(task.creation_ns());
  out["start_time_ms"] = ms(task.start_ns());
  out["end_time_ms"] = ms(task.end_ns());
  out["task_log_info"] = LogInfoJson(task);
  if (state == kUnknownJobFinished) {
    out["error_message"] =
        "The job finished before this task reported a terminal state (last "
        "known state " +
        TaskStateName(task.raw_state()) + ").";
  } else if (state == kUnknownNodeDied) {
    out["error_message"] =
        "The task's node died before it reported a terminal state (last "
        "known state " +
        TaskStateName(task.raw_state()) + ").";
  } else {
    out["error_message"] = task.error.has() ? json(task.error.value.message) : json(nullptr);
  }
  out["is_debugger_paused"] =
      task.is_debugger_paused.has() ? json(task.is_debugger_paused.value) : json(nullptr);
  return out;
}

// Every task attempt of the session (Ray's `total`), from the summaries.
absl::StatusOr<int64_t> SessionAttempts(SqliteDb& db, int64_t session_id) {
  absl::StatusOr<SqliteStatement> count = db.Prepare(
      "SELECT coalesce(sum(count), 0) FROM summary WHERE session_id = ? AND unit = 0 AND dim = 0");
  if (!count.ok()) return count.status();
  count->Bind(1, session_id);
  absl::StatusOr<bool> row = count->Step();
  if (!row.ok()) return row.status();
  return count->Int(0);
}

json Envelope(json result) {
  return {{"result", true}, {"msg", ""}, {"data", {{"result", std::move(result)}}}};
}

}  // namespace

absl::StatusOr<nlohmann::json> HistoryQueries::RayListTasks(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(
          params, {"session_name", "limit", "timeout", "detail", "exclude_driver", "filter_keys",
                   "filter_predicates", "filter_values"});
      !known.ok()) {
    return known;
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session_name"));
  if (!session.ok()) return session.status();
  absl::StatusOr<int64_t> limit =
      IntParam(params, "limit", 100, 1, static_cast<int64_t>(limits_.max_state_api_rows));
  if (!limit.ok()) {
    return BadParameter(strings::Cat("limit: expected 1 to ", limits_.max_state_api_rows,
                                     " (history.api.max_state_api_rows)"));
  }
  absl::StatusOr<bool> detail = BoolParam(params, "detail", false);
  absl::StatusOr<bool> exclude_driver = BoolParam(params, "exclude_driver", true);
  if (!detail.ok()) return detail.status();
  if (!exclude_driver.ok()) return exclude_driver.status();
  absl::StatusOr<std::vector<RayFilter>> filters = RayFiltersOf(params);
  if (!filters.ok()) return filters.status();
  absl::StatusOr<SqlClause> where = RayTaskFilters(*filters, *exclude_driver);
  if (!where.ok()) return where.status();

  int64_t total = 0, filtered = 0;
  {
    absl::StatusOr<int64_t> attempts = SessionAttempts(db_, session->id);
    if (!attempts.ok()) return attempts.status();
    total = *attempts;
  }
  {
    // Without filters (drivers excluded or not) the summaries count: no scan.
    SqlClause count;
    if (filters->empty()) {
      count
          .Sql(
              "SELECT coalesce(sum(count), 0) FROM summary t WHERE t.session_id = ? AND unit = 0 "
              "AND dim = 1")
          .Int(session->id);
      if (*exclude_driver) count.Sql(" AND t.task_type != ?").Int(ray::rpc::DRIVER_TASK);
    } else {
      count.Sql("SELECT count(*) FROM tasks t WHERE t.session_id = ?").Int(session->id).Add(*where);
    }
    absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, count);
    if (!statement.ok()) return statement.status();
    absl::StatusOr<bool> row = statement->Step();
    if (!row.ok()) return row.status();
    filtered = statement->Int(0);
  }
  SqlClause select;
  select.Sql("SELECT t.state, t.record FROM tasks t WHERE t.session_id = ?")
      .Int(session->id)
      .Add(*where)
      .Sql(" ORDER BY t.task_id, t.attempt LIMIT ?")
      .Int(*limit);
  absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, select);
  if (!statement.ok()) return statement.status();
  // The answer stops at max_answer_bytes, as Ray's own stops at its row
  // limit: num_after_truncation and the warning say how many rows it holds.
  json rows = json::array();
  uint64_t bytes = 0;
  bool truncated = false;
  for (;;) {
    absl::StatusOr<bool> row = statement->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    TaskRecord task;
    if (!DecodeRecord(statement->Blob(1), task).ok()) continue;
    json item = RayTaskJson(task, static_cast<int32_t>(statement->Int(0)), *detail);
    bytes += item.dump(-1, ' ', false, json::error_handler_t::replace).size() + 1;
    if (bytes > limits_.max_answer_bytes) {
      truncated = true;
      break;
    }
    rows.push_back(std::move(item));
  }
  const auto returned = static_cast<int64_t>(rows.size());
  json result = {
      {"total", total},
      {"num_after_truncation", truncated ? returned : total},
      {"num_filtered", filtered},
      {"result", std::move(rows)},
      {"partial_failure_warning",
       truncated ? strings::Cat("The answer was cut at ", returned,
                                " tasks: history.api.max_answer_bytes is ",
                                limits_.max_answer_bytes, " bytes. Use filters or a smaller limit.")
                 : std::string()},
      {"warnings", nullptr}};
  return Envelope(std::move(result));
}

absl::StatusOr<nlohmann::json> HistoryQueries::RaySummarizeTasks(const QueryParams& params) {
  if (absl::Status known =
          RequireKnownParams(params, {"session_name", "summary_by", "timeout", "filter_keys",
                                      "filter_predicates", "filter_values"});
      !known.ok()) {
    return known;
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session_name"));
  if (!session.ok()) return session.status();
  const std::string summary_by = params.Get("summary_by").value_or("func_name");
  if (summary_by != "func_name") {
    return BadParameter("summary_by: only func_name is served by the task history");
  }
  absl::StatusOr<std::vector<RayFilter>> filters = RayFiltersOf(params);
  if (!filters.ok()) return filters.status();
  // Ray's summary lists tasks with its default options: drivers excluded.
  absl::StatusOr<SqlClause> where = RayTaskFilters(*filters, true);
  if (!where.ok()) return where.status();
  int64_t total = 0;
  {
    absl::StatusOr<int64_t> attempts = SessionAttempts(db_, session->id);
    if (!attempts.ok()) return attempts.status();
    total = *attempts;
  }
  // Only a job filter (the dashboard's case) or none: read the summaries.
  // Anything else groups the matching tasks.
  bool summary_table = true;
  std::optional<std::string> job;
  for (const RayFilter& f : *filters) {
    if (f.key == "job_id" && f.predicate == "=" && !job) {
      job = strings::ToLower(f.value);
    } else {
      summary_table = false;
    }
  }
  SqlClause query;
  if (summary_table) {
    query
        .Sql(
            "SELECT value, task_type, state, sum(count) FROM summary WHERE session_id = ? AND "
            "unit = 0 AND dim = 1 AND task_type != ?")
        .Int(session->id)
        .Int(ray::rpc::DRIVER_TASK);
    if (job) query.Sql(" AND job_id = ?").Text(*job);
    query.Sql(" GROUP BY value, task_type, state");
  } else {
    query
        .Sql(
            "SELECT f.text, t.type, t.state, count(*) FROM tasks t JOIN names f ON f.id = "
            "t.func_id WHERE t.session_id = ?")
        .Int(session->id)
        .Add(*where)
        .Sql(" GROUP BY f.text, t.type, t.state");
  }
  absl::StatusOr<SqliteStatement> select = PrepareClause(db_, query);
  if (!select.ok()) return select.status();
  json summary = json::object();
  int64_t tasks = 0, actor_tasks = 0, actor_scheduled = 0, filtered = 0;
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    const std::string name(select->Text(0));
    const auto type = static_cast<int32_t>(select->Int(1));
    const std::string state = RayStateName(static_cast<int32_t>(select->Int(2)));
    const int64_t count = select->Int(3);
    json& entry = summary[name];
    if (entry.is_null()) {
      entry = {{"func_or_class_name", name},
               {"type", TaskTypeName(type)},
               {"state_counts", json::object()}};
    }
    json& counts = entry["state_counts"];
    counts[state] = counts.value(state, int64_t{0}) + count;
    filtered += count;
    if (type == ray::rpc::NORMAL_TASK) tasks += count;
    if (type == ray::rpc::ACTOR_CREATION_TASK) actor_scheduled += count;
    if (type == ray::rpc::ACTOR_TASK) actor_tasks += count;
  }
  json node_summary = {{"summary", std::move(summary)},
                       {"total_tasks", tasks},
                       {"total_actor_tasks", actor_tasks},
                       {"total_actor_scheduled", actor_scheduled},
                       {"summary_by", "func_name"}};
  json result = {{"total", total},
                 {"num_after_truncation", total},
                 {"num_filtered", filtered},
                 {"result", {{"node_id_to_summary", {{"cluster", std::move(node_summary)}}}}},
                 {"partial_failure_warning", ""},
                 {"warnings", nullptr}};
  return Envelope(std::move(result));
}

}  // namespace rayagg::history
