#include "history/api/task_plan.h"

#include <limits>

#include "common/text.h"
#include "history/index/index_writer.h"

namespace rayagg::history {
namespace {

// Attempts that hold one of the filter's values, from the summaries (unit
// 0: an index holds every attempt, whatever the unit shown).
absl::StatusOr<int64_t> EstimatedRows(SqliteDb& db, int64_t session_id,
                                      const EqualityFilter& filter) {
  if (filter.values.empty()) return 0;
  SqlClause query;
  query.Sql("SELECT coalesce(sum(count), 0) FROM summary WHERE session_id = ? AND unit = 0")
      .Int(session_id);
  const std::string placeholders = Placeholders(filter.values.size());
  if (filter.field->kind == FieldKind::kTaskState) {
    query.Sql(strings::Cat(" AND dim = 0 AND state IN (", placeholders, ")"));
    for (const SqlValue& value : filter.values) query.values.push_back(value);
  } else {
    query.Sql(strings::Cat(" AND dim = ", filter.field->summary_dim, " AND value IN (",
                           placeholders, ")"));
    for (const SqlValue& value : filter.values) {
      // Error types are counted by name in the summaries.
      if (const auto* number = std::get_if<int64_t>(&value)) {
        query.Text(ErrorTypeName(static_cast<int32_t>(*number)));
      } else {
        query.values.push_back(value);
      }
    }
  }
  absl::StatusOr<SqliteStatement> statement = PrepareClause(db, query);
  if (!statement.ok()) return statement.status();
  absl::StatusOr<bool> row = statement->Step();
  if (!row.ok()) return row.status();
  return *row ? statement->Int(0) : 0;
}

}  // namespace

absl::StatusOr<std::string_view> ChooseTaskIndex(SqliteDb& db, int64_t session_id,
                                                 const TaskSort& sort,
                                                 const std::vector<EqualityFilter>& equalities,
                                                 int64_t max_rows_sorted) {
  std::string_view best_index;
  int64_t best_rows = std::numeric_limits<int64_t>::max();
  for (const EqualityFilter& filter : equalities) {
    if (filter.field->index.empty()) continue;
    // Without a summary (a name, an exception, an attempt number, a task
    // id), an exact value is taken to keep few rows.
    int64_t rows = 0;
    if (filter.field->summary_dim >= 0) {
      absl::StatusOr<int64_t> estimated = EstimatedRows(db, session_id, filter);
      if (!estimated.ok()) return estimated.status();
      rows = *estimated;
    }
    if (rows < best_rows) {
      best_rows = rows;
      best_index = filter.field->index;
    }
  }
  if (!best_index.empty() && best_rows <= max_rows_sorted) return best_index;
  return sort.index;
}

}  // namespace rayagg::history
