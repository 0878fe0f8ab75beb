// The task list: the filters and sorts of task_fields.h over the tasks
// table, paged by keyset (the sort value and the row id of the last row), so
// page 5,000 costs what page 1 costs and there is no cap across pages.
#include "common/text.h"
#include "history/api/answer_json.h"
#include "history/api/param_parsing.h"
#include "history/api/queries.h"
#include "history/api/sql_clause.h"
#include "history/api/task_fields.h"

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
  absl::StatusOr<SqlClause> filters = HistoryTaskFilters(params);
  if (!filters.ok()) return filters.status();

  SqlClause query;
  query
      .Sql(strings::Cat("SELECT ", kTaskListColumns, ", ", sort->expression, kTaskListJoins,
                        "WHERE t.session_id = ?"))
      .Int(session->id)
      .Add(*filters);
  if (auto text = params.Get("cursor")) {
    absl::StatusOr<json> cursor = DecodeCursor(*text, 4);
    if (!cursor.ok()) return cursor.status();
    if ((*cursor)[0] != sort_name || (*cursor)[1] != order) {
      return BadParameter("cursor: it belongs to another sort order");
    }
    const json& value = (*cursor)[2];
    if ((sort->text ? !value.is_string() : !value.is_number_integer()) ||
        !(*cursor)[3].is_number_integer()) {
      return BadParameter("cursor: not a cursor this API returned");
    }
    strings::Append(query.sql, " AND (", sort->expression, ", t.id) ", order == "asc" ? ">" : "<",
                    " (?, ?)");
    if (sort->text) {
      query.Text(value.get<std::string>());
    } else {
      query.Int(value.get<int64_t>());
    }
    query.Int((*cursor)[3].get<int64_t>());
  }
  strings::Append(query.sql, " ORDER BY ", sort->expression, " ", order, ", t.id ", order,
                  " LIMIT ?");
  query.Int(*limit + 1);
  absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, query);
  if (!statement.ok()) return statement.status();
  json tasks = json::array();
  json last_value;
  int64_t last_id = 0;
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
    return absl::OkStatus();
  });
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

}  // namespace rayagg::history
