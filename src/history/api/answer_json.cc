#include "history/api/answer_json.h"

#include "common/text.h"
#include "history/api/query_params.h"
#include "history/index/index_writer.h"
#include "src/ray/protobuf/common.pb.h"

namespace rayagg::history {

using nlohmann::json;

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

namespace {
constexpr std::string_view kActorStates[] = {"DEPENDENCIES_UNREADY", "PENDING_CREATION", "ALIVE",
                                             "RESTARTING", "DEAD"};
}  // namespace

json ActorStateJson(int32_t state) {
  if (state >= 0 && state < static_cast<int32_t>(std::size(kActorStates))) {
    return kActorStates[state];
  }
  return state < 0 ? json(nullptr) : json(std::to_string(state));
}

std::optional<int32_t> ActorStateFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kActorStates); ++i) {
    if (kActorStates[i] == name) return static_cast<int32_t>(i);
  }
  return std::nullopt;
}

std::string JobStatusName(const JobRecord& job) {
  if (job.finished_ns() != kNoTime) return "FINISHED";
  return job.transitions.empty() ? "UNKNOWN" : "RUNNING";
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
  // By power of two of whole microseconds, each (gt_us, le_us]: the task
  // list's <duration>_gt_us and _le_us with these bounds hold exactly
  // `count` tasks (of the same filters and unit).
  for (const auto& [upper_ns, count] : stats.Octaves()) {
    const bool last = upper_ns == INT64_MAX;
    const int64_t le_us = last ? INT64_MAX / 1000 : upper_ns / 1000 - 1;
    const int64_t gt_us = upper_ns == 1000 ? -1 : (last ? (int64_t{1} << 53) : upper_ns / 2000) - 1;
    buckets.push_back(
        {{"gt_us", gt_us}, {"le_us", le_us}, {"le_ms", ms(upper_ns)}, {"count", count}});
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

json TaskRowJson(const SqliteStatement& row) {
  json task;
  task["task_id"] = HexId(row.Blob(1));
  task["attempt"] = row.Int(2);
  task["state"] = TaskStateName(static_cast<int32_t>(row.Int(3)));
  task["raw_state"] = TaskStateName(static_cast<int32_t>(row.Int(4)));
  task["type"] = TaskTypeName(static_cast<int32_t>(row.Int(5)));
  task["function"] = row.Text(6);
  task["name"] = row.Text(7);
  task["job_id"] = row.Text(8);
  task["node_id"] = row.Text(9);
  task["worker_id"] = HexId(row.Blob(10));
  task["worker_pid"] = row.Int(11);
  task["actor_id"] = HexId(row.Blob(12));
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
  task["attempts"] = row.Int(21);
  task["latest"] = row.Int(22) != 0;
  return task;
}

void AddMatchRanges(json& out, std::string_view field, const std::vector<MatchRange>& ranges) {
  if (ranges.empty()) return;
  json& list = out[std::string(field)];
  for (const MatchRange& range : ranges) list.push_back({range.start, range.end});
}

std::string EncodeCursor(const json& cursor) { return HexId(cursor.dump()); }

absl::StatusOr<json> DecodeCursor(std::string_view text, size_t fields) {
  std::optional<std::string> bytes = BytesFromHex(text);
  if (!bytes) return BadParameter("cursor: not a cursor this API returned");
  json value = json::parse(*bytes, nullptr, false);
  if (value.is_discarded() || !value.is_array() || value.size() != fields) {
    return BadParameter("cursor: not a cursor this API returned");
  }
  return value;
}

}  // namespace rayagg::history
