// The task list: the filters and sorts of task_fields.h over the tasks
// table, paged by keyset (the last row's sort value, start time and row id)
// on the index task_plan.h chooses, so page 5,000 costs what page 1 costs
// and there is no cap across pages.
#include "common/text.h"
#include "history/api/answer_json.h"
#include "history/api/param_parsing.h"
#include "history/api/queries.h"
#include "history/api/sql_clause.h"
#include "history/api/task_fields.h"
#include "history/api/task_plan.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

const std::vector<std::string_view>& TaskListParamNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out = HistoryTaskFilterNames();
    for (std::string_view extra : {"session", "sort", "order", "limit", "cursor"}) {
      out.push_back(extra);
    }
    return out;
  }();
  return names;
}

}  // namespace

absl::StatusOr<nlohmann::json> HistoryQueries::Tasks(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(params, TaskListParamNames()); !known.ok()) {
    return known;
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  const std::string sort_name = params.Get("sort").value_or("start_time");
  const TaskSort* sort = FindTaskSort(sort_name);
  if (sort == nullptr) return BadParameter("sort: not a sortable column");
  const std::string order = strings::ToLower(params.Get("order").value_or("asc"));
  if (order != "asc" && order != "desc") return BadParameter("order: expected asc or desc");
  absl::StatusOr<int64_t> limit =
      IntParam(params, "limit", 100, 1, static_cast<int64_t>(limits_.max_page_rows));
  if (!limit.ok()) return limit.status();
  absl::StatusOr<CountUnit> unit = UnitParam(params);
  if (!unit.ok()) return unit.status();
  absl::StatusOr<TaskFilters> filters = HistoryTaskFilters(params, *unit);
  if (!filters.ok()) return filters.status();
  absl::StatusOr<std::string_view> index = ChooseTaskIndex(
      db_, session->id, *sort, filters->equalities, limits_.max_rows_sorted_per_page);
  if (!index.ok()) return index.status();

  // The keys, in order: the sort column, start time (unless that is the
  // sort column), the row id.
  std::string keys = std::string(sort->column);
  if (sort->by_start_too) keys += ", t.start_ns";
  keys += ", t.id";
  SqlClause query;
  // CROSS JOIN keeps the tasks table outermost, on the chosen index.
  query
      .Sql(strings::Cat("SELECT ", kTaskListColumns, ", ", sort->column,
                        ", t.start_ns FROM tasks t INDEXED BY ", *index,
                        " CROSS JOIN names f ON f.id = t.func_id CROSS JOIN names n ON n.id = "
                        "t.node_id CROSS JOIN names e ON e.id = t.exception_id "
                        "WHERE t.session_id = ?"))
      .Int(session->id)
      .Add(filters->clause);
  if (auto text = params.Get("cursor")) {
    absl::StatusOr<json> cursor = DecodeCursor(*text, 5);
    if (!cursor.ok()) return cursor.status();
    if ((*cursor)[0] != sort_name || (*cursor)[1] != order) {
      return BadParameter("cursor: it belongs to another sort order");
    }
    const json& value = (*cursor)[2];
    if ((sort->text ? !value.is_string() : !value.is_number_integer()) ||
        !(*cursor)[3].is_number_integer() || !(*cursor)[4].is_number_integer()) {
      return BadParameter("cursor: not a cursor this API returned");
    }
    strings::Append(query.sql, " AND (", keys, ") ", order == "asc" ? ">" : "<",
                    sort->by_start_too ? " (?, ?, ?)" : " (?, ?)");
    if (sort->text) {
      query.Text(value.get<std::string>());
    } else {
      query.Int(value.get<int64_t>());
    }
    if (sort->by_start_too) query.Int((*cursor)[3].get<int64_t>());
    query.Int((*cursor)[4].get<int64_t>());
  }
  std::string order_by = strings::Cat(sort->column, " ", order);
  if (sort->by_start_too) strings::Append(order_by, ", t.start_ns ", order);
  strings::Append(order_by, ", t.id ", order);
  strings::Append(query.sql, " ORDER BY ", order_by, " LIMIT ?");
  query.Int(*limit + 1);
  absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, query);
  if (!statement.ok()) return statement.status();
  json tasks = json::array();
  json last_value;
  int64_t last_start = 0, last_id = 0;
  bool more = false;
  absl::Status each = EachRow(*statement, [&](const SqliteStatement& row) {
    if (static_cast<int64_t>(tasks.size()) == *limit) {
      more = true;
      return absl::OkStatus();
    }
    tasks.push_back(TaskRowJson(row));
    last_id = row.Int(0);
    const int sort_column = kTaskListColumnCount;
    last_value = sort->text ? json(std::string(row.Text(sort_column))) : json(row.Int(sort_column));
    last_start = row.Int(sort_column + 1);
    return absl::OkStatus();
  });
  if (!each.ok()) return each;
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["sort"] = sort_name;
  out["order"] = order;
  out["unit"] = UnitName(*unit);
  out["tasks"] = std::move(tasks);
  out["next_cursor"] =
      more ? json(EncodeCursor(json::array({sort_name, order, last_value, last_start, last_id})))
           : json(nullptr);
  return out;
}

}  // namespace rayagg::history
