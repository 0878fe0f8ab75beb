// A real SQLite index, written by the real IndexWriter, for the search's
// tests: two random sessions plus a hand-made one whose tasks have known
// names, ids and Python stack traces (one of them holding what SQL and FTS5
// would read as syntax), with a plain scan of the records to compare with.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/text.h"
#include "history/api/search.h"
#include "history/fold/reducer.h"
#include "history/index/index_schema.h"
#include "history/index/index_writer.h"
#include "support/temp_dir.h"
#include "unit/history/random_session.h"

namespace rayagg::history {

inline std::string LowerAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

inline bool Contains(std::string_view haystack, std::string_view needle) {
  return LowerAscii(haystack).find(LowerAscii(needle)) != std::string::npos;
}

inline std::string Frame(std::mt19937_64& random) {
  static const char* const kFiles[] = {"loader", "model", "train", "shard", "io_utils"};
  static const char* const kFunctions[] = {"forward", "read_batch", "step", "collate", "open"};
  return strings::Cat("  File \"/srv/app/", kFiles[random() % 5], ".py\", line ", random() % 900,
                      ", in ", kFunctions[random() % 5], "\n    value = compute(x, ",
                      random() % 100000, ")\n");
}

// Every task of the hand-made session: distinct Python stack traces, and
// messages holding what SQL and FTS5 would read as syntax.
inline const char* const kHostileMessage =
    "ValueError: 50% of rows_ok \"quoted\" it's a*b\") OR 1=1 -- (NEAR x) AND y:z ^start";

class SearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir_.path(), 8 << 20);
    ASSERT_TRUE(index.ok()) << index.status();
    db_ = std::move(index->db);
    writer_ = std::make_unique<IndexWriter>(*db_);
    for (uint64_t seed : {21, 22}) {
      const Session session = RandomSession(seed);
      FoldedSession folded;
      for (const RayEvent& event : session.events) FoldEvent(event, folded);
      Write("session_random_" + std::to_string(seed), std::move(folded));
    }
    FoldedSession made;
    std::mt19937_64 random(5);
    for (int i = 0; i < 60; ++i) {
      TaskRecord task;
      task.task_id = strings::Cat(i < 16 ? "ab" : "c3", HexId(RawId(random, 23)));
      if (i == 1) task.task_id = "abc" + task.task_id.substr(3);
      task.attempt = 0;
      TaskDefinition definition;
      definition.func_name = i % 3 == 0 ? "pipeline.Stage.load_shard" : "train_step";
      definition.task_name = i % 4 == 0 ? "Nightly Ärger-Job 😀" : "";
      definition.job_id = i % 2 == 0 ? "0a0b0c0d" : "ff00ff00";
      task.definition.Offer(1, definition);
      task.AddTransition({kRunning, 1'000 + i});
      if (i % 2 == 1) {
        task.AddTransition({kFailed, 2'000 + i});
        std::string trace = "Traceback (most recent call last):\n";
        const int frames = 2 + static_cast<int>(random() % 20);
        for (int f = 0; f < frames; ++f) trace += Frame(random);
        trace += i == 3 ? std::string(kHostileMessage)
                        : strings::Cat("KeyError: 'missing column ", random() % 1'000'000, "'");
        // Two tasks share one message: it is stored once.
        if (i == 7) trace = tasks_[5].error.value.message;
        task.error.Offer(3, TaskError{10, trace});
      } else {
        task.AddTransition({kFinished, 2'000 + i});
      }
      tasks_.push_back(task);
      made.tasks[{task.task_id, 0}] = task;
      // Some failed tasks were retried and finished: their first attempt
      // is superseded (not counted in the tasks unit).
      if (i % 10 == 9) {
        TaskRecord retry;
        retry.task_id = task.task_id;
        retry.attempt = 1;
        retry.definition.Offer(2, definition);
        retry.AddTransition({kRunning, 3'000 + i});
        retry.AddTransition({kFinished, 4'000 + i});
        made.tasks[{retry.task_id, 1}] = retry;
      }
    }
    made_session_ = Write("session_made", std::move(made));
  }

  int64_t Write(const std::string& name, FoldedSession folded) {
    SessionIdentity identity{"raycluster", "ns", "", "c", name};
    absl::StatusOr<int64_t> id = writer_->EnsureSession(identity, true);
    EXPECT_TRUE(id.ok());
    session_names_[*id] = identity.cluster() + "/" + name;
    for (const auto& [key, task] : folded.tasks) expected_[*id].push_back(task);
    BatchInput batch;
    batch.folded = std::move(folded);
    absl::StatusOr<WriteStats> written = writer_->WriteBatch(*id, std::move(batch));
    EXPECT_TRUE(written.ok()) << written.status();
    return *id;
  }

  // The task attempts ("<hex id>/<attempt>") that match `q` in the session, by the clause, with
  // the count summed over its parts checked against the list.
  std::set<std::string> Find(int64_t session, const SearchQuery& query, SearchLimits limits) {
    absl::StatusOr<SearchClause> clause = BuildSearchClause(*db_, session, query, limits);
    EXPECT_TRUE(clause.ok()) << clause.status();
    if (!clause.ok()) return {};
    absl::StatusOr<SqliteStatement> select = db_->Prepare(strings::Cat(
        "SELECT t.task_id, t.attempt FROM tasks t WHERE t.session_id = ? AND t.attempt >= 0 AND ",
        clause->where.sql, " ORDER BY t.start_ns, t.id"));
    EXPECT_TRUE(select.ok()) << select.status();
    if (!select.ok()) return {};
    select->Bind(1, session);
    BindValues(*select, 2, clause->where.values);
    std::set<std::string> found;
    size_t rows = 0;
    for (;;) {
      absl::StatusOr<bool> row = select->Step();
      EXPECT_TRUE(row.ok()) << row.status();
      if (!row.ok() || !*row) break;
      found.insert(strings::Cat(HexId(select->Blob(0)), "/", select->Int(1)));
      ++rows;
    }
    EXPECT_EQ(rows, found.size());
    int64_t count = 0;
    for (const SqlClause& part : clause->count_parts) {
      absl::StatusOr<SqliteStatement> counted = db_->Prepare(strings::Cat(
          "SELECT count(*) FROM tasks t WHERE t.session_id = ? AND t.attempt >= 0 AND ", part.sql));
      EXPECT_TRUE(counted.ok()) << counted.status();
      if (!counted.ok()) return {};
      counted->Bind(1, session);
      BindValues(*counted, 2, part.values);
      EXPECT_TRUE(counted->Step().value_or(false));
      count += counted->Int(0);
    }
    EXPECT_EQ(count, static_cast<int64_t>(found.size())) << query.text;
    return found;
  }

  // What the search must find: a plain scan of the records (ASCII case).
  std::set<std::string> Scan(int64_t session, const SearchQuery& query) {
    std::set<std::string> out;
    for (const TaskRecord& task : expected_[session]) {
      const TaskDefinition& d = task.definition.value;
      const bool hex = !query.hex.empty() && (task.task_id.starts_with(query.hex) ||
                                              task.job_id().starts_with(query.hex) ||
                                              task.node_id.value.starts_with(query.hex));
      if (hex || Contains(d.func_name, query.text) || Contains(d.task_name, query.text) ||
          (task.error.has() && Contains(task.error.value.message, query.text))) {
        out.insert(strings::Cat(task.task_id, "/", task.attempt));
      }
    }
    return out;
  }

  // Checks `q` in every session, in each of the clause's forms.
  void ExpectFound(const std::string& q) {
    absl::StatusOr<SearchQuery> query = ParseSearch(q);
    ASSERT_TRUE(query.ok()) << query.status();
    for (const auto& [session, tasks] : expected_) {
      const std::set<std::string> want = Scan(session, *query);
      for (const SearchLimits limits : {SearchLimits{}, SearchLimits{0, 0}, SearchLimits{0, 1}}) {
        EXPECT_EQ(Find(session, *query, limits), want)
            << q << " session " << session << " limits " << limits.max_listed_tasks << "/"
            << limits.max_listed_texts;
      }
    }
  }

  std::set<std::string> FindAll(int64_t session, const std::string& q) {
    absl::StatusOr<SearchQuery> query = ParseSearch(q);
    EXPECT_TRUE(query.ok()) << query.status();
    return query.ok() ? Find(session, *query, {}) : std::set<std::string>();
  }

  test::TempDir dir_;
  std::unique_ptr<SqliteDb> db_;
  std::unique_ptr<IndexWriter> writer_;
  std::map<int64_t, std::vector<TaskRecord>> expected_;
  std::map<int64_t, std::string> session_names_;  // as the API names them
  std::vector<TaskRecord> tasks_;
  int64_t made_session_ = 0;
};

}  // namespace rayagg::history
