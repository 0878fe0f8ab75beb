// The task search (q=) over a real SQLite index written by the real
// IndexWriter: random sessions plus hand-made tasks with known stack traces.
// Every query's answer (the clause composed into a SELECT over tasks, and
// its exact count summed over the count parts) is checked against a plain
// substring scan of the folded records, in each of the clause's forms;
// hostile texts answer correctly or with a 400, never an SQL error.
#include "history/api/search.h"

#include <gtest/gtest.h>

#include "unit/history/search_session.h"

namespace rayagg::history {
namespace {

TEST_F(SearchTest, ShortLongNulAndInvalidTextAreRefused) {
  for (const std::string& q :
       {std::string(""), std::string("  "), std::string("ab"), std::string("  ab \t"),
        std::string("*"), std::string("%"), std::string("_"), std::string("\""),
        std::string("\xc3\xa4\xc3\xa4"), std::string(1 << 20, 'a'), std::string("abc\0def", 7),
        std::string("ab\xff"), std::string("\xc0\xaf\x41\x42")}) {
    absl::StatusOr<SearchQuery> query = ParseSearch(q);
    ASSERT_FALSE(query.ok()) << q.size();
    EXPECT_EQ(query.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(query.status().message().substr(0, 3), "q: ") << query.status();
  }
  absl::StatusOr<SearchQuery> three = ParseSearch("  \xc3\xa4\xc3\xb6\xc3\xbc  ");
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->text, "\xc3\xa4\xc3\xb6\xc3\xbc");
  EXPECT_TRUE(ParseSearch(std::string(kMaxSearchBytes, 'x')).ok());
  EXPECT_FALSE(ParseSearch(std::string(kMaxSearchBytes + 1, 'x')).ok());
}

TEST_F(SearchTest, TheTextIsOneQuotedPhrase) {
  absl::StatusOr<SearchQuery> query = ParseSearch("a\"b OR c");
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->fts_phrase, "\"a\"\"b OR c\"");
}

TEST_F(SearchTest, HostileTextsAreData) {
  for (const char* q :
       {"\") OR 1=1 --", "1=1",      "***",        "%%%",    "___",   "50%",
        "rows_ok",       "a*b",      "\"quoted\"", "\"\"\"", "it's",  "\"unbalanced",
        "unbalanced'",   "(NEAR x)", "y:z",        "^start", "OR 1",  "AND",
        "NOT",           "x'00'",    "%_%",        "-- (",   "\\\\\\"}) {
    ExpectFound(q);
  }
  // The hostile message's task is found by its SQL-looking part.
  EXPECT_EQ(FindAll(made_session_, "\") OR 1=1 --"),
            std::set<std::string>{tasks_[3].task_id + "/0"});
  EXPECT_EQ(FindAll(made_session_, "50% of rows_ok"),
            std::set<std::string>{tasks_[3].task_id + "/0"});
}

TEST_F(SearchTest, ATwelveCharacterStackTraceSubstringFindsItsTaskOnly) {
  const TaskRecord& task = tasks_[11];
  const std::string& trace = task.error.value.message;
  // A 12-character piece from the middle of the trace that no other task has.
  std::string piece;
  for (size_t at = trace.size() / 2; at + 12 <= trace.size(); ++at) {
    piece = trace.substr(at, 12);
    bool unique = piece.find('\n') == std::string::npos;
    for (const TaskRecord& other : tasks_) {
      if (&other != &task && other.error.has() &&
          other.error.value.message.find(piece) != std::string::npos) {
        unique = false;
      }
    }
    if (unique) break;
  }
  ASSERT_EQ(piece.size(), 12u);
  EXPECT_EQ(FindAll(made_session_, piece), std::set<std::string>{task.task_id + "/0"}) << piece;
  EXPECT_EQ(FindAll(made_session_, strings::ToUpper(piece)),
            std::set<std::string>{task.task_id + "/0"});
  ExpectFound(piece);
}

TEST_F(SearchTest, NamesTracesAndExceptionsWithoutCase) {
  for (const char* q :
       {"load_shard", "LOAD_SHARD", "Stage.Load", "train_step", "ain_st", "keyerror",
        "KeyError: 'missing", "Traceback", "line 1", "in forward\n    value", "/srv/app/",
        "method1", "name1", "name3", "nightly", "mod.Actor"}) {
    ExpectFound(q);
  }
  // Non-ASCII letters are folded by the index too.
  const std::set<std::string> named = FindAll(made_session_, "nightly ärger");
  EXPECT_EQ(named.size(), 15u);
  EXPECT_EQ(FindAll(made_session_, "NIGHTLY ÄRGER"), named);
  EXPECT_FALSE(ParseSearch("😀").ok());  // one character
  EXPECT_EQ(FindAll(made_session_, "-Job 😀"), named);
}

TEST_F(SearchTest, HexIdPrefixesOfOddAndEvenLength) {
  for (const std::string& q :
       std::vector<std::string>{"abc", "ABC", "abcd", "c3f", "0a0b", "0A0B0C0D", "ff00f", "ffff",
                                "fff", "0a0b0c0d0", tasks_[1].task_id}) {
    ExpectFound(q);
  }
  const std::set<std::string> abc = FindAll(made_session_, "ABC");
  EXPECT_TRUE(abc.contains(tasks_[1].task_id + "/0"));
  EXPECT_EQ(FindAll(made_session_, tasks_[1].task_id),
            std::set<std::string>{tasks_[1].task_id + "/0"});
  EXPECT_EQ(FindAll(made_session_, tasks_[1].task_id.substr(0, 9)),
            std::set<std::string>{tasks_[1].task_id + "/0"});
  // A job id: its 30 tasks and the 6 retried ones' second attempts.
  EXPECT_EQ(FindAll(made_session_, "ff00ff00").size(), 36u);
  // Node ids, whole and as prefixes of odd and even length.
  for (const auto& [session, tasks] : expected_) {
    for (const TaskRecord& task : tasks) {
      const std::string& node = task.node_id.value;
      if (node.size() < 7) continue;
      ExpectFound(node.substr(0, 5));
      ExpectFound(node.substr(0, 6));
      ExpectFound(node);
      EXPECT_TRUE(FindAll(session, node).contains(strings::Cat(task.task_id, "/", task.attempt)));
      break;
    }
  }
}

TEST_F(SearchTest, RandomSubstringsOfEveryText) {
  std::mt19937_64 random(9);
  for (const auto& [session, tasks] : expected_) {
    for (int i = 0; i < 40; ++i) {
      const TaskRecord& task = tasks[random() % tasks.size()];
      const std::string& text = task.error.has() && random() % 2 == 0
                                    ? task.error.value.message
                                    : task.definition.value.func_name;
      if (text.size() < 3) continue;
      const size_t length = 3 + random() % std::min<size_t>(text.size() - 2, 30);
      const size_t at = random() % (text.size() - length + 1);
      std::string q = text.substr(at, length);
      if (q.front() == ' ' || q.back() == ' ' || q.front() == '\n' || q.back() == '\n') continue;
      ExpectFound(q);
      EXPECT_TRUE(FindAll(session, q).contains(strings::Cat(task.task_id, "/", task.attempt))) << q;
    }
  }
}

TEST_F(SearchTest, ALaterErrorAndADroppedSessionAreFollowed) {
  // A finished task's later attempt data: its error arrives in a second batch.
  FoldedSession later;
  TaskRecord task = tasks_[0];
  task.error.Offer(9, TaskError{10, "RuntimeError: arrived late in batch two"});
  later.tasks[{task.task_id, 0}] = task;
  BatchInput batch;
  batch.folded = std::move(later);
  ASSERT_TRUE(writer_->WriteBatch(made_session_, std::move(batch)).ok());
  EXPECT_EQ(FindAll(made_session_, "arrived late"), std::set<std::string>{task.task_id + "/0"});

  const int64_t other = expected_.begin()->first;
  const std::set<std::string> before = FindAll(other, "name");
  EXPECT_FALSE(before.empty());
  ASSERT_TRUE(writer_->DropSession(made_session_).ok());
  absl::StatusOr<SqliteStatement> left =
      db_->Prepare("SELECT count(*) FROM search_texts WHERE session_id = ?");
  ASSERT_TRUE(left.ok());
  left->Bind(1, made_session_);
  ASSERT_TRUE(left->Step().value_or(false));
  EXPECT_EQ(left->Int(0), 0);
  absl::StatusOr<SqliteStatement> rows = db_->Prepare(
      "SELECT (SELECT count(*) FROM search_names) + (SELECT count(*) FROM "
      "search_errors), (SELECT count(*) FROM search_texts)");
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(rows->Step().value_or(false));
  EXPECT_EQ(rows->Int(0), rows->Int(1));  // every FTS row has its text row
  EXPECT_EQ(FindAll(other, "name"), before);
}

TEST_F(SearchTest, AnIdInternedByARolledBackBatchIsNotReused) {
  SearchTexts texts(*db_);
  {
    SqliteTransaction transaction(*db_);
    ASSERT_TRUE(transaction.status().ok());
    ASSERT_TRUE(texts.Intern(made_session_, SearchKind::kError, "OSError: gone").ok());
  }  // rolled back
  SqliteTransaction transaction(*db_);
  absl::StatusOr<int64_t> id = texts.Intern(made_session_, SearchKind::kError, "OSError: gone");
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(transaction.Commit().ok());
  absl::StatusOr<SqliteStatement> row = db_->Prepare(
      "SELECT count(*) FROM search_texts x JOIN search_errors f ON f.rowid = x.id WHERE x.id = ?");
  ASSERT_TRUE(row.ok());
  row->Bind(1, *id);
  ASSERT_TRUE(row->Step().value_or(false));
  EXPECT_EQ(row->Int(0), 1);
}

TEST_F(SearchTest, EachDistinctMessageIsStoredOnce) {
  absl::StatusOr<SqliteStatement> count = db_->Prepare(
      "SELECT count(*), count(DISTINCT error_text_id) FROM tasks WHERE session_id = ? AND "
      "error_text_id IS NOT NULL");
  ASSERT_TRUE(count.ok());
  count->Bind(1, made_session_);
  ASSERT_TRUE(count->Step().value_or(false));
  EXPECT_EQ(count->Int(0), 30);
  EXPECT_EQ(count->Int(1), 29);  // tasks 5 and 7 share one
}

// An index of version 4 (before the search) has no texts to search: it is
// rebuilt from the store, and what is written then is found.
TEST_F(SearchTest, AnIndexOfVersionFourIsRebuiltWithTheSearch) {
  writer_.reset();
  ASSERT_TRUE(db_->Exec("DROP INDEX tasks_by_error_text; DROP INDEX tasks_superseded; "
                        "DROP TABLE search_texts; "
                        "DROP TABLE search_names; DROP TABLE search_errors; "
                        "ALTER TABLE tasks DROP COLUMN error_text_id; PRAGMA user_version=4")
                  .ok());
  db_.reset();
  absl::StatusOr<OpenedIndex> reopened = OpenIndexForWriting(dir_.path(), 1 << 20);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_TRUE(reopened->rebuilt);
  EXPECT_EQ(reopened->found_version, 4);
  db_ = std::move(reopened->db);
  writer_ = std::make_unique<IndexWriter>(*db_);
  FoldedSession again;
  TaskRecord task = tasks_[2];
  task.error.Offer(9, TaskError{10, "MemoryError: after the rebuild"});
  again.tasks[{task.task_id, 0}] = task;
  const int64_t session = Write("session_again", std::move(again));
  EXPECT_EQ(FindAll(session, "after the rebuild"), std::set<std::string>{task.task_id + "/0"});
}

TEST(MatchOffsetsTest, Utf16OffsetsOfEveryOccurrenceWithoutCase) {
  absl::StatusOr<SearchQuery> query = ParseSearch("ärger");
  ASSERT_TRUE(query.ok());
  // "😀" is two UTF-16 units, "é" one.
  const std::string field = "😀 Ärger é ÄRGER, ärgerärger";
  const std::vector<MatchRange> want = {{3, 8}, {11, 16}, {18, 23}, {23, 28}};
  EXPECT_EQ(MatchOffsets(field, *query), want);
  absl::StatusOr<SearchQuery> ascii = ParseSearch("aaa");
  ASSERT_TRUE(ascii.ok());
  EXPECT_EQ(MatchOffsets("aaaaaaa", *ascii), (std::vector<MatchRange>{{0, 3}, {3, 6}}));
  EXPECT_EQ(MatchOffsets(std::string(10'000, 'a'), *ascii).size(), kMaxMatchOffsets);
  EXPECT_TRUE(MatchOffsets("no match here", *ascii).empty());
  absl::StatusOr<SearchQuery> greek = ParseSearch("ΣΟΦ");
  ASSERT_TRUE(greek.ok());
  EXPECT_EQ(MatchOffsets("σοφία", *greek), (std::vector<MatchRange>{{0, 3}}));
  // Invalid UTF-8 in a field counts one unit per bad byte.
  absl::StatusOr<SearchQuery> abc = ParseSearch("abc");
  ASSERT_TRUE(abc.ok());
  EXPECT_EQ(MatchOffsets("\xff\xfe"
                         "ABC",
                         *abc),
            (std::vector<MatchRange>{{2, 5}}));
}

TEST(MatchOffsetsTest, IdPrefixes) {
  absl::StatusOr<SearchQuery> query = ParseSearch("ABC1");
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->hex, "abc1");
  EXPECT_EQ(IdPrefixMatch("abc1ff", *query), (std::vector<MatchRange>{{0, 4}}));
  EXPECT_TRUE(IdPrefixMatch("0abc1f", *query).empty());
  EXPECT_TRUE(IdPrefixMatch("abc", *query).empty());
  absl::StatusOr<SearchQuery> words = ParseSearch("abc xyz");
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(words->hex, "");
}

}  // namespace
}  // namespace rayagg::history
