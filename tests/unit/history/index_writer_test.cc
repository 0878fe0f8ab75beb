// The index's task model over a real SQLite index: one row per attempt, the
// latest flag and the attempt count moving as attempts arrive (in any
// order), the summaries in both units (attempts, and tasks by their latest
// attempt), reconciliation in both units; and every sortable column served
// by its own index for a keyset page. (Random sessions in random batches:
// reducer_property_test.cc.)
#include "history/index/index_writer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "common/text.h"
#include "history/index/index_schema.h"
#include "support/temp_dir.h"

namespace rayagg::history {
namespace {

constexpr char kTask[] = "00aa";
constexpr char kJob[] = "01000000";

TaskRecord Attempt(int32_t attempt, std::vector<TaskTransition> transitions) {
  TaskRecord task;
  task.task_id = kTask;
  task.attempt = attempt;
  TaskDefinition definition;
  definition.func_name = "f";
  definition.job_id = kJob;
  task.definition.Offer(1, definition);
  for (const TaskTransition& t : transitions) task.AddTransition(t);
  return task;
}

class TaskModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir_.path(), 1 << 20);
    ASSERT_TRUE(index.ok()) << index.status();
    db_ = std::move(index->db);
    writer_ = std::make_unique<IndexWriter>(*db_);
    absl::StatusOr<int64_t> id = writer_->EnsureSession(
        {"raycluster", "default", "", "c", "session_2026-01-01_00-00-00_000000_1"}, false);
    ASSERT_TRUE(id.ok());
    session_ = *id;
  }

  void Write(std::vector<TaskRecord> tasks, bool job_finished = false) {
    BatchInput input;
    for (TaskRecord& task : tasks) {
      const int32_t attempt = task.attempt;
      input.folded.tasks.emplace(TaskKey{kTask, attempt}, std::move(task));
    }
    if (job_finished) {
      JobRecord job;
      job.job_id = kJob;
      job.AddTransition({2, 900, "", "", std::nullopt});
      input.folded.jobs.emplace(kJob, std::move(job));
    }
    ASSERT_TRUE(writer_->WriteBatch(session_, std::move(input)).ok());
  }

  // attempt -> (state, latest, attempts)
  std::map<int64_t, std::tuple<int64_t, int64_t, int64_t>> Rows() {
    std::map<int64_t, std::tuple<int64_t, int64_t, int64_t>> out;
    SqliteStatement s = *db_->Prepare("SELECT attempt, state, latest, attempts FROM tasks");
    while (*s.Step()) out[s.Int(0)] = {s.Int(1), s.Int(2), s.Int(3)};
    return out;
  }

  // state -> count, in one unit (the job dimension).
  std::map<int64_t, int64_t> Counts(SummaryUnit unit) {
    std::map<int64_t, int64_t> out;
    SqliteStatement s = *db_->Prepare(
        "SELECT state, sum(count) FROM summary WHERE unit=? AND dim=0 GROUP BY state");
    s.Bind(1, static_cast<int>(unit));
    while (*s.Step()) out[s.Int(0)] = s.Int(1);
    return out;
  }

  test::TempDir dir_;
  std::unique_ptr<SqliteDb> db_;
  std::unique_ptr<IndexWriter> writer_;
  int64_t session_ = 0;
};

using Row = std::tuple<int64_t, int64_t, int64_t>;
using Count = std::map<int64_t, int64_t>;

TEST_F(TaskModelTest, ALaterAttemptTakesTheTaskWhicheverArrivesFirst) {
  const auto tasks = SummaryUnit::kTasks;
  const auto attempts = SummaryUnit::kAttempts;
  // Attempt 1 (finished) arrives before attempt 0 (failed).
  Write({Attempt(1, {{kPendingArgsAvail, 100}, {kRunning, 200}, {kFinished, 300}})});
  EXPECT_EQ(Rows(), (std::map<int64_t, Row>{{1, Row{kFinished, 1, 2}}}));
  EXPECT_EQ(Counts(tasks), (Count{{kFinished, 1}}));
  Write({Attempt(0, {{kPendingArgsAvail, 10}, {kRunning, 20}, {kFailed, 30}})});
  EXPECT_EQ(Rows(), (std::map<int64_t, Row>{{0, Row{kFailed, 0, 2}}, {1, Row{kFinished, 1, 2}}}));
  EXPECT_EQ(Counts(tasks), (Count{{kFinished, 1}}));
  EXPECT_EQ(Counts(attempts), (Count{{kFinished, 1}, {kFailed, 1}}));
  // Both again, and attempt 0 once more: nothing moves.
  Write({Attempt(0, {{kPendingArgsAvail, 10}, {kRunning, 20}, {kFailed, 30}}),
         Attempt(1, {{kPendingArgsAvail, 100}, {kRunning, 200}, {kFinished, 300}})});
  Write({Attempt(0, {{kFailed, 30}})});
  EXPECT_EQ(Counts(tasks), (Count{{kFinished, 1}}));
  EXPECT_EQ(Counts(attempts), (Count{{kFinished, 1}, {kFailed, 1}}));
  // Attempt 2 starts: the task is running again, as a task; its attempts
  // unit keeps all three.
  Write({Attempt(2, {{kPendingArgsAvail, 400}, {kRunning, 500}})});
  EXPECT_EQ(Rows(),
            (std::map<int64_t, Row>{
                {0, Row{kFailed, 0, 3}}, {1, Row{kFinished, 0, 3}}, {2, Row{kRunning, 1, 3}}}));
  EXPECT_EQ(Counts(tasks), (Count{{kRunning, 1}}));
  EXPECT_EQ(Counts(attempts), (Count{{kFinished, 1}, {kFailed, 1}, {kRunning, 1}}));
  // Its job finishes: reconciled, in both units.
  Write({}, true);
  EXPECT_EQ(std::get<0>(Rows()[2]), kUnknownJobFinished);
  EXPECT_EQ(Counts(tasks), (Count{{kUnknownJobFinished, 1}}));
  EXPECT_EQ(Counts(attempts), (Count{{kFinished, 1}, {kFailed, 1}, {kUnknownJobFinished, 1}}));
}

TEST_F(TaskModelTest, ABatchWithSeveralAttemptsCountsTheHighestAsTheTask) {
  Write(
      {Attempt(0, {{kFailed, 30}}), Attempt(3, {{kFinished, 300}}), Attempt(1, {{kFailed, 130}})});
  EXPECT_EQ(Rows(),
            (std::map<int64_t, Row>{
                {0, Row{kFailed, 0, 4}}, {1, Row{kFailed, 0, 4}}, {3, Row{kFinished, 1, 4}}}));
  EXPECT_EQ(Counts(SummaryUnit::kTasks), (Count{{kFinished, 1}}));
  EXPECT_EQ(Counts(SummaryUnit::kAttempts), (Count{{kFinished, 1}, {kFailed, 2}}));
  // The missing attempt 2 arrives later: the task stays where it is.
  Write({Attempt(2, {{kFailed, 230}})});
  EXPECT_EQ(Counts(SummaryUnit::kTasks), (Count{{kFinished, 1}}));
  EXPECT_EQ(Counts(SummaryUnit::kAttempts), (Count{{kFinished, 1}, {kFailed, 3}}));
  EXPECT_EQ(Rows()[2], (Row{kFailed, 0, 4}));
}

// The query layer's keyset pages: for every sortable column, a page after a
// cursor (column, start_ns, id), ascending or descending, in either unit,
// is one seek in tasks_by_<column> and no sort.
TEST(IndexSchema, EverySortColumnIsServedByItsOwnIndex) {
  test::TempDir dir;
  absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir.path(), 1 << 20);
  ASSERT_TRUE(index.ok()) << index.status();
  const std::vector<std::pair<std::string, std::string>> columns = {
      {"end_ns", "tasks_by_end"},
      {"creation_ns", "tasks_by_creation"},
      {"pending_ns", "tasks_by_pending"},
      {"running_ns", "tasks_by_running"},
      {"total_ns", "tasks_by_total"},
      {"state", "tasks_by_state"},
      {"attempt", "tasks_by_attempt"},
      {"error_type", "tasks_by_error_type"},
      {"job_id", "tasks_by_job"},
      {"name", "tasks_by_name"},
      {"func_id", "tasks_by_func"},
      {"node_id", "tasks_by_node"},
      {"exception_id", "tasks_by_exception"},
  };
  auto plan = [&](const std::string& sql) {
    std::string out;
    absl::StatusOr<SqliteStatement> s = index->db->Prepare("EXPLAIN QUERY PLAN " + sql);
    EXPECT_TRUE(s.ok()) << sql;
    if (!s.ok()) return out;
    while (s->Step().value_or(false)) strings::Append(out, s->Text(3), "; ");
    return out;
  };
  for (const char* order : {"ASC", "DESC"}) {
    for (const char* unit : {"", " AND latest = 1"}) {
      const char* op = std::string_view(order) == "ASC" ? ">" : "<";
      for (const auto& [column, name] : columns) {
        const std::string sql =
            strings::Cat("SELECT id FROM tasks WHERE session_id = ?", unit, " AND (", column,
                         ", start_ns, id) ", op, " (?, ?, ?) ORDER BY ", column, " ", order,
                         ", start_ns ", order, ", id ", order, " LIMIT 101");
        const std::string got = plan(sql);
        EXPECT_NE(got.find("INDEX " + name + " "), std::string::npos) << sql << "\n" << got;
        EXPECT_EQ(got.find("TEMP B-TREE"), std::string::npos) << sql << "\n" << got;
      }
      const std::string sql =
          strings::Cat("SELECT id FROM tasks WHERE session_id = ?", unit, " AND (start_ns, id) ",
                       op, " (?, ?) ORDER BY start_ns ", order, ", id ", order, " LIMIT 101");
      const std::string got = plan(sql);
      EXPECT_NE(got.find("INDEX tasks_by_start "), std::string::npos) << sql << "\n" << got;
      EXPECT_EQ(got.find("TEMP B-TREE"), std::string::npos) << sql << "\n" << got;
    }
  }
}

}  // namespace
}  // namespace rayagg::history
