// Which index a page of the task list walks. SQLite's planner has no
// statistics here (no ANALYZE: the index changes every batch), so it cannot
// tell a filter that keeps 10 tasks from one that keeps 900,000; the
// summaries can. A page either walks the sort's index and checks the
// filters row by row (best when many rows match: page 1 stops early, and a
// cursor is one seek), or reads every row of its most selective filter's
// index and sorts them (best when few match). The choice is made from the
// summaries' exact counts of the filtered values.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "history/api/task_fields.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

// The index for `INDEXED BY`: the sort's, or the most selective filter's
// when that keeps at most `max_rows_sorted` attempts (QueryLimits).
absl::StatusOr<std::string_view> ChooseTaskIndex(SqliteDb& db, int64_t session_id,
                                                 const TaskSort& sort,
                                                 const std::vector<EqualityFilter>& equalities,
                                                 int64_t max_rows_sorted);

}  // namespace rayagg::history
