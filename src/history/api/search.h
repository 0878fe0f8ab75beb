// The task list's search (`q=`, docs/HISTORY.md "Search"): a case-insensitive
// substring of function names, task names and error messages (which hold
// the exception class and the stack trace), or a hex prefix of a task, job
// or node id. The text is always data: it reaches SQLite's FTS5 as one
// quoted phrase and SQL only as bound values.
//
// SearchClause turns a query into a predicate over the task alias `t` that
// the task list ANDs with its filters. It first looks the text up in the
// search's FTS tables (search_texts.h), then picks a form the planner serves
// from indexes whatever the query matches:
//   - few matching tasks (at most kMaxListedTasks): their row ids, so the
//     page and the count are lookups by id;
//   - more: the matching ids per column (`t.func_id IN (...) OR ...`), which
//     a page sorted on an indexed column checks row by row as it walks the
//     sort's index (matches are then dense: page 1 stops early), and, for
//     the exact count, disjoint parts each led by one column's index (a
//     count of the OR as one predicate would read every row of the session).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "history/api/sql_clause.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

// Longest query accepted, in bytes (after trimming blanks).
inline constexpr size_t kMaxSearchBytes = 1024;
// Up to this many matching tasks, the clause lists their row ids.
inline constexpr size_t kMaxListedTasks = 2000;
// Up to this many matching texts of one kind, the clause lists their ids;
// beyond, it asks the FTS table in a subquery.
inline constexpr size_t kMaxListedTexts = 500;
// Highlights reported per field at most.
inline constexpr size_t kMaxMatchOffsets = 64;

struct SearchQuery {
  std::string text;        // trimmed UTF-8, 3 to kMaxSearchBytes bytes, no NUL
  std::string fts_phrase;  // `text` as one FTS5 phrase: in double quotes, quotes doubled
  std::string hex;         // lowercase, when `text` is 3 to 64 hex digits; else ""
};

// InvalidArgument naming `q` (a 400) for a text shorter than 3 characters
// after trimming blanks, longer than kMaxSearchBytes, holding a NUL (refused,
// not stripped: a NUL cannot be in any indexed text) or not valid UTF-8.
absl::StatusOr<SearchQuery> ParseSearch(std::string_view q);

struct SearchClause {
  // The predicate: `WHERE t.session_id = ? AND <filters> AND <where.sql>`.
  SqlClause where;
  // For the exact count: the sum of count(*) over `... AND <filters> AND
  // <part.sql>` for each part equals the count with `where` (the parts are
  // disjoint), and each part is served by an index of its own.
  std::vector<SqlClause> count_parts;
  // Tasks the clause lists by row id (the few-matches form), else -1.
  int64_t listed_tasks = -1;
};

// Where the forms switch (tests lower them to reach every form).
struct SearchLimits {
  size_t max_listed_tasks = kMaxListedTasks;
  size_t max_listed_texts = kMaxListedTexts;
};

// Looks the query up in the session's search texts and builds the clause.
// Errors are the index's (e.g. DeadlineExceeded under a step budget).
absl::StatusOr<SearchClause> BuildSearchClause(SqliteDb& db, int64_t session_id,
                                               const SearchQuery& query,
                                               const SearchLimits& limits = {});

// [start, end) of each case-insensitive occurrence of the query in `field`,
// in UTF-16 code units (JavaScript string indexes), left to right without
// overlaps, at most kMaxMatchOffsets. Case is folded for ASCII, Latin-1,
// Latin Extended-A, Greek and Cyrillic letters (other letters match as
// they are). For function, task name, exception and error message fields.
struct MatchRange {
  uint32_t start = 0;
  uint32_t end = 0;
  friend bool operator==(const MatchRange&, const MatchRange&) = default;
};
std::vector<MatchRange> MatchOffsets(std::string_view field, const SearchQuery& query);

// [0, n) when the query's hex is a prefix of `hex_id` (a task, job or node
// id as the API shows it), else nothing.
std::vector<MatchRange> IdPrefixMatch(std::string_view hex_id, const SearchQuery& query);

// Where an error message matches, for a list row that cannot carry whole
// stack traces: the line of the message that holds the first match (at
// most kMaxExcerptBytes of it, around the match), its 1-based line number,
// the matches within the excerpt (UTF-16 offsets into `text`), and whether
// the line was cut before or after. nullopt when the message does not match.
inline constexpr size_t kMaxExcerptBytes = 320;
struct MessageExcerpt {
  std::string text;
  int64_t line = 0;
  std::vector<MatchRange> matches;
  bool cut_before = false;
  bool cut_after = false;
};
std::optional<MessageExcerpt> ExcerptOfMatch(std::string_view message, const SearchQuery& query);

}  // namespace rayagg::history
