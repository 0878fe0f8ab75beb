#include "history/api/task_fields.h"

#include "common/text.h"
#include "history/api/param_parsing.h"
#include "history/fold/task_record.h"
#include "history/index/duration_stats.h"
#include "history/index/index_writer.h"
#include "src/ray/protobuf/common.pb.h"

namespace rayagg::history {
namespace {

enum class Api { kHistory, kRay };

// The bound values one filter value stands for: usually one; several for
// Ray's FAILED; none when it names nothing a task can have (Ray's API),
// where the history's API answers 400 instead.
absl::StatusOr<std::vector<SqlValue>> ValuesOf(const TaskField& field, std::string_view key,
                                               const std::string& text, Api api) {
  const bool history = api == Api::kHistory;
  std::vector<SqlValue> out;
  switch (field.kind) {
    case FieldKind::kTaskState: {
      const std::string name = strings::ToUpper(text);
      if (!history && name == "FAILED") {
        for (int32_t state : {kFailed, kUnknownJobFinished, kUnknownNodeDied})
          out.emplace_back(int64_t{state});
        return out;
      }
      std::optional<int32_t> state = TaskStateFromName(name);
      // Ray's states only: the reconciled ones are FAILED in Ray's API.
      if (state && (history || *state < kUnknownJobFinished)) {
        out.emplace_back(int64_t{*state});
      } else if (history) {
        return BadParameter(strings::Cat(key, ": unknown task state"));
      }
      return out;
    }
    case FieldKind::kTaskType: {
      ray::rpc::TaskType type;
      if (ray::rpc::TaskType_Parse(strings::ToUpper(text), &type)) {
        out.emplace_back(int64_t{type});
      } else if (history) {
        return BadParameter(strings::Cat(key, ": unknown task type"));
      }
      return out;
    }
    case FieldKind::kErrorType: {
      ray::rpc::ErrorType type;
      if (ray::rpc::ErrorType_Parse(strings::ToUpper(text), &type)) {
        out.emplace_back(int64_t{type});
      } else if (history) {
        absl::StatusOr<int64_t> number = ParseIntParam(key, text, 0, 1 << 20);
        if (!number.ok()) return BadParameter(strings::Cat(key, ": unknown error type"));
        out.emplace_back(*number);
      }
      return out;
    }
    case FieldKind::kNameRef:
    case FieldKind::kText:
      out.emplace_back(SqlText{field.lowercase ? strings::ToLower(text) : text});
      return out;
    case FieldKind::kHexId: {
      std::optional<std::string> bytes = BytesFromHex(text);
      if (bytes) {
        out.emplace_back(SqlBlob{std::move(*bytes)});
      } else if (history) {
        return BadParameter(strings::Cat(key, ": expected a hex id"));
      }
      return out;
    }
    case FieldKind::kInt: {
      absl::StatusOr<int64_t> number =
          ParseIntParam(key, text, history ? 0 : INT64_MIN, history ? INT32_MAX : INT64_MAX);
      if (!number.ok()) return number.status();
      out.emplace_back(*number);
      return out;
    }
  }
  return out;
}

// " AND <column> [NOT] IN (...)"; with no values `IN` matches nothing and
// `NOT IN` everything.
void AppendIn(const TaskField& field, std::vector<SqlValue> values, bool negate, SqlClause& out) {
  if (values.empty()) {
    if (!negate) out.Sql(" AND 0");
    return;
  }
  const std::string placeholders = Placeholders(values.size());
  if (field.kind == FieldKind::kNameRef) {
    strings::Append(out.sql, " AND ", field.column, negate ? " NOT IN" : " IN",
                    " (SELECT id FROM names WHERE text IN (", placeholders, "))");
  } else {
    strings::Append(out.sql, " AND ", field.column, negate ? " NOT IN" : " IN", " (", placeholders,
                    ")");
  }
  for (SqlValue& value : values) out.values.push_back(std::move(value));
}

bool IsEnumKind(FieldKind kind) {
  return kind == FieldKind::kTaskState || kind == FieldKind::kTaskType ||
         kind == FieldKind::kErrorType;
}

}  // namespace

const TaskSort* FindTaskSort(std::string_view name) {
  for (const TaskSort& sort : kTaskSorts) {
    if (sort.name == name) return &sort;
  }
  return nullptr;
}

absl::StatusOr<CountUnit> UnitParam(const QueryParams& params) {
  const std::string unit = params.Get("unit").value_or("tasks");
  if (unit == "tasks") return CountUnit::kTasks;
  if (unit == "attempts") return CountUnit::kAttempts;
  return BadParameter("unit: expected tasks or attempts");
}

std::string_view UnitName(CountUnit unit) {
  return unit == CountUnit::kTasks ? "tasks" : "attempts";
}

absl::StatusOr<TaskFilters> HistoryTaskFilters(const QueryParams& params, CountUnit unit) {
  TaskFilters filters;
  SqlClause& out = filters.clause;
  if (unit == CountUnit::kTasks) out.Sql(" AND t.latest = 1");
  if (auto outcome = params.Get("outcome")) {
    if (*outcome == "finally_failed") {
      out.Sql(" AND t.latest = 1 AND t.state = ?").Int(kFailed);
    } else if (*outcome == "recovered") {
      out.Sql(" AND t.latest = 1 AND t.state = ? AND t.attempt > 0").Int(kFinished);
    } else {
      return BadParameter("outcome: expected finally_failed or recovered");
    }
  }
  for (const TaskField& field : kTaskFields) {
    if (field.key.empty()) continue;
    // Enum values may be listed with commas; names and ids only by
    // repeating the parameter (a task name may hold a comma).
    const std::vector<std::string> texts =
        IsEnumKind(field.kind) ? CommaListParam(params, field.key) : params.All(field.key);
    if (texts.empty()) continue;
    std::vector<SqlValue> values;
    for (const std::string& text : texts) {
      absl::StatusOr<std::vector<SqlValue>> converted =
          ValuesOf(field, field.key, text, Api::kHistory);
      if (!converted.ok()) return converted.status();
      for (SqlValue& value : *converted) values.push_back(std::move(value));
    }
    filters.equalities.push_back({&field, values});
    AppendIn(field, std::move(values), false, out);
  }
  for (const TaskRange& range : kTaskRanges) {
    if (auto text = params.Get(range.key)) {
      absl::StatusOr<double> ms = ParseMillisParam(range.key, *text);
      if (!ms.ok()) return ms.status();
      strings::Append(out.sql, " AND (", range.clause, ")");
      out.Int(static_cast<int64_t>(*ms * 1e6));
    }
  }
  for (const TaskBand& band : kTaskBands) {
    std::optional<std::string> gt = params.Get(band.gt_key);
    std::optional<std::string> le = params.Get(band.le_key);
    if (!gt && !le) continue;
    absl::StatusOr<int64_t> lower =
        gt ? ParseIntParam(band.gt_key, *gt, -1, INT64_MAX / 1000) : absl::StatusOr<int64_t>(-1);
    absl::StatusOr<int64_t> upper = le ? ParseIntParam(band.le_key, *le, 0, INT64_MAX / 1000)
                                       : absl::StatusOr<int64_t>(INT64_MAX / 1000);
    if (!lower.ok()) return lower.status();
    if (!upper.ok()) return upper.status();
    const NsRange range = DurationStats::NsRangeOfUs(*lower, *upper);
    strings::Append(out.sql, " AND ", band.column, " BETWEEN ? AND ?");
    out.Int(range.min_ns).Int(range.max_ns);
  }
  return filters;
}

std::vector<std::string_view> HistoryTaskFilterNames() {
  std::vector<std::string_view> names;
  for (const TaskField& field : kTaskFields) {
    if (!field.key.empty()) names.push_back(field.key);
  }
  for (const TaskRange& range : kTaskRanges) names.push_back(range.key);
  for (const TaskBand& band : kTaskBands) {
    names.push_back(band.gt_key);
    names.push_back(band.le_key);
  }
  names.push_back("unit");
  names.push_back("outcome");
  return names;
}

absl::StatusOr<std::vector<RayFilter>> RayFiltersOf(const QueryParams& params) {
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
      return BadParameter(strings::Cat("Unsupported filter predicate ",
                                       PrintableText(predicates[i], 16),
                                       " is given. Available predicates: =, !=."));
    }
    out.push_back({keys[i], predicates[i], values[i]});
  }
  return out;
}

absl::StatusOr<SqlClause> RayTaskFilters(const std::vector<RayFilter>& filters,
                                         bool exclude_driver) {
  SqlClause out;
  if (exclude_driver) out.Sql(" AND t.type != ?").Int(ray::rpc::DRIVER_TASK);
  for (const RayFilter& filter : filters) {
    const TaskField* field = nullptr;
    for (const TaskField& candidate : kTaskFields) {
      if (!candidate.ray_key.empty() && candidate.ray_key == filter.key) field = &candidate;
    }
    if (field == nullptr) {
      std::string known;
      for (const TaskField& candidate : kTaskFields) {
        if (!candidate.ray_key.empty()) {
          strings::Append(known, known.empty() ? "" : ", ", candidate.ray_key);
        }
      }
      return BadParameter(strings::Cat("filter_keys: ", PrintableText(filter.key),
                                       " is not filterable here; filterable: ", known));
    }
    absl::StatusOr<std::vector<SqlValue>> values =
        ValuesOf(*field, filter.key, filter.value, Api::kRay);
    if (!values.ok()) return values.status();
    AppendIn(*field, std::move(*values), filter.predicate == "!=", out);
  }
  return out;
}

}  // namespace rayagg::history
