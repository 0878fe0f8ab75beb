#include "history/index/session_removal.h"

#include <ctime>

#include "common/text.h"

namespace rayagg::history {
namespace {

std::string UtcTime(int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  const size_t n = std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return std::string(text, n);
}

std::string_view ReasonText(std::string_view reason) {
  if (reason == "retention") return "by retention";
  if (reason == "gone") return "after its objects left the store";
  if (reason == "max_bytes") return "to keep the index under index.max_bytes";
  return "";
}

}  // namespace

std::string DescribeRemoval(std::string_view session, const SessionRemoval& removal) {
  std::string out = strings::Cat("session ", session, " was removed from the index");
  const std::string_view why = ReasonText(removal.reason);
  if (!why.empty()) strings::Append(out, " ", why);
  if (removal.removed_ms > 0) strings::Append(out, " at ", UtcTime(removal.removed_ms));
  if (!removal.detail.empty()) strings::Append(out, ": ", removal.detail);
  return out;
}

absl::StatusOr<std::optional<SessionRemoval>> FindRemoval(SqliteDb& db, std::string_view selector) {
  const size_t slash = selector.rfind('/');
  absl::StatusOr<SqliteStatement> select = db.Prepare(
      slash == std::string_view::npos
          ? "SELECT removed_reason, removed_ms, removed_detail FROM sessions WHERE name=?1 AND "
            "status='evicted' ORDER BY removed_ms DESC LIMIT 1"
          : "SELECT removed_reason, removed_ms, removed_detail FROM sessions WHERE cluster=?2 AND "
            "name=?1 AND status='evicted'");
  if (!select.ok()) return select.status();
  if (slash == std::string_view::npos) {
    select->BindText(1, selector);
  } else {
    select->BindText(1, selector.substr(slash + 1)).BindText(2, selector.substr(0, slash));
  }
  absl::StatusOr<bool> row = select->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::nullopt;
  return SessionRemoval{std::string(select->Text(0)), select->Int(1), std::string(select->Text(2))};
}

}  // namespace rayagg::history
