// Lists of a session's actors and jobs, keyset-paged by id (the tables'
// primary keys), with their states; details are the actor and job routes.
#include "common/text.h"
#include "history/api/answer_json.h"
#include "history/api/param_parsing.h"
#include "history/api/queries.h"
#include "history/api/sql_clause.h"
#include "history/api/task_fields.h"
#include "history/fold/record_codec.h"

namespace rayagg::history {

using nlohmann::json;

absl::StatusOr<nlohmann::json> HistoryQueries::Actors(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(
          params, {"session", "state", "job_id", "class_name", "limit", "cursor"});
      !known.ok()) {
    return known;
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  absl::StatusOr<int64_t> limit =
      IntParam(params, "limit", 100, 1, static_cast<int64_t>(limits_.max_page_rows));
  if (!limit.ok()) return limit.status();
  SqlClause query;
  query
      .Sql(
          "SELECT actor_id, state, class_name, name, job_id, record FROM actors WHERE "
          "session_id = ?")
      .Int(session->id);
  if (auto state = params.Get("state")) {
    std::optional<int32_t> value = ActorStateFromName(strings::ToUpper(*state));
    if (!value) return BadParameter("state: unknown actor state");
    query.Sql(" AND state = ?").Int(*value);
  }
  if (auto job = params.Get("job_id")) query.Sql(" AND job_id = ?").Text(strings::ToLower(*job));
  if (auto name = params.Get("class_name")) query.Sql(" AND class_name = ?").Text(*name);
  if (auto cursor = params.Get("cursor")) query.Sql(" AND actor_id > ?").Text(*cursor);
  query.Sql(" ORDER BY actor_id LIMIT ?").Int(*limit + 1);
  absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, query);
  if (!statement.ok()) return statement.status();
  json actors = json::array();
  absl::StatusOr<bool> more = ReadPage(*statement, *limit, actors, [](const SqliteStatement& row) {
    ActorRecord actor;
    const bool decoded = DecodeRecord(row.Blob(5), actor).ok();
    json item = {{"actor_id", row.Text(0)},
                 {"state", ActorStateJson(static_cast<int32_t>(row.Int(1)))},
                 {"class_name", row.Text(2)},
                 {"name", row.Text(3)},
                 {"job_id", row.Text(4)}};
    item["restarts"] = decoded ? json(actor.restarts()) : json(nullptr);
    item["start_time_ms"] =
        decoded && actor.start_ns() != kNoTime ? NsToMs(actor.start_ns()) : json(nullptr);
    item["end_time_ms"] =
        decoded && actor.end_ns() != kNoTime ? NsToMs(actor.end_ns()) : json(nullptr);
    return item;
  });
  if (!more.ok()) return more.status();
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["next_cursor"] = *more ? actors.back()["actor_id"] : json(nullptr);
  out["actors"] = std::move(actors);
  return out;
}

absl::StatusOr<nlohmann::json> HistoryQueries::Jobs(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(params, {"session", "limit", "cursor"});
      !known.ok()) {
    return known;
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  absl::StatusOr<int64_t> limit =
      IntParam(params, "limit", 100, 1, static_cast<int64_t>(limits_.max_page_rows));
  if (!limit.ok()) return limit.status();
  SqlClause query;
  query.Sql("SELECT job_id, record FROM jobs WHERE session_id = ?").Int(session->id);
  if (auto cursor = params.Get("cursor")) query.Sql(" AND job_id > ?").Text(*cursor);
  query.Sql(" ORDER BY job_id LIMIT ?").Int(*limit + 1);
  absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, query);
  if (!statement.ok()) return statement.status();
  json jobs = json::array();
  absl::StatusOr<bool> more = ReadPage(*statement, *limit, jobs, [](const SqliteStatement& row) {
    JobRecord job;
    if (!DecodeRecord(row.Blob(1), job).ok()) job = JobRecord();
    job.job_id = std::string(row.Text(0));
    json item = {{"job_id", job.job_id}, {"status", JobStatusName(job)}};
    item["start_time_ms"] = job.start_ns() != kNoTime ? NsToMs(job.start_ns()) : json(nullptr);
    item["end_time_ms"] = job.finished_ns() != kNoTime ? NsToMs(job.finished_ns()) : json(nullptr);
    item["entrypoint"] =
        job.definition.has() ? json(job.definition.value.entrypoint) : json(nullptr);
    return item;
  });
  if (!more.ok()) return more.status();
  // Task counts per job, from the summaries (one read per job of the page).
  for (json& item : jobs) {
    absl::StatusOr<json> counts =
        CountsOf(*session, item["job_id"].get<std::string>(), static_cast<int>(CountUnit::kTasks));
    if (!counts.ok()) return counts.status();
    item["tasks"] = {{"total", (*counts)["total"]},
                     {"attempts", (*counts)["attempts"]},
                     {"by_state", (*counts)["by_state"]}};
  }
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["next_cursor"] = *more ? jobs.back()["job_id"] : json(nullptr);
  out["jobs"] = std::move(jobs);
  return out;
}

}  // namespace rayagg::history
