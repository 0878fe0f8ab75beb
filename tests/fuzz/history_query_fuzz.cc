// ray-task-history's query API below HTTP: arbitrary bytes as a request
// target, parsed into query parameters (history/api/query_params.h) and given to
// every query (history/api/queries.h: our task list, counts, groups, task,
// actor and job pages, Ray's State API list and summary), which build their
// filters and SQL from them, over an index of two random sessions built once.
// The property: every answer is a result or one of the documented errors
// (InvalidArgument 400, NotFound 404, DeadlineExceeded 503); anything else
// (an Internal error from SQLite) means a parameter reached the SQL text.
#include <google/protobuf/stubs/logging.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "history/api/queries.h"
#include "history/api/query_params.h"
#include "history/fold/reducer.h"
#include "history/index/index_schema.h"
#include "history/index/index_writer.h"
#include "support/temp_dir.h"
#include "unit/history/random_session.h"

namespace {

using namespace rayagg::history;

struct Index {
  rayagg::test::TempDir dir;
  std::unique_ptr<SqliteDb> db;
};

Index& TheIndex() {
  // An object, not a leaked pointer: at exit its destructor closes the index
  // and removes the temporary directory (the database closes first: it is
  // declared after the directory).
  static Index index;
  static const bool built = [] {
    absl::StatusOr<OpenedIndex> opened = OpenIndexForWriting(index.dir.path(), 8 << 20);
    if (!opened.ok()) std::abort();
    // The writer (and its search texts, which unhook themselves from the
    // connection) ends before the connection closes.
    auto writer_storage = std::make_unique<IndexWriter>(*opened->db);
    IndexWriter& writer = *writer_storage;
    for (uint64_t seed : {11, 12}) {
      FoldedSession folded;
      for (const RayEvent& event : RandomSession(seed).events) FoldEvent(event, folded);
      const SessionIdentity identity{
          "rayjob", "team-a", "nightly", "cluster-1",
          "session_2026-01-0" + std::to_string(seed - 10) + "_00-00-00_000000_1"};
      absl::StatusOr<int64_t> id = writer.EnsureSession(identity, true);
      BatchInput batch;
      batch.folded = std::move(folded);
      if (!id.ok() || !writer.WriteBatch(*id, std::move(batch)).ok()) std::abort();
    }
    writer_storage.reset();
    opened->db.reset();
    absl::StatusOr<std::unique_ptr<SqliteDb>> reader =
        OpenIndexForReading(index.dir.path(), 4 << 20);
    if (!reader.ok()) std::abort();
    index.db = std::move(*reader);
    return true;
  }();
  (void)built;
  return index;
}

void Check(const absl::StatusOr<nlohmann::json>& answer, const char* query) {
  if (answer.ok()) return;
  switch (answer.status().code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kDeadlineExceeded:
      return;
    default:
      std::fprintf(stderr, "history_query_fuzz: %s answered %s\n", query,
                   answer.status().ToString().c_str());
      std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  TheIndex();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view target(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<QueryParams> params = QueryParams::FromTarget(target);
  (void)TargetPath(target);
  if (!params.ok()) return 0;
  HistoryQueries queries(*TheIndex().db, QueryLimits{});
  // As the API server runs every answer: under one work budget.
  SqliteStepBudget budget(*TheIndex().db, QueryLimits{}.max_steps_thousands);
  Check(queries.Sessions(*params), "Sessions");
  Check(queries.Counts(*params), "Counts");
  Check(queries.Groups(*params), "Groups");
  Check(queries.Tasks(*params), "Tasks");
  Check(queries.Task(*params), "Task");
  Check(queries.Actors(*params), "Actors");
  Check(queries.Actor(*params), "Actor");
  Check(queries.Jobs(*params), "Jobs");
  Check(queries.Job(*params), "Job");
  Check(queries.RayListTasks(*params), "RayListTasks");
  Check(queries.RaySummarizeTasks(*params), "RaySummarizeTasks");
  return 0;
}
