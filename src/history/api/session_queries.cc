// The session-level answers: which session a request means, the sessions
// list, task counts by state and the group panels, all read from the
// sessions table and the per-group summaries (no scan of tasks).
#include <algorithm>
#include <map>
#include <set>

#include "common/text.h"
#include "history/api/answer_json.h"
#include "history/api/param_parsing.h"
#include "history/api/queries.h"
#include "history/api/sql_clause.h"
#include "history/api/task_fields.h"
#include "history/index/index_writer.h"
#include "history/index/manifest_check.h"
#include "history/index/session_removal.h"

namespace rayagg::history {

using nlohmann::json;

absl::StatusOr<SessionRow> HistoryQueries::ResolveSession(
    const std::optional<std::string>& selector) {
  absl::StatusOr<SqliteStatement> statement = absl::InternalError("unset");
  if (!selector || selector->empty()) {
    statement = db_.Prepare(
        "SELECT id, cluster, name FROM sessions WHERE status != 'evicted' ORDER BY name DESC, id "
        "DESC "
        "LIMIT 1");
  } else {
    const size_t slash = selector->rfind('/');
    if (slash == std::string::npos) {
      statement = db_.Prepare(
          "SELECT id, cluster, name FROM sessions WHERE name=? AND status != 'evicted' ORDER BY id "
          "DESC LIMIT 2");
      if (statement.ok()) statement->BindText(1, *selector);
    } else {
      statement = db_.Prepare(
          "SELECT id, cluster, name FROM sessions WHERE cluster=? AND name=? AND status != "
          "'evicted'");
      if (statement.ok()) {
        statement->BindText(1, selector->substr(0, slash)).BindText(2, selector->substr(slash + 1));
      }
    }
  }
  if (!statement.ok()) return statement.status();
  std::vector<SessionRow> rows;
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    rows.push_back({row.Int(0), std::string(row.Text(1)), std::string(row.Text(2))});
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  if (rows.empty()) {
    // A removed session says why and when (index/session_removal.h).
    if (selector && !selector->empty()) {
      absl::StatusOr<std::optional<SessionRemoval>> removal = FindRemoval(db_, *selector);
      if (!removal.ok()) return removal.status();
      if (removal->has_value()) return absl::NotFoundError(DescribeRemoval(*selector, **removal));
    }
    return absl::NotFoundError(selector ? "no such session in the index"
                                        : "the index holds no sessions yet");
  }
  if (rows.size() > 1) {
    return BadParameter("session: that name exists in several clusters; give <cluster>/<session>");
  }
  return rows.front();
}

absl::StatusOr<nlohmann::json> HistoryQueries::Sessions(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(
          params, {"cluster", "active_after_ms", "active_before_ms", "limit", "cursor"});
      !known.ok()) {
    return known;
  }
  absl::StatusOr<int64_t> limit = IntParam(params, "limit", 100, 1, 10'000);
  absl::StatusOr<int64_t> after_id = IntParam(params, "cursor", INT64_MAX, 0, INT64_MAX);
  if (!limit.ok()) return limit.status();
  if (!after_id.ok()) return after_id.status();
  std::string sql =
      "SELECT id, cluster, kind, namespace, owner, cluster_name, name, has_marker, first_event_ns, "
      "last_event_ns, status, objects, object_bytes, events, ignored_events, bad_lines, "
      "bad_objects, dropped_task_attempts, removed_reason, removed_ms, removed_detail FROM "
      "sessions WHERE id < ?";
  SqlClause clause;
  clause.Sql(sql).Int(*after_id);
  if (auto cluster = params.Get("cluster")) clause.Sql(" AND cluster = ?").Text(*cluster);
  // Sessions with an event in the range: those that began before its end
  // and ended after its start.
  if (auto text = params.Get("active_after_ms")) {
    absl::StatusOr<double> ms = ParseMillisParam("active_after_ms", *text);
    if (!ms.ok()) return ms.status();
    clause.Sql(" AND last_event_ns >= ?").Int(static_cast<int64_t>(*ms * 1e6));
  }
  if (auto text = params.Get("active_before_ms")) {
    absl::StatusOr<double> ms = ParseMillisParam("active_before_ms", *text);
    if (!ms.ok()) return ms.status();
    clause.Sql(" AND first_event_ns >= 0 AND first_event_ns < ?")
        .Int(static_cast<int64_t>(*ms * 1e6));
  }
  clause.Sql(" ORDER BY id DESC LIMIT ?").Int(*limit + 1);
  absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, clause);
  if (!statement.ok()) return statement.status();
  json sessions = json::array();
  std::optional<int64_t> next;
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    if (static_cast<int64_t>(sessions.size()) == *limit) {
      next = sessions.back()["_id"].get<int64_t>();
      return absl::OkStatus();
    }
    json s;
    s["_id"] = row.Int(0);
    s["cluster"] = row.Text(1);
    s["kind"] = row.Text(2);
    s["namespace"] = row.Text(3);
    s["owner"] = row.Text(4);
    s["cluster_name"] = row.Text(5);
    s["session_name"] = row.Text(6);
    s["session"] = strings::Cat(row.Text(1), "/", row.Text(6));
    s["has_marker"] = row.Int(7) != 0;
    s["first_event_time_ms"] = NsToMs(row.Int(8));
    s["last_event_time_ms"] = NsToMs(row.Int(9));
    s["status"] = row.Text(10);
    s["objects"] = row.Int(11);
    s["object_bytes"] = row.Int(12);
    s["events"] = row.Int(13);
    s["ignored_events"] = row.Int(14);
    s["bad_lines"] = row.Int(15);
    s["bad_objects"] = row.Int(16);
    s["lost_before_export"] = row.Int(17);
    // A removed session stays listed, saying why and when
    // (index/session_removal.h); its tasks are gone from the index.
    if (s["status"] == "evicted") {
      s["status"] = "removed";
      s["removed"] = {{"reason", row.Text(18)}, {"time_ms", row.Int(19)}, {"detail", row.Text(20)}};
    }
    sessions.push_back(std::move(s));
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  // Task counts and finished/live from the summaries and jobs.
  for (json& s : sessions) {
    const int64_t id = s["_id"].get<int64_t>();
    s.erase("_id");
    absl::StatusOr<json> counts =
        CountsOf({id, s["cluster"].get<std::string>(), s["session_name"].get<std::string>()},
                 std::nullopt, static_cast<int>(CountUnit::kTasks));
    if (!counts.ok()) return counts.status();
    s["tasks"] = {{"total", (*counts)["tasks"]},
                  {"attempts", (*counts)["attempts"]},
                  {"by_state", (*counts)["by_state"]}};
    s["finished"] = s["status"] != "live";
    absl::StatusOr<ManifestReport> manifests = CheckManifests(db_, id);
    if (!manifests.ok()) return manifests.status();
    s["manifests"] = {{"writers", manifests->writers},
                      {"objects_without_manifest", manifests->objects_without_manifest},
                      {"gaps", manifests->gaps},
                      {"gap_events", manifests->gap_events},
                      {"missing_events", manifests->missing_events}};
  }
  json out;
  out["sessions"] = std::move(sessions);
  out["next_cursor"] = next ? json(std::to_string(*next)) : json(nullptr);
  return out;
}

absl::StatusOr<nlohmann::json> HistoryQueries::CountsOf(const SessionRow& session,
                                                        const std::optional<std::string>& job,
                                                        int unit) {
  SqlClause clause;
  clause.Sql("SELECT unit, state, sum(count) FROM summary WHERE session_id=? AND dim=0")
      .Int(session.id);
  if (job) clause.Sql(" AND job_id=?").Text(strings::ToLower(*job));
  clause.Sql(" GROUP BY unit, state");
  absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, clause);
  if (!statement.ok()) return statement.status();
  json by_state = json::object();
  int64_t totals[2] = {0, 0};
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    const int64_t row_unit = row.Int(0);
    if (row_unit != 0 && row_unit != 1) return absl::OkStatus();
    totals[row_unit] += row.Int(2);
    if (row_unit == unit) by_state[TaskStateName(static_cast<int32_t>(row.Int(1)))] = row.Int(2);
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  json out;
  out["session"] = strings::Cat(session.cluster, "/", session.name);
  out["job_id"] = job ? json(strings::ToLower(*job)) : json(nullptr);
  out["unit"] = UnitName(static_cast<CountUnit>(unit));
  out["total"] = totals[unit];
  out["by_state"] = std::move(by_state);
  out["tasks"] = totals[static_cast<int>(CountUnit::kTasks)];
  out["attempts"] = totals[static_cast<int>(CountUnit::kAttempts)];
  return out;
}

absl::StatusOr<nlohmann::json> HistoryQueries::Counts(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(params, {"session", "job_id", "unit"}); !known.ok()) {
    return known;
  }
  absl::StatusOr<CountUnit> unit = UnitParam(params);
  if (!unit.ok()) return unit.status();
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  return CountsOf(*session, params.Get("job_id"), static_cast<int>(*unit));
}

absl::StatusOr<nlohmann::json> HistoryQueries::Groups(const QueryParams& params) {
  if (absl::Status known =
          RequireKnownParams(params, {"session", "by", "job_id", "unit", "limit", "cursor"});
      !known.ok()) {
    return known;
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  const std::string by = params.Get("by").value_or("function");
  SummaryDim dim;
  if (by == "function") {
    dim = SummaryDim::kFunction;
  } else if (by == "error_type") {
    dim = SummaryDim::kErrorType;
  } else if (by == "job") {
    dim = SummaryDim::kJob;
  } else if (by == "node") {
    dim = SummaryDim::kNode;
  } else {
    return BadParameter("by: expected function, error_type, job or node");
  }
  absl::StatusOr<int64_t> limit_param = IntParam(params, "limit", 1000, 1, 100'000);
  absl::StatusOr<int64_t> offset_param = IntParam(params, "cursor", 0, 0, INT64_MAX);
  if (!limit_param.ok()) return limit_param.status();
  if (!offset_param.ok()) return offset_param.status();
  const int64_t limit = *limit_param, offset = *offset_param;
  absl::StatusOr<CountUnit> unit = UnitParam(params);
  if (!unit.ok()) return unit.status();
  // Both units: the unit's counts and distributions, the other's total
  // beside them ("1,204 tasks · 1,260 attempts").
  SqlClause clause;
  clause
      .Sql(
          "SELECT value, task_type, state, count, stats, unit FROM summary WHERE session_id=? "
          "AND dim=?")
      .Int(session->id)
      .Int(static_cast<int64_t>(dim));
  std::optional<std::string> job = params.Get("job_id");
  if (job) clause.Sql(" AND job_id=?").Text(strings::ToLower(*job));
  absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, clause);
  if (!statement.ok()) return statement.status();
  struct Group {
    int64_t total = 0;
    int64_t other_unit_total = 0;
    std::map<int32_t, int64_t> by_state;
    std::set<int32_t> types;
    SummaryStats stats;
  };
  std::map<std::string, Group> groups;
  const int64_t wanted_unit = static_cast<int64_t>(*unit);
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    Group& group = groups[std::string(row.Text(0))];
    if (row.Int(5) != wanted_unit) {
      group.other_unit_total += row.Int(3);
      return absl::OkStatus();
    }
    group.total += row.Int(3);
    group.by_state[static_cast<int32_t>(row.Int(2))] += row.Int(3);
    group.types.insert(static_cast<int32_t>(row.Int(1)));
    SummaryStats stats;
    if (absl::Status decoded = stats.Decode(row.Blob(4)); !decoded.ok()) return decoded;
    group.stats.Merge(stats);
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  std::vector<std::pair<const std::string*, const Group*>> ordered;
  for (const auto& [key, group] : groups) {
    // A value seen only in the other unit (a function of superseded
    // attempts alone) is no row of this one.
    if (group.total > 0) ordered.emplace_back(&key, &group);
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return a.second->total != b.second->total ? a.second->total > b.second->total
                                              : *a.first < *b.first;
  });
  json out_groups = json::array();
  for (size_t i =
           static_cast<size_t>(std::min<int64_t>(offset, static_cast<int64_t>(ordered.size())));
       i < ordered.size() && out_groups.size() < static_cast<size_t>(limit); ++i) {
    const Group& group = *ordered[i].second;
    json g;
    g["key"] = *ordered[i].first;
    if (dim == SummaryDim::kFunction) {
      json types = json::array();
      for (int32_t type : group.types) types.push_back(TaskTypeName(type));
      g["task_types"] = std::move(types);
    }
    g["total"] = group.total;
    g[*unit == CountUnit::kTasks ? "attempts" : "tasks"] = group.other_unit_total;
    json by_state = json::object();
    for (const auto& [state, count] : group.by_state) by_state[TaskStateName(state)] = count;
    g["by_state"] = std::move(by_state);
    g["durations"] = {{"pending", DistributionJson(group.stats.pending)},
                      {"running", DistributionJson(group.stats.running)},
                      {"total", DistributionJson(group.stats.total)}};
    out_groups.push_back(std::move(g));
  }
  const int64_t next = offset + static_cast<int64_t>(out_groups.size());
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["by"] = by;
  out["unit"] = UnitName(*unit);
  out["job_id"] = job ? json(strings::ToLower(*job)) : json(nullptr);
  out["groups"] = std::move(out_groups);
  out["next_cursor"] =
      next < static_cast<int64_t>(ordered.size()) ? json(std::to_string(next)) : json(nullptr);
  return out;
}

}  // namespace rayagg::history
