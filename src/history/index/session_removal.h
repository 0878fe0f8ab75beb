// Why a session left the index. A removed session keeps its `sessions` row
// (status 'evicted') with these columns, so that it stays listed and the
// API's 404 can say why (docs/HISTORY.md "Retention"):
//   removed_reason  'retention' (nothing new indexed and no event for
//                   index.retention), 'gone' (its objects left the store
//                   index.retention ago), 'max_bytes' (the index was above
//                   index.max_bytes and it was the oldest session);
//   removed_ms      wall-clock ms of the removal;
//   removed_detail  the setting that decided it, e.g. "index.retention is 720h".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

struct SessionRemoval {
  std::string reason;
  int64_t removed_ms = 0;
  std::string detail;
};

// "session <session> was removed by retention at 2026-06-01T10:00:00Z:
// index.retention is 720h".
std::string DescribeRemoval(std::string_view session, const SessionRemoval& removal);

// The removal of the session a selector names, as the API takes it
// ("<cluster>/<session_name>", or a bare session name), when that session
// was removed; nullopt when no removed session has that name.
absl::StatusOr<std::optional<SessionRemoval>> FindRemoval(SqliteDb& db, std::string_view selector);

}  // namespace rayagg::history
