// The JSON pieces that several answers share: times and durations, names of
// Ray's enums, a task row, a duration distribution, a task's transitions,
// log info and profile spans, and the opaque keyset cursor.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "history/api/search.h"
#include "history/api/sql_clause.h"
#include "history/fold/task_record.h"
#include "history/index/duration_stats.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

// ms since the epoch from ns; null when unknown (negative).
nlohmann::json NsToMs(int64_t ns);
// ms with µs resolution from ns; null when unknown (negative).
nlohmann::json DurationMs(int64_t ns);
std::string TaskTypeName(int32_t type);
std::string LanguageName(int32_t language);
// JSON text as JSON; text that is not JSON as a string; empty as {}.
nlohmann::json ParsedOrNull(const std::string& text);

// An actor state's name (ActorLifecycleEvent.State); null when unknown.
nlohmann::json ActorStateJson(int32_t state);
// The actor state a name stands for, if any.
std::optional<int32_t> ActorStateFromName(std::string_view name);
// FINISHED, RUNNING, or UNKNOWN (no lifecycle event seen).
std::string JobStatusName(const JobRecord& job);

nlohmann::json DistributionJson(const DurationStats& stats);
nlohmann::json TransitionsJson(const TaskRecord& task);
nlohmann::json LogInfoJson(const TaskRecord& task);
nlohmann::json ProfileJson(const TaskRecord& task);

// The task list's columns over `t` (with f, n and e: the function, node and
// exception names), and one row of them as JSON.
inline constexpr std::string_view kTaskListColumns =
    "t.id, t.task_id, t.attempt, t.state, t.raw_state, t.type, f.text, t.name, t.job_id, n.text, "
    "t.worker_id, t.worker_pid, t.actor_id, t.error_type, e.text, t.creation_ns, t.start_ns, "
    "t.end_ns, t.pending_ns, t.running_ns, t.total_ns, t.attempts, t.latest";
inline constexpr int kTaskListColumnCount = 23;
inline constexpr std::string_view kTaskListJoins =
    " FROM tasks t JOIN names f ON f.id = t.func_id JOIN names n ON n.id = t.node_id "
    "JOIN names e ON e.id = t.exception_id ";
nlohmann::json TaskRowJson(const SqliteStatement& row);

// out[field] = [[start, end], ...] of a search's matches (search.h); nothing
// when there are none.
void AddMatchRanges(nlohmann::json& out, std::string_view field,
                    const std::vector<MatchRange>& ranges);

// A keyset cursor: opaque (hex of a JSON array) and URL-safe.
std::string EncodeCursor(const nlohmann::json& cursor);
// 400 for anything this API did not return.
absl::StatusOr<nlohmann::json> DecodeCursor(std::string_view text, size_t fields);

// One keyset page: appends fn(row) (a json) to `items` for up to `limit`
// rows of a query asked for limit + 1; true when that extra row was there
// (a next page exists).
template <typename Fn>
absl::StatusOr<bool> ReadPage(SqliteStatement& statement, int64_t limit, nlohmann::json& items,
                              Fn&& fn) {
  bool more = false;
  absl::Status each = EachRow(statement, [&](const SqliteStatement& row) {
    if (static_cast<int64_t>(items.size()) == limit) {
      more = true;
    } else {
      items.push_back(fn(row));
    }
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  return more;
}

}  // namespace rayagg::history
