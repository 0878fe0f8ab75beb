#include "history/manifest_check.h"

#include <algorithm>
#include <string>
#include <vector>

namespace rayagg::history {

absl::StatusOr<ManifestReport> CheckManifests(SqliteDb& db, int64_t session_id) {
  ManifestReport report;
  std::vector<std::string> writers;
  {
    absl::StatusOr<SqliteStatement> statement =
        db.Prepare("SELECT writer, count(*) FROM objects WHERE session_id = ? GROUP BY writer");
    if (!statement.ok()) return statement.status();
    statement->Bind(1, session_id);
    for (;;) {
      absl::StatusOr<bool> row = statement->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      if (statement->Text(0).empty()) {
        report.objects_without_manifest += statement->Int(1);
      } else {
        writers.emplace_back(statement->Text(0));
      }
    }
  }
  report.writers = static_cast<int64_t>(writers.size());
  for (const std::string& writer : writers) {
    absl::StatusOr<SqliteStatement> statement = db.Prepare(
        "SELECT session_id, seq_first, seq_last, writer_drops FROM objects "
        "WHERE writer = ? AND seq_first > 0 AND seq_last >= seq_first ORDER BY seq_first");
    if (!statement.ok()) return statement.status();
    statement->BindText(1, writer);
    // Walk the ranges in order; an object uploaded twice (renamed) overlaps.
    int64_t next = 1, writer_gap_events = 0, session_gap_events = 0, max_drops = 0;
    for (;;) {
      absl::StatusOr<bool> row = statement->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      const int64_t first = statement->Int(1), last = statement->Int(2);
      max_drops = std::max(max_drops, statement->Int(3));
      if (first > next) {
        writer_gap_events += first - next;
        if (statement->Int(0) == session_id) {
          ++report.gaps;
          session_gap_events += first - next;
        }
      }
      next = std::max(next, last + 1);
    }
    report.gap_events += session_gap_events;
    // The writer's drops explain its gaps first; what they cannot is missing.
    // Attributed to this session up to its own gap events.
    const int64_t unexplained = std::max<int64_t>(0, writer_gap_events - max_drops);
    report.missing_events += std::min(unexplained, session_gap_events);
  }
  return report;
}

}  // namespace rayagg::history
