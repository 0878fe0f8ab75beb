// Ray's State API for tasks (GET /api/v0/tasks and /api/v0/tasks/summarize)
// over the index: Ray's parameters and response schema
// (python/ray/util/state/common.py: ListApiResponse, TaskState,
// TaskSummaries), with the session chosen by `session_name` and no 10,000
// row cap. Tasks the history reconciled (their job finished or their node
// died before a terminal event arrived) are FAILED here, with error type
// WORKER_DIED or NODE_DIED, as Ray's own GCS marks them; the history's own
// API reports them as UNKNOWN_JOB_FINISHED / UNKNOWN_NODE_DIED.
#include <charconv>
#include <map>
#include <set>
#include <variant>

#include "common/text.h"
#include "history/api/queries.h"
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

std::string TypeName(int32_t type) {
  if (ray::rpc::TaskType_IsValid(type)) {
    return ray::rpc::TaskType_Name(static_cast<ray::rpc::TaskType>(type));
  }
  return std::to_string(type);
}

absl::StatusOr<bool> BoolParam(const QueryParams& params, std::string_view key, bool fallback) {
  std::optional<std::string> value = params.Get(key);
  if (!value) return fallback;
  const std::string lower = strings::ToLower(*value);
  if (lower == "1" || lower == "true") return true;
  if (lower == "0" || lower == "false") return false;
  return BadParameter(strings::Cat(key, ": expected true or false"));
}

struct RayFilter {
  std::string key, predicate, value;
};

absl::StatusOr<std::vector<RayFilter>> Filters(const QueryParams& params) {
  const std::vector<std::string> keys = params.All("filter_keys");
  const std::vector<std::string> predicates = params.All("filter_predicates");
  const std::vector<std::string> values = params.All("filter_values");
  if (keys.size() != predicates.size() || keys.size() != values.size()) {
    return BadParameter(
        "filter_keys, filter_predicates and filter_values must have the same length");
  }
  std::vector<RayFilter> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (predicates[i] != "=" && predicates[i] != "!=") {
      return BadParameter(strings::Cat("Unsupported filter predicate ", predicates[i].substr(0, 16),
                                       " is given. Available predicates: =, !=."));
    }
    out.push_back({keys[i], predicates[i], values[i]});
  }
  return out;
}

// Ray filters on TaskState columns, as SQL over the index. Returns the
// clause with its bound values.
struct SqlFilter {
  std::string sql;
  std::vector<std::variant<int64_t, std::string>> values;  // blobs as "b:" + bytes
};

absl::StatusOr<SqlFilter> ToSql(const std::vector<RayFilter>& filters, bool exclude_driver) {
  SqlFilter out;
  if (exclude_driver)
    strings::Append(out.sql, " AND t.type != ", static_cast<int>(ray::rpc::DRIVER_TASK));
  for (const RayFilter& f : filters) {
    const bool eq = f.predicate == "=";
    const std::string op = eq ? " = " : " != ";
    auto blob = [&](std::string_view column) -> absl::Status {
      std::optional<std::string> bytes = BytesFromHex(f.value);
      if (!bytes) {
        // No task has a malformed id: `=` matches nothing, `!=` everything.
        strings::Append(out.sql, eq ? " AND 0" : "");
        return absl::OkStatus();
      }
      strings::Append(out.sql, " AND ", column, op, "?");
      out.values.emplace_back("b:" + *bytes);
      return absl::OkStatus();
    };
    if (f.key == "task_id") {
      if (absl::Status s = blob("t.task_id"); !s.ok()) return s;
    } else if (f.key == "actor_id") {
      if (absl::Status s = blob("t.actor_id"); !s.ok()) return s;
    } else if (f.key == "worker_id") {
      if (absl::Status s = blob("t.worker_id"); !s.ok()) return s;
    } else if (f.key == "attempt_number" || f.key == "worker_pid") {
      int64_t number = 0;
      auto [end, ec] = std::from_chars(f.value.data(), f.value.data() + f.value.size(), number);
      if (ec != std::errc() || end != f.value.data() + f.value.size()) {
        return BadParameter(strings::Cat(f.key, ": expected an integer"));
      }
      strings::Append(out.sql, " AND ", f.key == "worker_pid" ? "t.worker_pid" : "t.attempt", op,
                      "?");
      out.values.emplace_back(number);
    } else if (f.key == "name" || f.key == "job_id") {
      strings::Append(out.sql, " AND t.", f.key, op, "?");
      out.values.emplace_back(f.key == "job_id" ? strings::ToLower(f.value) : f.value);
    } else if (f.key == "func_or_class_name" || f.key == "node_id") {
      strings::Append(out.sql, " AND t.", f.key == "node_id" ? "node_id" : "func_id", op,
                      "coalesce((SELECT id FROM names WHERE text = ?), -1)");
      out.values.emplace_back(f.key == "node_id" ? strings::ToLower(f.value) : f.value);
    } else if (f.key == "state") {
      const std::string name = strings::ToUpper(f.value);
      std::vector<int32_t> states;
      if (name == "FAILED") {
        states = {kFailed, kUnknownJobFinished, kUnknownNodeDied};
      } else if (std::optional<int32_t> state = TaskStateFromName(name);
                 state && *state < kUnknownJobFinished) {
        states = {*state};
      }
      if (states.empty()) {
        strings::Append(out.sql, eq ? " AND 0" : "");
        continue;
      }
      std::string list;
      for (int32_t s : states) strings::Append(list, list.empty() ? "" : ",", s);
      strings::Append(out.sql, " AND t.state ", eq ? "IN" : "NOT IN", " (", list, ")");
    } else if (f.key == "type") {
      ray::rpc::TaskType type;
      if (!ray::rpc::TaskType_Parse(strings::ToUpper(f.value), &type)) {
        strings::Append(out.sql, eq ? " AND 0" : "");
        continue;
      }
      strings::Append(out.sql, " AND t.type", op, static_cast<int>(type));
    } else if (f.key == "error_type") {
      ray::rpc::ErrorType type;
      if (!ray::rpc::ErrorType_Parse(strings::ToUpper(f.value), &type)) {
        strings::Append(out.sql, eq ? " AND 0" : "");
        continue;
      }
      strings::Append(out.sql, " AND t.error_type", op, static_cast<int>(type));
    } else {
      return BadParameter(strings::Cat(
          "filter_keys: ", f.key.substr(0, 64),
          " is not filterable here; filterable: task_id, attempt_number, name, state, job_id, "
          "actor_id, type, func_or_class_name, node_id, worker_id, worker_pid, error_type"));
    }
  }
  return out;
}

void ApplyValues(SqliteStatement& statement, int first, const SqlFilter& filter) {
  int index = first;
  for (const auto& value : filter.values) {
    if (const auto* i = std::get_if<int64_t>(&value)) {
      statement.Bind(index++, *i);
    } else {
      const std::string& s = std::get<std::string>(value);
      if (s.rfind("b:", 0) == 0) {
        statement.BindBlob(index++, std::string_view(s).substr(2));
      } else {
        statement.BindText(index++, s);
      }
    }
  }
}

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
  out["type"] = TypeName(d.task_type);
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
  if (task.has_log_info()) {
    json log = json::object();
    if (task.stdout_file.has()) log["stdout_file"] = task.stdout_file.value;
    if (task.stderr_file.has()) log["stderr_file"] = task.stderr_file.value;
    if (task.stdout_start.has()) log["stdout_start"] = task.stdout_start.value;
    if (task.stdout_end.has()) log["stdout_end"] = task.stdout_end.value;
    if (task.stderr_start.has()) log["stderr_start"] = task.stderr_start.value;
    if (task.stderr_end.has()) log["stderr_end"] = task.stderr_end.value;
    out["task_log_info"] = std::move(log);
  } else {
    out["task_log_info"] = nullptr;
  }
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

json Envelope(json result) {
  return {{"result", true}, {"msg", ""}, {"data", {{"result", std::move(result)}}}};
}

}  // namespace

absl::StatusOr<nlohmann::json> HistoryQueries::RayListTasks(const QueryParams& params) {
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session_name"));
  if (!session.ok()) return session.status();
  int64_t limit = 100;
  if (auto text = params.Get("limit")) {
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || end != text->data() + text->size() || value < 1 ||
        value > static_cast<int64_t>(limits_.max_state_api_rows)) {
      return BadParameter(strings::Cat("limit: expected 1 to ", limits_.max_state_api_rows,
                                       " (history.api.max_state_api_rows)"));
    }
    limit = value;
  }
  absl::StatusOr<bool> detail = BoolParam(params, "detail", false);
  absl::StatusOr<bool> exclude_driver = BoolParam(params, "exclude_driver", true);
  if (!detail.ok()) return detail.status();
  if (!exclude_driver.ok()) return exclude_driver.status();
  absl::StatusOr<std::vector<RayFilter>> filters = Filters(params);
  if (!filters.ok()) return filters.status();
  absl::StatusOr<SqlFilter> where = ToSql(*filters, *exclude_driver);
  if (!where.ok()) return where.status();

  db_.SetStepBudget(limits_.max_steps_thousands);
  int64_t total = 0, filtered = 0;
  {
    absl::StatusOr<SqliteStatement> count =
        db_.Prepare("SELECT coalesce(sum(count), 0) FROM summary WHERE session_id = ? AND dim = 0");
    if (!count.ok()) return count.status();
    count->Bind(1, session->id);
    absl::StatusOr<bool> row = count->Step();
    if (!row.ok()) return row.status();
    total = count->Int(0);
  }
  {
    // Without filters (drivers excluded or not) the summaries count: no scan.
    const bool unfiltered = filters->empty();
    absl::StatusOr<SqliteStatement> count = db_.Prepare(
        unfiltered
            ? strings::Cat("SELECT coalesce(sum(count), 0) FROM summary t WHERE t.session_id = ? "
                           "AND dim = 1",
                           *exclude_driver ? strings::Cat(" AND t.task_type != ",
                                                          static_cast<int>(ray::rpc::DRIVER_TASK))
                                           : std::string())
            : strings::Cat("SELECT count(*) FROM tasks t WHERE t.session_id = ?", where->sql));
    if (!count.ok()) return count.status();
    count->Bind(1, session->id);
    if (!unfiltered) ApplyValues(*count, 2, *where);
    absl::StatusOr<bool> row = count->Step();
    if (!row.ok()) {
      db_.SetStepBudget(0);
      return row.status();
    }
    filtered = count->Int(0);
  }
  absl::StatusOr<SqliteStatement> select =
      db_.Prepare(strings::Cat("SELECT t.state, t.record FROM tasks t WHERE t.session_id = ?",
                               where->sql, " ORDER BY t.task_id, t.attempt LIMIT ?"));
  if (!select.ok()) return select.status();
  select->Bind(1, session->id);
  ApplyValues(*select, 2, *where);
  select->Bind(2 + static_cast<int>(where->values.size()), limit);
  json rows = json::array();
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) {
      db_.SetStepBudget(0);
      return row.status();
    }
    if (!*row) break;
    TaskRecord task;
    if (!DecodeRecord(select->Blob(1), task).ok()) continue;
    rows.push_back(RayTaskJson(task, static_cast<int32_t>(select->Int(0)), *detail));
  }
  db_.SetStepBudget(0);
  json result = {{"total", total},
                 {"num_after_truncation", total},
                 {"num_filtered", filtered},
                 {"result", std::move(rows)},
                 {"partial_failure_warning", ""},
                 {"warnings", nullptr}};
  return Envelope(std::move(result));
}

absl::StatusOr<nlohmann::json> HistoryQueries::RaySummarizeTasks(const QueryParams& params) {
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session_name"));
  if (!session.ok()) return session.status();
  const std::string summary_by = params.Get("summary_by").value_or("func_name");
  if (summary_by != "func_name") {
    return BadParameter("summary_by: only func_name is served by the task history");
  }
  absl::StatusOr<std::vector<RayFilter>> filters = Filters(params);
  if (!filters.ok()) return filters.status();
  // Ray's summary lists tasks with its default options: drivers excluded.
  absl::StatusOr<SqlFilter> where = ToSql(*filters, true);
  if (!where.ok()) return where.status();
  db_.SetStepBudget(limits_.max_steps_thousands);
  int64_t total = 0;
  {
    absl::StatusOr<SqliteStatement> count =
        db_.Prepare("SELECT coalesce(sum(count), 0) FROM summary WHERE session_id = ? AND dim = 0");
    if (!count.ok()) return count.status();
    count->Bind(1, session->id);
    absl::StatusOr<bool> row = count->Step();
    if (!row.ok()) return row.status();
    total = count->Int(0);
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
  absl::StatusOr<SqliteStatement> select = absl::InternalError("unset");
  if (summary_table) {
    select = db_.Prepare(strings::Cat(
        "SELECT value, task_type, state, sum(count) FROM summary WHERE session_id = ? AND dim = 1 "
        "AND task_type != ",
        static_cast<int>(ray::rpc::DRIVER_TASK), job ? " AND job_id = ?" : "",
        " GROUP BY value, task_type, state"));
    if (select.ok()) {
      select->Bind(1, session->id);
      if (job) select->BindText(2, *job);
    }
  } else {
    select = db_.Prepare(strings::Cat(
        "SELECT f.text, t.type, t.state, count(*) FROM tasks t JOIN names f ON f.id = t.func_id "
        "WHERE t.session_id = ?",
        where->sql, " GROUP BY f.text, t.type, t.state"));
    if (select.ok()) {
      select->Bind(1, session->id);
      ApplyValues(*select, 2, *where);
    }
  }
  if (!select.ok()) return select.status();
  json summary = json::object();
  int64_t tasks = 0, actor_tasks = 0, actor_scheduled = 0, filtered = 0;
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) {
      db_.SetStepBudget(0);
      return row.status();
    }
    if (!*row) break;
    const std::string name(select->Text(0));
    const auto type = static_cast<int32_t>(select->Int(1));
    const std::string state = RayStateName(static_cast<int32_t>(select->Int(2)));
    const int64_t count = select->Int(3);
    json& entry = summary[name];
    if (entry.is_null()) {
      entry = {
          {"func_or_class_name", name}, {"type", TypeName(type)}, {"state_counts", json::object()}};
    }
    json& counts = entry["state_counts"];
    counts[state] = counts.value(state, int64_t{0}) + count;
    filtered += count;
    if (type == ray::rpc::NORMAL_TASK) tasks += count;
    if (type == ray::rpc::ACTOR_CREATION_TASK) actor_scheduled += count;
    if (type == ray::rpc::ACTOR_TASK) actor_tasks += count;
  }
  db_.SetStepBudget(0);
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
