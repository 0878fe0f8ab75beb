// The task list: the filters and sorts of task_fields.h and the search
// (search.h) over the tasks table, paged by keyset (the last row's sort
// value, start time and row id) on the index task_plan.h chooses, so page
// 5,000 costs what page 1 costs and there is no cap across pages; and the
// exact count of what the same filters and search keep.
#include "common/text.h"
#include "history/api/answer_json.h"
#include "history/api/param_parsing.h"
#include "history/api/queries.h"
#include "history/api/search.h"
#include "history/api/sql_clause.h"
#include "history/api/task_fields.h"
#include "history/api/task_plan.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

const std::vector<std::string_view>& TaskListParamNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out = HistoryTaskFilterNames();
    for (std::string_view extra : {"session", "sort", "order", "limit", "cursor", "q"}) {
      out.push_back(extra);
    }
    return out;
  }();
  return names;
}

const std::vector<std::string_view>& TaskCountParamNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out = HistoryTaskFilterNames();
    for (std::string_view extra : {"session", "q"}) out.push_back(extra);
    return out;
  }();
  return names;
}

// The search's query and clause when `q` is given.
struct TaskSearch {
  SearchQuery query;
  SearchClause clause;
};

// Which tasks the list (and its count) keep: the unit, the filters and the
// search.
struct TaskSelection {
  CountUnit unit;
  TaskFilters filters;
  std::optional<TaskSearch> search;
};
absl::StatusOr<TaskSelection> SelectionOf(SqliteDb& db, const QueryParams& params,
                                          int64_t session_id, const SearchLimits& limits) {
  absl::StatusOr<CountUnit> unit = UnitParam(params);
  if (!unit.ok()) return unit.status();
  absl::StatusOr<TaskFilters> filters = HistoryTaskFilters(params, *unit);
  if (!filters.ok()) return filters.status();
  TaskSelection selection{*unit, std::move(*filters), std::nullopt};
  std::optional<std::string> q = params.Get("q");
  if (!q) return selection;
  absl::StatusOr<SearchQuery> query = ParseSearch(*q);
  if (!query.ok()) return query.status();
  absl::StatusOr<SearchClause> clause = BuildSearchClause(db, session_id, *query, limits);
  if (!clause.ok()) return clause.status();
  selection.search = TaskSearch{std::move(*query), std::move(*clause)};
  return selection;
}

// Whether an equality filter keeps only `value` of the sort's column.
bool PinsSortColumn(const TaskFilters& filters, const TaskSort& sort, const json& value) {
  for (const EqualityFilter& filter : filters.equalities) {
    if (filter.field->column != sort.column || filter.values.size() != 1) continue;
    if (const auto* number = std::get_if<int64_t>(&filter.values[0])) {
      return value.is_number_integer() && value.get<int64_t>() == *number;
    }
    if (const auto* text = std::get_if<SqlText>(&filter.values[0])) {
      return value.is_string() && value.get_ref<const std::string&>() == text->value;
    }
  }
  return false;
}

// What a row matched, for highlighting: [start, end) UTF-16 ranges per
// shown field, and an excerpt of the error message (which a row does not
// carry whole).
json RowMatches(const json& task, std::string_view error_message, const SearchQuery& query) {
  json matches = json::object();
  for (std::string_view field : {"function", "name", "exception"}) {
    AddMatchRanges(matches, field, MatchOffsets(task[field].get_ref<const std::string&>(), query));
  }
  for (std::string_view field : {"task_id", "job_id", "node_id"}) {
    AddMatchRanges(matches, field, IdPrefixMatch(task[field].get_ref<const std::string&>(), query));
  }
  if (std::optional<MessageExcerpt> excerpt = ExcerptOfMatch(error_message, query)) {
    json excerpt_json = {{"excerpt", std::move(excerpt->text)},
                         {"line", excerpt->line},
                         {"cut_before", excerpt->cut_before},
                         {"cut_after", excerpt->cut_after},
                         {"matches", json::array()}};
    AddMatchRanges(excerpt_json, "matches", excerpt->matches);
    matches["error_message"] = std::move(excerpt_json);
  }
  return matches;
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
  absl::StatusOr<TaskSelection> selection = SelectionOf(db_, params, session->id, limits_.search);
  if (!selection.ok()) return selection.status();
  const CountUnit unit = selection->unit;
  const TaskFilters& filters = selection->filters;
  const std::optional<TaskSearch>& search = selection->search;
  // A search that matches few tasks lists their row ids: those are looked
  // up by row id (NOT INDEXED still allows that) and sorted, whatever the
  // sort; otherwise the planner's index is walked and the search checked
  // row by row.
  std::string index_clause = "NOT INDEXED";
  if (!search || search->clause.listed_tasks < 0) {
    absl::StatusOr<std::string_view> index = ChooseTaskIndex(
        db_, session->id, *sort, filters.equalities, limits_.max_rows_sorted_per_page);
    if (!index.ok()) return index.status();
    index_clause = strings::Cat("INDEXED BY ", *index);
  }

  // The keys, in order: the sort column, start time (unless that is the
  // sort column), the row id.
  std::string keys = std::string(sort->column);
  if (sort->by_start_too) keys += ", t.start_ns";
  keys += ", t.id";
  SqlClause query;
  // CROSS JOIN keeps the tasks table outermost, on the chosen index.
  query
      .Sql(strings::Cat(
          "SELECT ", kTaskListColumns, ", ", sort->column, ", t.start_ns",
          search ? ", (SELECT text FROM search_errors WHERE rowid = t.error_text_id)" : "",
          " FROM tasks t ", index_clause,
          " CROSS JOIN names f ON f.id = t.func_id CROSS JOIN names n ON n.id = "
          "t.node_id CROSS JOIN names e ON e.id = t.exception_id "
          "WHERE t.session_id = ?"))
      .Int(session->id)
      .Add(filters.clause);
  if (search) query.Sql(" AND (").Add(search->clause.where).Sql(")");
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
    // A filter that pins the sort column to the cursor's value leaves
    // (start, id) to compare: SQLite then seeks the index by the filter's
    // value and the cursor's start together, where a comparison of the
    // whole key would read every row of that value before the cursor.
    if (sort->by_start_too && PinsSortColumn(filters, *sort, value)) {
      strings::Append(query.sql, " AND (t.start_ns, t.id) ", order == "asc" ? ">" : "<", " (?, ?)");
    } else {
      strings::Append(query.sql, " AND (", keys, ") ", order == "asc" ? ">" : "<",
                      sort->by_start_too ? " (?, ?, ?)" : " (?, ?)");
      if (sort->text) {
        query.Text(value.get<std::string>());
      } else {
        query.Int(value.get<int64_t>());
      }
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
  absl::StatusOr<bool> more = ReadPage(*statement, *limit, tasks, [&](const SqliteStatement& row) {
    json task = TaskRowJson(row);
    const int sort_column = kTaskListColumnCount;
    if (search) task["matches"] = RowMatches(task, row.Text(sort_column + 2), search->query);
    last_id = row.Int(0);
    last_value = sort->text ? json(std::string(row.Text(sort_column))) : json(row.Int(sort_column));
    last_start = row.Int(sort_column + 1);
    return task;
  });
  if (!more.ok()) return more.status();
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["sort"] = sort_name;
  out["order"] = order;
  out["unit"] = UnitName(unit);
  if (search) out["q"] = search->query.text;
  out["tasks"] = std::move(tasks);
  out["next_cursor"] =
      *more ? json(EncodeCursor(json::array({sort_name, order, last_value, last_start, last_id})))
            : json(nullptr);
  return out;
}

absl::StatusOr<nlohmann::json> HistoryQueries::TaskCount(const QueryParams& params) {
  if (absl::Status known = RequireKnownParams(params, TaskCountParamNames()); !known.ok()) {
    return known;
  }
  absl::StatusOr<SessionRow> session = ResolveSession(params.Get("session"));
  if (!session.ok()) return session.status();
  absl::StatusOr<TaskSelection> selection = SelectionOf(db_, params, session->id, limits_.search);
  if (!selection.ok()) return selection.status();
  const CountUnit unit = selection->unit;
  const TaskFilters& filters = selection->filters;
  const std::optional<TaskSearch>& search = selection->search;
  // The filters without the unit's own condition: empty when nothing
  // filters, and what a count of attempts adds to the session's.
  absl::StatusOr<TaskFilters> attempt_filters = HistoryTaskFilters(params, CountUnit::kAttempts);
  if (!attempt_filters.ok()) return attempt_filters.status();
  json out;
  out["session"] = strings::Cat(session->cluster, "/", session->name);
  out["unit"] = UnitName(unit);
  if (!search && attempt_filters->clause.sql.empty()) {
    // The whole session: the summaries hold its exact totals.
    absl::StatusOr<json> counts = CountsOf(*session, std::nullopt, static_cast<int>(unit));
    if (!counts.ok()) return counts.status();
    out["total"] = (*counts)["total"];
    return out;
  }
  // The search's parts are disjoint, each served by its own index: their
  // counts add up to the count of the whole (search.h).
  std::vector<SqlClause> parts;
  if (search) {
    parts = search->clause.count_parts;
  } else {
    parts.push_back(SqlClause{"1", {}});
  }
  // In the tasks unit, unless the search lists its few rows: the attempts'
  // count (each part's index covers it) less the superseded attempts among
  // them (tasks_superseded), instead of reading every matching row for its
  // `latest`.
  const bool subtract = unit == CountUnit::kTasks && (!search || search->clause.listed_tasks < 0);
  const SqlClause& where = subtract ? attempt_filters->clause : filters.clause;
  int64_t total = 0;
  for (const SqlClause& part : parts) {
    int64_t attempts = 0;
    for (const bool superseded : {false, true}) {
      // No attempt of the part, no superseded one either.
      if (superseded && (!subtract || attempts == 0)) continue;
      SqlClause query;
      query
          .Sql(superseded ? "SELECT count(*) FROM tasks t INDEXED BY tasks_superseded WHERE "
                            "t.session_id = ? AND t.latest = 0"
                          : "SELECT count(*) FROM tasks t WHERE t.session_id = ?")
          .Int(session->id)
          .Add(where)
          .Sql(" AND (")
          .Add(part)
          .Sql(")");
      absl::StatusOr<SqliteStatement> statement = PrepareClause(db_, query);
      if (!statement.ok()) return statement.status();
      absl::StatusOr<bool> row = statement->Step();
      if (!row.ok()) return row.status();
      if (!*row) continue;
      if (superseded) {
        total -= statement->Int(0);
      } else {
        attempts = statement->Int(0);
        total += attempts;
      }
    }
  }
  if (search) out["q"] = search->query.text;
  out["total"] = total;
  return out;
}

}  // namespace rayagg::history
