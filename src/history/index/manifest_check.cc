#include "history/index/manifest_check.h"

#include <algorithm>
#include <string>
#include <vector>

#include "objstore/rules/seq_ranges.h"

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
        "SELECT session_id, seq_first, seq_last, writer_drops, seq_void FROM objects "
        "WHERE writer = ?");
    if (!statement.ok()) return statement.status();
    statement->BindText(1, writer);
    // Every range the writer accounted for: its objects', and the ranges a
    // later run of a writer kept across restarts declared void (numbers an
    // upload had when the process stopped; their events were numbered
    // again). A void range belongs to no session.
    struct Covered {
      int64_t first, last, session_id;
    };
    std::vector<Covered> covered;
    int64_t max_drops = 0;
    for (;;) {
      absl::StatusOr<bool> row = statement->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      const int64_t first = statement->Int(1), last = statement->Int(2);
      max_drops = std::max(max_drops, statement->Int(3));
      if (first > 0 && last >= first) covered.push_back({first, last, statement->Int(0)});
      const std::string declared(statement->Text(4));
      if (declared.empty()) continue;
      absl::StatusOr<std::vector<SeqRange>> void_ranges = ParseSeqRanges(declared);
      if (!void_ranges.ok()) continue;  // the indexer stores only well-formed lists
      for (const SeqRange& range : *void_ranges) {
        covered.push_back(
            {static_cast<int64_t>(range.first), static_cast<int64_t>(range.last), -1});
      }
    }
    std::sort(covered.begin(), covered.end(),
              [](const Covered& a, const Covered& b) { return a.first < b.first; });
    // Walk the ranges in order; an object uploaded twice (renamed), or
    // stored under numbers later declared void, overlaps. A gap counts for
    // the session of the next object, past any void ranges between.
    int64_t next = 1, writer_gap_events = 0, session_gap_events = 0;
    int64_t open_gaps = 0, open_gap_events = 0;
    for (const Covered& range : covered) {
      if (range.first > next) {
        writer_gap_events += range.first - next;
        ++open_gaps;
        open_gap_events += range.first - next;
      }
      next = std::max(next, range.last + 1);
      if (range.session_id < 0) continue;
      if (range.session_id == session_id) {
        report.gaps += open_gaps;
        session_gap_events += open_gap_events;
      }
      open_gaps = open_gap_events = 0;
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
