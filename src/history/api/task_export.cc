#include "history/api/task_export.h"

#include "common/text.h"
#include "history/api/param_parsing.h"
#include "history/index/index_schema.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

// The columns of a CSV export, in order: the task list's fields.
constexpr std::string_view kCsvColumns[] = {
    "task_id",       "attempt",     "name",       "function",   "state",
    "raw_state",     "type",        "job_id",     "node_id",    "worker_id",
    "worker_pid",    "actor_id",    "error_type", "exception",  "creation_time_ms",
    "start_time_ms", "end_time_ms", "pending_ms", "running_ms", "total_ms"};

std::string CsvValue(const json& value) {
  if (value.is_null()) return std::string();
  if (value.is_string()) return CsvCell(value.get_ref<const std::string&>());
  return CsvCell(value.dump());
}

// Only what is safe in a header's quoted file name.
std::string FileNamePart(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 128)) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    out.push_back(safe ? c : '_');
  }
  return out;
}

}  // namespace

std::string CsvCell(std::string_view text) {
  std::string cell;
  if (!text.empty() && (text[0] == '=' || text[0] == '+' || text[0] == '-' || text[0] == '@' ||
                        text[0] == '\t' || text[0] == '\r')) {
    cell.push_back('\'');
  }
  cell.append(text);
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (const char c : cell) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

TaskExport::TaskExport(std::unique_ptr<SqliteDb> db, QueryParams params, QueryLimits limits,
                       ExportFormat format, std::string file_name)
    : db_(std::move(db)),
      params_(std::move(params)),
      limits_(limits),
      format_(format),
      file_name_(std::move(file_name)) {}

absl::StatusOr<std::unique_ptr<TaskExport>> TaskExport::Start(
    const std::string& index_dir, uint64_t cache_bytes, uint64_t mmap_bytes,
    const QueryParams& params, QueryLimits limits, uint64_t rows_per_page) {
  const std::string format_name = strings::ToLower(params.Get("format").value_or(""));
  ExportFormat format;
  if (format_name == "csv") {
    format = ExportFormat::kCsv;
  } else if (format_name == "ndjson") {
    format = ExportFormat::kNdjson;
  } else {
    return BadParameter("format: expected csv or ndjson");
  }
  QueryParams list = params;
  list.Remove("format");
  list.Remove("limit");
  absl::StatusOr<std::unique_ptr<SqliteDb>> db =
      OpenIndexForReading(index_dir, cache_bytes, mmap_bytes);
  if (!db.ok()) return absl::UnavailableError(db.status().message());
  // The first page's query checks every parameter before the answer starts:
  // a bad one is still a 400, not a stream cut short.
  HistoryQueries queries(**db, limits);
  QueryParams probe = list;
  probe.Set("limit", "1");
  absl::StatusOr<json> first;
  {
    SqliteStepBudget budget(**db, limits.max_steps_thousands);
    first = queries.Tasks(probe);
  }
  if (!first.ok()) return first.status();
  const std::string session = (*first)["session"].get<std::string>();
  const std::string session_name = session.substr(session.rfind('/') + 1);
  list.Set("limit", std::to_string(std::min<uint64_t>(rows_per_page, limits.max_page_rows)));
  std::string file_name = strings::Cat("tasks-", FileNamePart(session_name),
                                       format == ExportFormat::kCsv ? ".csv" : ".ndjson");
  return std::unique_ptr<TaskExport>(
      new TaskExport(std::move(*db), std::move(list), limits, format, std::move(file_name)));
}

std::string_view TaskExport::content_type() const {
  return format_ == ExportFormat::kCsv ? "text/csv; charset=utf-8" : "application/x-ndjson";
}

absl::StatusOr<std::string> TaskExport::Next() {
  if (done_) return std::string();
  std::string chunk;
  if (format_ == ExportFormat::kCsv && !header_sent_) {
    header_sent_ = true;
    for (std::string_view column : kCsvColumns) {
      strings::Append(chunk, chunk.empty() ? "" : ",", column);
    }
    chunk += "\r\n";
    return chunk;
  }
  HistoryQueries queries(*db_, limits_);
  absl::StatusOr<json> page;
  {
    SqliteStepBudget budget(*db_, limits_.max_steps_thousands);
    page = queries.Tasks(params_);
  }
  if (!page.ok()) {
    done_ = true;
    return page.status();
  }
  for (const json& task : (*page)["tasks"]) {
    if (format_ == ExportFormat::kNdjson) {
      chunk += task.dump(-1, ' ', false, json::error_handler_t::replace);
      chunk += '\n';
      continue;
    }
    bool first = true;
    for (std::string_view column : kCsvColumns) {
      if (!first) chunk += ',';
      first = false;
      chunk += CsvValue(task[std::string(column)]);
    }
    chunk += "\r\n";
  }
  const json& next = (*page)["next_cursor"];
  if (next.is_null()) {
    done_ = true;
  } else {
    params_.Set("cursor", next.get<std::string>());
  }
  return chunk;
}

}  // namespace rayagg::history
