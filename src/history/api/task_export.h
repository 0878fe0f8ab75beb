// A task list export of any size (CSV or NDJSON): the task list's filters
// and sort, read page by page on a connection of its own (outside the API's
// reader pool), each page under its own work budget, and handed out one
// formatted chunk at a time, so memory holds one page whatever the export's
// size. The HTTP side streams the chunks and stops asking when the client
// stops reading.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "history/api/queries.h"
#include "history/api/query_params.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

enum class ExportFormat { kCsv, kNdjson };

// One CSV cell: quoted when it holds a comma, quote, CR or LF; a cell that
// begins with =, +, -, @, tab or CR is prefixed with ' so that a
// spreadsheet never reads it as a formula (task names and errors are
// anyone's text).
std::string CsvCell(std::string_view text);

class TaskExport {
 public:
  // Checks the parameters (the task list's, plus `format` = csv | ndjson)
  // and opens the export's own connection. Errors as the task list's.
  static absl::StatusOr<std::unique_ptr<TaskExport>> Start(
      const std::string& index_dir, uint64_t cache_bytes, uint64_t mmap_bytes,
      const QueryParams& params, QueryLimits limits, uint64_t rows_per_page);

  // The next chunk: the CSV header first, then one page of rows; an empty
  // string once every row was given. An error ends the export (the HTTP
  // side then cuts the answer short, so the client sees it incomplete).
  absl::StatusOr<std::string> Next();
  bool done() const { return done_; }

  ExportFormat format() const { return format_; }
  std::string_view content_type() const;
  // A file name for Content-Disposition, from the session's name.
  const std::string& file_name() const { return file_name_; }

 private:
  TaskExport(std::unique_ptr<SqliteDb> db, QueryParams params, QueryLimits limits,
             ExportFormat format, std::string file_name);

  std::unique_ptr<SqliteDb> db_;
  QueryParams params_;  // the task list's, with limit and cursor set per page
  const QueryLimits limits_;
  const ExportFormat format_;
  const std::string file_name_;
  bool header_sent_ = false;
  bool done_ = false;
};

}  // namespace rayagg::history
