// The detail answers: one task (every attempt), one actor, one job.
#include <algorithm>
#include <tuple>

#include "common/text.h"
#include "history/api/answer_json.h"
#include "history/api/param_parsing.h"
#include "history/api/queries.h"
#include "history/api/search.h"
#include "history/api/task_fields.h"
#include "history/fold/record_codec.h"
#include "history/index/index_writer.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

// [start, end) UTF-16 ranges of the search in the detail's texts and ids.
json DetailMatches(const json& detail, const SearchQuery& search) {
  json matches = json::object();
  if (detail["definition"].is_object()) {
    for (std::string_view field : {"function", "name"}) {
      AddMatchRanges(
          matches, field,
          MatchOffsets(detail["definition"][field].get_ref<const std::string&>(), search));
    }
  }
  if (detail["error"].is_object()) {
    AddMatchRanges(
        matches, "exception",
        MatchOffsets(detail["error"]["exception"].get_ref<const std::string&>(), search));
    AddMatchRanges(matches, "error_message",
                   MatchOffsets(detail["error"]["message"].get_ref<const std::string&>(), search));
  }
  for (std::string_view field : {"task_id", "job_id", "node_id"}) {
    AddMatchRanges(matches, field,
                   IdPrefixMatch(detail[field].get_ref<const std::string&>(), search));
  }
  return matches;
}

json TaskDetailJson(const TaskRecord& task, int32_t state, const std::string& exception) {
  json out;
  out["task_id"] = task.task_id;
  out["attempt"] = task.attempt;
  out["state"] = TaskStateName(state);
  out["raw_state"] = TaskStateName(task.raw_state());
  out["job_id"] = task.job_id();
  if (task.definition.has()) {
    const TaskDefinition& d = task.definition.value;
    out["definition"] = {{"type", TaskTypeName(d.task_type)},
                         {"language", LanguageName(d.language)},
                         {"function", d.func_name},
                         {"name", d.task_name},
                         {"parent_task_id", d.parent_task_id},
                         {"placement_group_id", d.placement_group_id},
                         {"actor_id", d.actor_id},
                         {"required_resources", ParsedOrNull(d.required_resources)},
                         {"runtime_env", d.serialized_runtime_env},
                         {"label_selector", ParsedOrNull(d.label_selector)},
                         {"call_site", d.call_site},
                         {"is_detached_actor", d.is_detached_actor}};
  } else {
    out["definition"] = nullptr;
  }
  out["transitions"] = TransitionsJson(task);
  out["node_id"] = task.node_id.value;
  out["worker_id"] = task.worker_id.value;
  out["worker_pid"] = task.worker_pid.value;
  out["actor_repr_name"] =
      task.actor_repr_name.has() ? json(task.actor_repr_name.value) : json(nullptr);
  out["is_debugger_paused"] =
      task.is_debugger_paused.has() ? json(task.is_debugger_paused.value) : json(nullptr);
  if (task.error.has()) {
    out["error"] = {{"type", ErrorTypeName(task.error.value.error_type)},
                    {"exception", exception},
                    {"message", task.error.value.message}};
  } else {
    out["error"] = nullptr;
  }
  const TaskDurations d = DurationsOf(task);
  out["creation_time_ms"] = NsToMs(task.creation_ns() == kNoTime ? -1 : task.creation_ns());
  out["start_time_ms"] = NsToMs(task.start_ns() == kNoTime ? -1 : task.start_ns());
  out["end_time_ms"] = NsToMs(task.end_ns() == kNoTime ? -1 : task.end_ns());
  out["pending_ms"] = DurationMs(d.pending_ns == kNoTime ? -1 : d.pending_ns);
  out["running_ms"] = DurationMs(d.running_ns == kNoTime ? -1 : d.running_ns);
  out["total_ms"] = DurationMs(d.total_ns == kNoTime ? -1 : d.total_ns);
  out["task_log_info"] = LogInfoJson(task);
  out["profile"] = ProfileJson(task);
  return out;
}

}  // namespace

absl::StatusOr<nlohmann::json> HistoryQueries::Task(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(params, {"session", "task_id", "attempt", "q"});
      !known.ok()) {
    return known;
  }
  // `q`: the search the user came from, highlighted in the whole answer.
  std::optional<SearchQuery> search;
  if (auto q = params.Get("q")) {
    absl::StatusOr<SearchQuery> parsed = ParseSearch(*q);
    if (!parsed.ok()) return parsed.status();
    search = std::move(*parsed);
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  absl::StatusOr<std::string> task_id = HexIdParam(params, "task_id");
  if (!task_id.ok()) return task_id.status();
  absl::StatusOr<SqliteStatement> statement = db_.Prepare(
      "SELECT t.attempt, t.state, t.record, e.text FROM tasks t JOIN names e ON e.id = "
      "t.exception_id WHERE t.session_id = ? AND t.task_id = ? ORDER BY t.attempt");
  if (!statement.ok()) return statement.status();
  statement->Bind(1, session->id).BindBlob(2, *BytesFromHex(*task_id));
  std::optional<int64_t> wanted;
  if (auto text = params.Get("attempt")) {
    absl::StatusOr<int64_t> attempt = ParseIntParam("attempt", *text, 0, INT32_MAX);
    if (!attempt.ok()) return attempt.status();
    wanted = *attempt;
  }
  json attempts = json::array();
  json chosen;
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    attempts.push_back(
        {{"attempt", row.Int(0)}, {"state", TaskStateName(static_cast<int32_t>(row.Int(1)))}});
    if (!wanted || *wanted == row.Int(0)) {
      TaskRecord task;
      if (absl::Status decoded = DecodeRecord(row.Blob(2), task); !decoded.ok()) return decoded;
      chosen = TaskDetailJson(task, static_cast<int32_t>(row.Int(1)), std::string(row.Text(3)));
    }
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  if (chosen.is_null()) return absl::NotFoundError("no such task (attempt) in this session");
  chosen["session"] = strings::Cat(session->cluster, "/", session->name);
  chosen["attempts"] = std::move(attempts);
  if (search) chosen["matches"] = DetailMatches(chosen, *search);
  return chosen;
}

absl::StatusOr<nlohmann::json> HistoryQueries::Actor(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(params, {"session", "actor_id"}); !known.ok()) {
    return known;
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  absl::StatusOr<std::string> actor_id = HexIdParam(params, "actor_id");
  if (!actor_id.ok()) return actor_id.status();
  absl::StatusOr<SqliteStatement> statement =
      db_.Prepare("SELECT record FROM actors WHERE session_id = ? AND actor_id = ?");
  if (!statement.ok()) return statement.status();
  statement->Bind(1, session->id).BindText(2, *actor_id);
  absl::StatusOr<bool> row = statement->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError("no such actor in this session");
  ActorRecord actor;
  if (absl::Status decoded = DecodeRecord(statement->Blob(0), actor); !decoded.ok()) return decoded;
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["actor_id"] = actor.actor_id;
  out["state"] = ActorStateJson(actor.state());
  out["restarts"] = actor.restarts();
  out["start_time_ms"] = NsToMs(actor.start_ns() == kNoTime ? -1 : actor.start_ns());
  out["end_time_ms"] = NsToMs(actor.end_ns() == kNoTime ? -1 : actor.end_ns());
  if (actor.definition.has()) {
    const ActorDefinition& d = actor.definition.value;
    out["definition"] = {{"job_id", d.job_id},
                         {"name", d.name},
                         {"ray_namespace", d.ray_namespace},
                         {"class_name", d.class_name},
                         {"runtime_env", d.serialized_runtime_env},
                         {"required_resources", ParsedOrNull(d.required_resources)},
                         {"placement_group_id", d.placement_group_id},
                         {"label_selector", ParsedOrNull(d.label_selector)},
                         {"call_site", d.call_site},
                         {"parent_id", d.parent_id},
                         {"is_detached", d.is_detached}};
  } else {
    out["definition"] = nullptr;
  }
  std::vector<const ActorTransition*> ordered;
  for (const ActorTransition& t : actor.transitions) ordered.push_back(&t);
  std::sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
    return std::tie(a->time_ns, a->state) < std::tie(b->time_ns, b->state);
  });
  json transitions = json::array();
  json death_cause = nullptr;
  for (const ActorTransition* t : ordered) {
    json item = {{"state", ActorStateJson(t->state)},
                 {"time_ms", t->time_ns / 1'000'000},
                 {"node_id", t->node_id},
                 {"worker_id", t->worker_id},
                 {"repr_name", t->repr_name},
                 {"pid", t->pid},
                 {"port", t->port}};
    if (t->state == 3) item["restart_reason"] = t->restart_reason;
    if (!t->death_cause.empty()) {
      item["death_cause"] = ParsedOrNull(t->death_cause);
      death_cause = item["death_cause"];
    }
    transitions.push_back(std::move(item));
  }
  out["transitions"] = std::move(transitions);
  out["death_cause"] = std::move(death_cause);
  return out;
}

absl::StatusOr<nlohmann::json> HistoryQueries::Job(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(params, {"session", "job_id"}); !known.ok()) {
    return known;
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  absl::StatusOr<std::string> job_id = HexIdParam(params, "job_id");
  if (!job_id.ok()) return job_id.status();
  absl::StatusOr<SqliteStatement> statement =
      db_.Prepare("SELECT record FROM jobs WHERE session_id = ? AND job_id = ?");
  if (!statement.ok()) return statement.status();
  statement->Bind(1, session->id).BindText(2, *job_id);
  absl::StatusOr<bool> row = statement->Step();
  if (!row.ok()) return row.status();
  json out;
  JobRecord job;
  job.job_id = *job_id;
  const bool known = *row;
  if (known) {
    if (absl::Status decoded = DecodeRecord(statement->Blob(0), job); !decoded.ok()) return decoded;
  }
  absl::StatusOr<nlohmann::json> counts =
      CountsOf(*session, *job_id, static_cast<int>(CountUnit::kTasks));
  if (!counts.ok()) return counts.status();
  if (!known && (*counts)["total"] == 0) return absl::NotFoundError("no such job in this session");
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["job_id"] = job.job_id;
  out["status"] = JobStatusName(job);
  out["start_time_ms"] = NsToMs(job.start_ns() == kNoTime ? -1 : job.start_ns());
  out["end_time_ms"] = NsToMs(job.finished_ns() == kNoTime ? -1 : job.finished_ns());
  if (job.definition.has()) {
    const JobDefinition& d = job.definition.value;
    out["definition"] = {{"entrypoint", d.entrypoint},
                         {"driver_node_id", d.driver_node_id},
                         {"driver_pid", d.driver_pid},
                         {"runtime_env", d.serialized_runtime_env},
                         {"metadata", ParsedOrNull(d.metadata)}};
  } else {
    out["definition"] = nullptr;
  }
  json transitions = json::array();
  std::vector<const JobTransition*> ordered;
  for (const JobTransition& t : job.transitions) ordered.push_back(&t);
  std::sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
    return std::tie(a->time_ns, a->state) < std::tie(b->time_ns, b->state);
  });
  for (const JobTransition* t : ordered) {
    json item = {
        {"state", t->state == 1 ? "CREATED" : (t->state == 2 ? "FINISHED" : "UNSPECIFIED")},
        {"time_ms", t->time_ns / 1'000'000},
        {"message", t->message},
        {"error_type", t->error_type}};
    item["exit_code"] = t->exit_code ? json(*t->exit_code) : json(nullptr);
    transitions.push_back(std::move(item));
  }
  out["transitions"] = std::move(transitions);
  out["tasks"] = {{"total", (*counts)["total"]},
                  {"attempts", (*counts)["attempts"]},
                  {"by_state", (*counts)["by_state"]}};
  return out;
}

}  // namespace rayagg::history
