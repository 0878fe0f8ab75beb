// Exports of the task list: every task exactly once across pages in both
// formats, a bad parameter refused before the first byte, and CSV cells that
// no spreadsheet reads as a formula.
#include "history/api/task_export.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "history/fold/reducer.h"
#include "history/index/index_schema.h"
#include "history/index/index_writer.h"
#include "support/temp_dir.h"
#include "unit/history/random_session.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

// Splits CSV text into records of cells (RFC 4180 quoting).
std::vector<std::vector<std::string>> ParseCsv(std::string_view text) {
  std::vector<std::vector<std::string>> records(1);
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().push_back(std::move(cell));
      cell.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      records.back().push_back(std::move(cell));
      cell.clear();
      records.emplace_back();
      ++i;
    } else {
      cell.push_back(c);
    }
  }
  if (records.back().empty() && cell.empty()) records.pop_back();
  return records;
}

class TaskExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir_.path(), 8 << 20);
    ASSERT_TRUE(index.ok()) << index.status();
    db_ = std::move(index->db);
    IndexWriter writer(*db_);
    const Session session = RandomSession(21);
    for (const RayEvent& event : session.events) FoldEvent(event, expected_);
    // A task name that a spreadsheet would run.
    for (auto& [key, task] : expected_.tasks) {
      if (task.definition.has()) {
        task.definition.value.task_name = "=HYPERLINK(\"http://x\",\"a,b\")";
        break;
      }
    }
    absl::StatusOr<int64_t> id = writer.EnsureSession(
        {"raycluster", "ns", "", "c", "session_2026-01-01_00-00-00_000000_1"}, true);
    ASSERT_TRUE(id.ok());
    BatchInput batch;
    batch.folded = expected_;
    ASSERT_TRUE(writer.WriteBatch(*id, std::move(batch)).ok());
  }

  std::string ExportAll(const std::string& target, uint64_t rows_per_page, size_t* chunks) {
    absl::StatusOr<QueryParams> params = QueryParams::FromTarget(target);
    EXPECT_TRUE(params.ok());
    absl::StatusOr<std::unique_ptr<TaskExport>> exporter = TaskExport::Start(
        dir_.path(), 1 << 20, kDefaultMmapBytes, *params, QueryLimits{}, rows_per_page);
    EXPECT_TRUE(exporter.ok()) << exporter.status();
    if (!exporter.ok()) return "";
    std::string out;
    *chunks = 0;
    while (!(*exporter)->done()) {
      absl::StatusOr<std::string> chunk = (*exporter)->Next();
      EXPECT_TRUE(chunk.ok()) << chunk.status();
      if (!chunk.ok()) break;
      out += *chunk;
      ++*chunks;
    }
    return out;
  }

  test::TempDir dir_;
  std::unique_ptr<SqliteDb> db_;
  FoldedSession expected_;
};

TEST_F(TaskExportTest, CsvHoldsEveryTaskOnceAcrossPages) {
  size_t chunks = 0;
  const std::string csv =
      ExportAll("/x?format=csv&unit=attempts&sort=total_duration&order=desc", 3, &chunks);
  const auto records = ParseCsv(csv);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records[0][0], "task_id");
  const size_t columns = records[0].size();
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 1; i < records.size(); ++i) {
    ASSERT_EQ(records[i].size(), columns) << i;
    EXPECT_TRUE(seen.emplace(records[i][0], records[i][1]).second);
    // The formula is text: its first character is the quote mark.
    if (records[i][2].find("HYPERLINK") != std::string::npos) {
      EXPECT_EQ(records[i][2], "'=HYPERLINK(\"http://x\",\"a,b\")");
    }
  }
  EXPECT_EQ(seen.size(), expected_.tasks.size());
  EXPECT_GT(chunks, expected_.tasks.size() / 3);  // paged, never one piece
}

TEST_F(TaskExportTest, NdjsonHoldsEveryTaskOnce) {
  size_t chunks = 0;
  const std::string ndjson =
      ExportAll("/x?format=ndjson&unit=attempts&state=FAILED,FINISHED", 4, &chunks);
  size_t lines = 0, start = 0;
  size_t want = 0;
  for (const auto& [key, task] : expected_.tasks) {
    want += task.raw_state() == kFailed || task.raw_state() == kFinished ? 1 : 0;
  }
  while (start < ndjson.size()) {
    const size_t end = ndjson.find('\n', start);
    ASSERT_NE(end, std::string::npos);
    json row = json::parse(ndjson.substr(start, end - start), nullptr, false);
    ASSERT_FALSE(row.is_discarded());
    EXPECT_TRUE(row["state"] == "FAILED" || row["state"] == "FINISHED") << row;
    ++lines;
    start = end + 1;
  }
  EXPECT_EQ(lines, want);
}

TEST_F(TaskExportTest, BadParametersAreRefusedBeforeTheFirstByte) {
  for (const char* target : {"/x", "/x?format=xml", "/x?format=csv&state=NOPE",
                             "/x?format=csv&sort=nonsense", "/x?format=csv&sesion=x"}) {
    absl::StatusOr<QueryParams> params = QueryParams::FromTarget(target);
    ASSERT_TRUE(params.ok());
    absl::StatusOr<std::unique_ptr<TaskExport>> exporter =
        TaskExport::Start(dir_.path(), 1 << 20, kDefaultMmapBytes, *params, QueryLimits{}, 100);
    ASSERT_FALSE(exporter.ok()) << target;
    EXPECT_EQ(exporter.status().code(), absl::StatusCode::kInvalidArgument) << target;
  }
}

TEST(CsvCellTest, QuotesAndDefusesFormulas) {
  EXPECT_EQ(CsvCell("plain"), "plain");
  EXPECT_EQ(CsvCell("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvCell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvCell("line\nbreak"), "\"line\nbreak\"");
  for (const char* formula : {"=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"}) {
    EXPECT_EQ(CsvCell(formula).find('\''), formula[0] == '\r' ? 1u : 0u) << formula;
  }
  EXPECT_EQ(CsvCell(""), "");
}

}  // namespace
}  // namespace rayagg::history
