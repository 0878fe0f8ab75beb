#include "history/api/queries.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <variant>
#include <vector>

#include "common/text.h"
#include "history/fold/record_codec.h"
#include "history/fold/task_record.h"
#include "history/index/duration_stats.h"
#include "history/index/index_writer.h"
#include "history/index/manifest_check.h"
#include "src/ray/protobuf/common.pb.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

// Binds collected in order, then applied to the prepared statement.
struct Binds {
  std::vector<std::variant<int64_t, double, std::string, std::pair<std::string, bool>>> values;
  void Int(int64_t v) { values.emplace_back(v); }
  void Real(double v) { values.emplace_back(v); }
  void Text(std::string v) { values.emplace_back(std::move(v)); }
  void Blob(std::string v) { values.emplace_back(std::make_pair(std::move(v), true)); }
  void Apply(SqliteStatement& statement) const {
    int index = 1;
    for (const auto& value : values) {
      if (const auto* i = std::get_if<int64_t>(&value)) {
        statement.Bind(index, *i);
      } else if (const auto* d = std::get_if<double>(&value)) {
        statement.Bind(index, *d);
      } else if (const auto* s = std::get_if<std::string>(&value)) {
        statement.BindText(index, *s);
      } else {
        statement.BindBlob(index, std::get<std::pair<std::string, bool>>(value).first);
      }
      ++index;
    }
  }
};

absl::StatusOr<int64_t> ParseInt(std::string_view name, std::string_view text, int64_t min,
                                 int64_t max) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return BadParameter(strings::Cat(name, ": expected an integer from ", min, " to ", max));
  }
  return value;
}

absl::StatusOr<double> ParseMillis(std::string_view name, std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  // At most what int64 nanoseconds hold (about 292 years), as the value is
  // compared with them.
  if (ec != std::errc() || end != text.data() + text.size() || !(value >= 0) || value > 9e12) {
    return BadParameter(strings::Cat(name, ": expected a non-negative number of milliseconds"));
  }
  return value;
}

std::vector<std::string> SplitComma(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& value : values) {
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      if (comma > start) out.push_back(value.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

json NsToMs(int64_t ns) { return ns < 0 ? json(nullptr) : json(ns / 1'000'000); }
json DurationMs(int64_t ns) {
  return ns < 0 ? json(nullptr) : json(static_cast<double>(ns / 1000) / 1000.0);
}

std::string TaskTypeName(int32_t type) {
  if (ray::rpc::TaskType_IsValid(type)) {
    return ray::rpc::TaskType_Name(static_cast<ray::rpc::TaskType>(type));
  }
  return std::to_string(type);
}

std::string LanguageName(int32_t language) {
  if (ray::rpc::Language_IsValid(language)) {
    return ray::rpc::Language_Name(static_cast<ray::rpc::Language>(language));
  }
  return std::to_string(language);
}

json ParsedOrNull(const std::string& text) {
  if (text.empty()) return json::object();
  json value = json::parse(text, nullptr, false);
  return value.is_discarded() ? json(text) : value;
}

std::string HexOrEmpty(std::string_view bytes) { return HexId(bytes); }

// Ops on the cursor: the sort key, direction, last value and row id, as hex
// of a JSON array so it is opaque and URL-safe.
std::string EncodeCursor(const json& cursor) { return HexId(cursor.dump()); }

absl::StatusOr<json> DecodeCursor(std::string_view text) {
  std::optional<std::string> bytes = BytesFromHex(text);
  if (!bytes) return BadParameter("cursor: not a cursor this API returned");
  json value = json::parse(*bytes, nullptr, false);
  if (value.is_discarded() || !value.is_array() || value.size() != 4 || !value[0].is_string() ||
      !value[1].is_string() || !value[3].is_number_integer()) {
    return BadParameter("cursor: not a cursor this API returned");
  }
  return value;
}

struct SortColumn {
  std::string_view name;
  std::string_view expression;
  bool text;
};

constexpr SortColumn kSortColumns[] = {
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

constexpr std::string_view kTaskColumns =
    "t.id, t.task_id, t.attempt, t.state, t.raw_state, t.type, f.text, t.name, t.job_id, n.text, "
    "t.worker_id, t.worker_pid, t.actor_id, t.error_type, e.text, t.creation_ns, t.start_ns, "
    "t.end_ns, t.pending_ns, t.running_ns, t.total_ns";
constexpr std::string_view kTaskJoins =
    " FROM tasks t JOIN names f ON f.id = t.func_id JOIN names n ON n.id = t.node_id "
    "JOIN names e ON e.id = t.exception_id ";

json TaskRowJson(const SqliteStatement& row) {
  json task;
  task["task_id"] = HexOrEmpty(row.Blob(1));
  task["attempt"] = row.Int(2);
  task["state"] = TaskStateName(static_cast<int32_t>(row.Int(3)));
  task["raw_state"] = TaskStateName(static_cast<int32_t>(row.Int(4)));
  task["type"] = TaskTypeName(static_cast<int32_t>(row.Int(5)));
  task["function"] = row.Text(6);
  task["name"] = row.Text(7);
  task["job_id"] = row.Text(8);
  task["node_id"] = row.Text(9);
  task["worker_id"] = HexOrEmpty(row.Blob(10));
  task["worker_pid"] = row.Int(11);
  task["actor_id"] = HexOrEmpty(row.Blob(12));
  const int64_t error_type = row.Int(13);
  task["error_type"] =
      error_type < 0 ? json(nullptr) : json(ErrorTypeName(static_cast<int32_t>(error_type)));
  task["exception"] = row.Text(14);
  task["creation_time_ms"] = NsToMs(row.Int(15));
  task["start_time_ms"] = NsToMs(row.Int(16));
  task["end_time_ms"] = NsToMs(row.Int(17));
  task["pending_ms"] = DurationMs(row.Int(18));
  task["running_ms"] = DurationMs(row.Int(19));
  task["total_ms"] = DurationMs(row.Int(20));
  return task;
}

json DistributionJson(const DurationStats& stats) {
  json out;
  out["count"] = stats.count();
  auto ms = [](int64_t ns) { return static_cast<double>(ns / 1000) / 1000.0; };
  out["p50_ms"] = ms(stats.Quantile(0.5));
  out["p90_ms"] = ms(stats.Quantile(0.9));
  out["p99_ms"] = ms(stats.Quantile(0.99));
  out["max_ms"] = ms(stats.max_ns());
  out["mean_ms"] = stats.count() > 0 ? ms(stats.sum_ns() / stats.count()) : 0.0;
  json buckets = json::array();
  for (const auto& [upper, count] : stats.Octaves()) {
    buckets.push_back({{"le_ms", ms(upper)}, {"count", count}});
  }
  out["histogram"] = std::move(buckets);
  return out;
}

json TransitionsJson(const TaskRecord& task) {
  json out = json::array();
  for (const TaskTransition& t : task.transitions) {
    out.push_back({{"state", TaskStateName(t.state)},
                   {"time_ms", t.time_ns / 1'000'000},
                   {"time_ns", std::to_string(t.time_ns)}});
  }
  return out;
}

json LogInfoJson(const TaskRecord& task) {
  if (!task.has_log_info()) return nullptr;
  json out = json::object();
  if (task.stdout_file.has()) out["stdout_file"] = task.stdout_file.value;
  if (task.stderr_file.has()) out["stderr_file"] = task.stderr_file.value;
  if (task.stdout_start.has()) out["stdout_start"] = task.stdout_start.value;
  if (task.stdout_end.has()) out["stdout_end"] = task.stdout_end.value;
  if (task.stderr_start.has()) out["stderr_start"] = task.stderr_start.value;
  if (task.stderr_end.has()) out["stderr_end"] = task.stderr_end.value;
  return out;
}

json ProfileJson(const TaskRecord& task) {
  json out = json::array();
  for (const ProfileSpan& span : task.profile) {
    json s = {{"event_name", span.event_name},
              {"start_time_ns", std::to_string(span.start_ns)},
              {"end_time_ns", std::to_string(span.end_ns)},
              {"component_type", span.component_type},
              {"component_id", span.component_id},
              {"node_ip_address", span.node_ip}};
    s["extra_data"] = span.extra_data.empty() ? json(nullptr) : ParsedOrNull(span.extra_data);
    out.push_back(std::move(s));
  }
  return out;
}

template <typename Fn>
absl::Status EachRow(SqliteStatement& statement, Fn&& fn) {
  for (;;) {
    absl::StatusOr<bool> row = statement.Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
    if (absl::Status status = fn(statement); !status.ok()) return status;
  }
}

}  // namespace

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
    return absl::NotFoundError(selector ? "no such session in the index"
                                        : "the index holds no sessions yet");
  }
  if (rows.size() > 1) {
    return BadParameter("session: that name exists in several clusters; give <cluster>/<session>");
  }
  return rows.front();
}

absl::StatusOr<nlohmann::json> HistoryQueries::Sessions(const QueryParams& params) {
  int64_t limit = 100;
  if (auto text = params.Get("limit")) {
    absl::StatusOr<int64_t> parsed = ParseInt("limit", *text, 1, 10'000);
    if (!parsed.ok()) return parsed.status();
    limit = *parsed;
  }
  int64_t after_id = INT64_MAX;
  if (auto text = params.Get("cursor")) {
    absl::StatusOr<int64_t> parsed = ParseInt("cursor", *text, 0, INT64_MAX);
    if (!parsed.ok()) return parsed.status();
    after_id = *parsed;
  }
  std::string sql =
      "SELECT id, cluster, kind, namespace, owner, cluster_name, name, has_marker, first_event_ns, "
      "last_event_ns, status, objects, object_bytes, events, ignored_events, bad_lines, "
      "bad_objects, dropped_task_attempts FROM sessions WHERE id < ? AND status != 'evicted'";
  Binds binds;
  binds.Int(after_id);
  if (auto cluster = params.Get("cluster")) {
    sql += " AND cluster = ?";
    binds.Text(*cluster);
  }
  sql += " ORDER BY id DESC LIMIT ?";
  binds.Int(limit + 1);
  absl::StatusOr<SqliteStatement> statement = db_.Prepare(sql);
  if (!statement.ok()) return statement.status();
  binds.Apply(*statement);
  json sessions = json::array();
  std::optional<int64_t> next;
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    if (static_cast<int64_t>(sessions.size()) == limit) {
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
    sessions.push_back(std::move(s));
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  // Task counts and finished/live from the summaries and jobs.
  for (json& s : sessions) {
    const int64_t id = s["_id"].get<int64_t>();
    s.erase("_id");
    absl::StatusOr<SqliteStatement> counts = db_.Prepare(
        "SELECT state, sum(count) FROM summary WHERE session_id=? AND dim=0 GROUP BY state");
    if (!counts.ok()) return counts.status();
    counts->Bind(1, id);
    json by_state = json::object();
    int64_t total = 0;
    absl::Status counted = EachRow(*counts, [&](const SqliteStatement& row) {
      by_state[TaskStateName(static_cast<int32_t>(row.Int(0)))] = row.Int(1);
      total += row.Int(1);
      return absl::OkStatus();
    });
    if (!counted.ok()) return counted;
    s["tasks"] = {{"total", total}, {"by_state", by_state}};
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

absl::StatusOr<nlohmann::json> HistoryQueries::Counts(const QueryParams& params) {
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  std::string sql = "SELECT state, sum(count) FROM summary WHERE session_id=? AND dim=0";
  Binds binds;
  binds.Int(session->id);
  std::optional<std::string> job = params.Get("job_id");
  if (job) {
    sql += " AND job_id=?";
    binds.Text(strings::ToLower(*job));
  }
  sql += " GROUP BY state";
  absl::StatusOr<SqliteStatement> statement = db_.Prepare(sql);
  if (!statement.ok()) return statement.status();
  binds.Apply(*statement);
  json by_state = json::object();
  int64_t total = 0;
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    by_state[TaskStateName(static_cast<int32_t>(row.Int(0)))] = row.Int(1);
    total += row.Int(1);
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["job_id"] = job ? json(strings::ToLower(*job)) : json(nullptr);
  out["total"] = total;
  out["by_state"] = std::move(by_state);
  return out;
}

absl::StatusOr<nlohmann::json> HistoryQueries::Groups(const QueryParams& params) {
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
  int64_t limit = 1000, offset = 0;
  if (auto text = params.Get("limit")) {
    absl::StatusOr<int64_t> parsed = ParseInt("limit", *text, 1, 100'000);
    if (!parsed.ok()) return parsed.status();
    limit = *parsed;
  }
  if (auto text = params.Get("cursor")) {
    absl::StatusOr<int64_t> parsed = ParseInt("cursor", *text, 0, INT64_MAX);
    if (!parsed.ok()) return parsed.status();
    offset = *parsed;
  }
  std::string sql =
      "SELECT value, task_type, state, count, stats FROM summary WHERE session_id=? AND dim=?";
  Binds binds;
  binds.Int(session->id);
  binds.Int(static_cast<int64_t>(dim));
  std::optional<std::string> job = params.Get("job_id");
  if (job) {
    sql += " AND job_id=?";
    binds.Text(strings::ToLower(*job));
  }
  absl::StatusOr<SqliteStatement> statement = db_.Prepare(sql);
  if (!statement.ok()) return statement.status();
  db_.SetStepBudget(limits_.max_steps_thousands);
  binds.Apply(*statement);
  struct Group {
    int64_t total = 0;
    std::map<int32_t, int64_t> by_state;
    std::set<int32_t> types;
    SummaryStats stats;
  };
  std::map<std::string, Group> groups;
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    Group& group = groups[std::string(row.Text(0))];
    group.total += row.Int(3);
    group.by_state[static_cast<int32_t>(row.Int(2))] += row.Int(3);
    group.types.insert(static_cast<int32_t>(row.Int(1)));
    SummaryStats stats;
    if (absl::Status decoded = stats.Decode(row.Blob(4)); !decoded.ok()) return decoded;
    group.stats.Merge(stats);
    return absl::OkStatus();
  });
  db_.SetStepBudget(0);
  if (!each.ok()) return each;
  std::vector<std::pair<const std::string*, const Group*>> ordered;
  for (const auto& [key, group] : groups) ordered.emplace_back(&key, &group);
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
  out["job_id"] = job ? json(strings::ToLower(*job)) : json(nullptr);
  out["groups"] = std::move(out_groups);
  out["next_cursor"] =
      next < static_cast<int64_t>(ordered.size()) ? json(std::to_string(next)) : json(nullptr);
  return out;
}

namespace {

// The WHERE clauses of the task list's whitelisted filters.
absl::Status AddTaskFilters(const QueryParams& params, std::string& sql, Binds& binds) {
  auto in_list = [&](std::string_view column, const std::vector<std::string>& values,
                     auto&& convert) -> absl::Status {
    if (values.empty()) return absl::OkStatus();
    std::string list;
    for (const std::string& value : values) {
      absl::Status converted = convert(value);
      if (!converted.ok()) return converted;
      list += list.empty() ? "?" : ",?";
    }
    strings::Append(sql, " AND ", column, " IN (", list, ")");
    return absl::OkStatus();
  };
  for (const char* key : {"state", "raw_state"}) {
    absl::Status added =
        in_list(std::string_view(key) == "state" ? "t.state" : "t.raw_state",
                SplitComma(params.All(key)), [&](const std::string& value) -> absl::Status {
                  std::optional<int32_t> state = TaskStateFromName(strings::ToUpper(value));
                  if (!state) return BadParameter(strings::Cat(key, ": unknown task state"));
                  binds.Int(*state);
                  return absl::OkStatus();
                });
    if (!added.ok()) return added;
  }
  absl::Status added = in_list("t.type", SplitComma(params.All("type")),
                               [&](const std::string& value) -> absl::Status {
                                 ray::rpc::TaskType type;
                                 if (!ray::rpc::TaskType_Parse(strings::ToUpper(value), &type)) {
                                   return BadParameter("type: unknown task type");
                                 }
                                 binds.Int(type);
                                 return absl::OkStatus();
                               });
  if (!added.ok()) return added;
  added = in_list("t.error_type", SplitComma(params.All("error_type")),
                  [&](const std::string& value) -> absl::Status {
                    ray::rpc::ErrorType type;
                    if (ray::rpc::ErrorType_Parse(strings::ToUpper(value), &type)) {
                      binds.Int(type);
                      return absl::OkStatus();
                    }
                    absl::StatusOr<int64_t> number = ParseInt("error_type", value, 0, 1 << 20);
                    if (!number.ok()) return BadParameter("error_type: unknown error type");
                    binds.Int(*number);
                    return absl::OkStatus();
                  });
  if (!added.ok()) return added;
  // Exact text matches.
  struct TextFilter {
    const char* key;
    const char* clause;
    bool lower;
  };
  for (const TextFilter& filter : {
           TextFilter{"function", "t.func_id = (SELECT id FROM names WHERE text = ?)", false},
           TextFilter{"node_id", "t.node_id = (SELECT id FROM names WHERE text = ?)", true},
           TextFilter{"exception", "t.exception_id = (SELECT id FROM names WHERE text = ?)", false},
           TextFilter{"name", "t.name = ?", false},
           TextFilter{"job_id", "t.job_id = ?", true},
       }) {
    if (auto value = params.Get(filter.key)) {
      strings::Append(sql, " AND ", filter.clause);
      binds.Text(filter.lower ? strings::ToLower(*value) : *value);
    }
  }
  // Ids stored as bytes: hex in, bytes bound.
  for (const auto& [key, column] : {std::pair<const char*, const char*>{"task_id", "t.task_id"},
                                    {"worker_id", "t.worker_id"},
                                    {"actor_id", "t.actor_id"}}) {
    if (auto value = params.Get(key)) {
      std::optional<std::string> bytes = BytesFromHex(*value);
      if (!bytes) return BadParameter(strings::Cat(key, ": expected a hex id"));
      strings::Append(sql, " AND ", column, " = ?");
      binds.Blob(*bytes);
    }
  }
  if (auto value = params.Get("attempt")) {
    absl::StatusOr<int64_t> attempt = ParseInt("attempt", *value, 0, INT32_MAX);
    if (!attempt.ok()) return attempt.status();
    sql += " AND t.attempt = ?";
    binds.Int(*attempt);
  }
  // Time ranges (ms since the epoch) and duration ranges (ms).
  struct Range {
    const char* key;
    const char* clause;
    bool duration;
  };
  for (const Range& range : {
           Range{"created_after_ms", "t.creation_ns >= ?", false},
           Range{"created_before_ms", "t.creation_ns >= 0 AND t.creation_ns < ?", false},
           Range{"started_after_ms", "t.start_ns >= ?", false},
           Range{"started_before_ms", "t.start_ns >= 0 AND t.start_ns < ?", false},
           Range{"ended_after_ms", "t.end_ns >= ?", false},
           Range{"ended_before_ms", "t.end_ns >= 0 AND t.end_ns < ?", false},
           Range{"min_pending_ms", "t.pending_ns >= ?", true},
           Range{"max_pending_ms", "t.pending_ns >= 0 AND t.pending_ns <= ?", true},
           Range{"min_running_ms", "t.running_ns >= ?", true},
           Range{"max_running_ms", "t.running_ns >= 0 AND t.running_ns <= ?", true},
           Range{"min_total_ms", "t.total_ns >= ?", true},
           Range{"max_total_ms", "t.total_ns >= 0 AND t.total_ns <= ?", true},
       }) {
    if (auto value = params.Get(range.key)) {
      absl::StatusOr<double> ms = ParseMillis(range.key, *value);
      if (!ms.ok()) return ms.status();
      strings::Append(sql, " AND (", range.clause, ")");
      binds.Int(static_cast<int64_t>(*ms * 1e6));
    }
  }
  return absl::OkStatus();
}

const std::set<std::string_view>& KnownTaskListParams() {
  static const std::set<std::string_view> known = {"session",
                                                   "state",
                                                   "raw_state",
                                                   "type",
                                                   "error_type",
                                                   "function",
                                                   "node_id",
                                                   "exception",
                                                   "name",
                                                   "job_id",
                                                   "task_id",
                                                   "worker_id",
                                                   "actor_id",
                                                   "attempt",
                                                   "created_after_ms",
                                                   "created_before_ms",
                                                   "started_after_ms",
                                                   "started_before_ms",
                                                   "ended_after_ms",
                                                   "ended_before_ms",
                                                   "min_pending_ms",
                                                   "max_pending_ms",
                                                   "min_running_ms",
                                                   "max_running_ms",
                                                   "min_total_ms",
                                                   "max_total_ms",
                                                   "sort",
                                                   "order",
                                                   "limit",
                                                   "cursor"};
  return known;
}

}  // namespace

absl::StatusOr<nlohmann::json> HistoryQueries::Tasks(const QueryParams& params) {
  for (const auto& [key, value] : params.items()) {
    if (!KnownTaskListParams().contains(key)) {
      return BadParameter(strings::Cat("unknown parameter ", key.substr(0, 64)));
    }
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  const std::string sort_name = params.Get("sort").value_or("start_time");
  const SortColumn* sort = nullptr;
  for (const SortColumn& column : kSortColumns) {
    if (column.name == sort_name) sort = &column;
  }
  if (sort == nullptr) return BadParameter("sort: not a sortable column");
  const std::string order = strings::ToLower(params.Get("order").value_or("asc"));
  if (order != "asc" && order != "desc") return BadParameter("order: expected asc or desc");
  int64_t limit = 100;
  if (auto text = params.Get("limit")) {
    absl::StatusOr<int64_t> parsed =
        ParseInt("limit", *text, 1, static_cast<int64_t>(limits_.max_page_rows));
    if (!parsed.ok()) return parsed.status();
    limit = *parsed;
  }
  std::string sql = strings::Cat("SELECT ", kTaskColumns, ", ", sort->expression, kTaskJoins,
                                 "WHERE t.session_id = ?");
  Binds binds;
  binds.Int(session->id);
  if (absl::Status filtered = AddTaskFilters(params, sql, binds); !filtered.ok()) return filtered;
  if (auto text = params.Get("cursor")) {
    absl::StatusOr<json> cursor = DecodeCursor(*text);
    if (!cursor.ok()) return cursor.status();
    if ((*cursor)[0] != sort_name || (*cursor)[1] != order) {
      return BadParameter("cursor: it belongs to another sort order");
    }
    const json& value = (*cursor)[2];
    if (sort->text ? !value.is_string() : !value.is_number_integer()) {
      return BadParameter("cursor: not a cursor this API returned");
    }
    strings::Append(sql, " AND (", sort->expression, ", t.id) ", order == "asc" ? ">" : "<",
                    " (?, ?)");
    if (sort->text) {
      binds.Text(value.get<std::string>());
    } else {
      binds.Int(value.get<int64_t>());
    }
    binds.Int((*cursor)[3].get<int64_t>());
  }
  strings::Append(sql, " ORDER BY ", sort->expression, " ", order, ", t.id ", order, " LIMIT ?");
  binds.Int(limit + 1);
  absl::StatusOr<SqliteStatement> statement = db_.Prepare(sql);
  if (!statement.ok()) return statement.status();
  binds.Apply(*statement);
  db_.SetStepBudget(limits_.max_steps_thousands);
  json tasks = json::array();
  json last_value;
  int64_t last_id = 0;
  bool more = false;
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    if (static_cast<int64_t>(tasks.size()) == limit) {
      more = true;
      return absl::OkStatus();
    }
    tasks.push_back(TaskRowJson(row));
    last_id = row.Int(0);
    const int sort_column = 21;
    last_value = sort->text ? json(std::string(row.Text(sort_column))) : json(row.Int(sort_column));
    return absl::OkStatus();
  });
  db_.SetStepBudget(0);
  if (!each.ok()) return each;
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["sort"] = sort_name;
  out["order"] = order;
  out["tasks"] = std::move(tasks);
  out["next_cursor"] =
      more ? json(EncodeCursor(json::array({sort_name, order, last_value, last_id})))
           : json(nullptr);
  return out;
}

namespace {

absl::StatusOr<std::string> HexParam(const QueryParams& params, std::string_view key) {
  std::optional<std::string> value = params.Get(key);
  if (!value || value->empty()) return BadParameter(strings::Cat(key, ": required"));
  if (!BytesFromHex(*value)) return BadParameter(strings::Cat(key, ": expected a hex id"));
  return strings::ToLower(*value);
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
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  absl::StatusOr<std::string> task_id = HexParam(params, "task_id");
  if (!task_id.ok()) return task_id.status();
  absl::StatusOr<SqliteStatement> statement = db_.Prepare(
      "SELECT t.attempt, t.state, t.record, e.text FROM tasks t JOIN names e ON e.id = "
      "t.exception_id WHERE t.session_id = ? AND t.task_id = ? ORDER BY t.attempt");
  if (!statement.ok()) return statement.status();
  statement->Bind(1, session->id).BindBlob(2, *BytesFromHex(*task_id));
  std::optional<int64_t> wanted;
  if (auto text = params.Get("attempt")) {
    absl::StatusOr<int64_t> attempt = ParseInt("attempt", *text, 0, INT32_MAX);
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
  return chosen;
}

absl::StatusOr<nlohmann::json> HistoryQueries::Actor(const QueryParams& params) {
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  absl::StatusOr<std::string> actor_id = HexParam(params, "actor_id");
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
  static const char* kStates[] = {"DEPENDENCIES_UNREADY", "PENDING_CREATION", "ALIVE", "RESTARTING",
                                  "DEAD"};
  auto state_name = [](int32_t state) -> json {
    if (state >= 0 && state <= 4) return kStates[state];
    return state < 0 ? json(nullptr) : json(std::to_string(state));
  };
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["actor_id"] = actor.actor_id;
  out["state"] = state_name(actor.state());
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
    json item = {{"state", state_name(t->state)},
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
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  absl::StatusOr<std::string> job_id = HexParam(params, "job_id");
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
  absl::StatusOr<nlohmann::json> counts = Counts(params);
  if (!counts.ok()) return counts.status();
  if (!known && (*counts)["total"] == 0) return absl::NotFoundError("no such job in this session");
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["job_id"] = job.job_id;
  out["status"] =
      job.finished_ns() != kNoTime ? "FINISHED" : (job.transitions.empty() ? "UNKNOWN" : "RUNNING");
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
  out["tasks"] = {{"total", (*counts)["total"]}, {"by_state", (*counts)["by_state"]}};
  return out;
}

}  // namespace rayagg::history
