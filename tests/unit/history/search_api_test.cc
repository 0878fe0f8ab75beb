// The search through the API (`q=` on the task list, its count route and
// the task detail) over a real index: every page of every sort, in each of
// the search clause's forms and both units, holds exactly the tasks a plain
// scan of the records finds; the count route agrees with the pages; the
// highlights point at the query in what the row shows.
#include <gtest/gtest.h>

#include "history/api/queries.h"
#include "unit/history/search_session.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

class SearchApiTest : public SearchTest {
 protected:
  static QueryParams Params(std::vector<std::pair<std::string, std::string>> items) {
    QueryParams params;
    for (auto& [key, value] : items) params.Set(key, std::move(value));
    return params;
  }

  // Every row of every page ("<task id>/<attempt>"), in order.
  std::vector<std::string> AllPages(const QueryLimits& limits, QueryParams params) {
    HistoryQueries queries(*db_, limits);
    params.Set("limit", "7");
    std::vector<std::string> rows;
    for (int page = 0; page < 1000; ++page) {
      absl::StatusOr<json> answer = queries.Tasks(params);
      EXPECT_TRUE(answer.ok()) << answer.status();
      if (!answer.ok()) break;
      for (const json& task : (*answer)["tasks"]) {
        rows.push_back(
            strings::Cat(task["task_id"].get<std::string>(), "/", task["attempt"].get<int64_t>()));
      }
      if ((*answer)["next_cursor"].is_null()) break;
      params.Set("cursor", (*answer)["next_cursor"].get<std::string>());
    }
    return rows;
  }

  int64_t Count(const QueryLimits& limits, const QueryParams& params) {
    HistoryQueries queries(*db_, limits);
    absl::StatusOr<json> answer = queries.TaskCount(params);
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? (*answer)["total"].get<int64_t>() : -1;
  }

  // The scan's matches, in the tasks unit: only each task's latest attempt.
  std::set<std::string> LatestOnly(int64_t session, const std::set<std::string>& attempts) {
    std::map<std::string, int64_t> latest;
    for (const TaskRecord& task : expected_[session]) {
      latest[task.task_id] = std::max(latest[task.task_id], int64_t{task.attempt});
    }
    std::set<std::string> out;
    for (const std::string& row : attempts) {
      const std::string id = row.substr(0, row.find('/'));
      if (row == strings::Cat(id, "/", latest[id])) out.insert(row);
    }
    return out;
  }

  json First(const std::string& q, std::string sort = "start_time") {
    HistoryQueries queries(*db_, QueryLimits{});
    absl::StatusOr<json> answer = queries.Tasks(Params(
        {{"session", session_names_[made_session_]}, {"q", q}, {"sort", sort}, {"limit", "100"}}));
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? *answer : json();
  }
};

std::set<std::string> AsSet(const std::vector<std::string>& rows) {
  return {rows.begin(), rows.end()};
}

TEST_F(SearchApiTest, EveryPageOfEverySortHoldsExactlyTheMatches) {
  const std::string trace_piece = tasks_[11].error.value.message.substr(40, 12);
  for (const std::string& q : {std::string("train"), std::string("load_shard"), std::string("0a0b"),
                               std::string("KeyError"), trace_piece, std::string("\") OR 1=1 --"),
                               std::string("nothing like it")}) {
    absl::StatusOr<SearchQuery> query = ParseSearch(q);
    ASSERT_TRUE(query.ok());
    for (const auto& [session, records] : expected_) {
      const std::set<std::string> attempts = Scan(session, *query);
      for (const SearchLimits forms : {SearchLimits{}, SearchLimits{0, 0}, SearchLimits{0, 1}}) {
        QueryLimits limits;
        limits.search = forms;
        for (const std::string unit : {"attempts", "tasks"}) {
          const std::set<std::string> want =
              unit == "tasks" ? LatestOnly(session, attempts) : attempts;
          for (const auto& [sort, order] :
               std::vector<std::pair<std::string, std::string>>{{"start_time", "asc"},
                                                                {"total_duration", "desc"},
                                                                {"function", "asc"},
                                                                {"name", "desc"},
                                                                {"state", "asc"}}) {
            const QueryParams params = Params({{"session", session_names_[session]},
                                               {"q", q},
                                               {"unit", unit},
                                               {"sort", sort},
                                               {"order", order}});
            const std::vector<std::string> rows = AllPages(limits, params);
            EXPECT_EQ(rows.size(), AsSet(rows).size()) << q << " " << sort;
            EXPECT_EQ(AsSet(rows), want) << q << " " << unit << " " << sort << " "
                                         << forms.max_listed_tasks << "/" << forms.max_listed_texts;
          }
          EXPECT_EQ(Count(limits,
                          Params({{"session", session_names_[session]}, {"q", q}, {"unit", unit}})),
                    static_cast<int64_t>(want.size()))
              << q << " " << unit;
        }
      }
    }
  }
}

TEST_F(SearchApiTest, TheSearchCombinesWithFilters) {
  for (const std::string& q : {std::string("train"), std::string("KeyError")}) {
    for (const SearchLimits forms : {SearchLimits{}, SearchLimits{0, 0}}) {
      QueryLimits limits;
      limits.search = forms;
      for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
               {"state", "FAILED"}, {"job_id", "ff00ff00"}, {"outcome", "finally_failed"}}) {
        const QueryParams searched =
            Params({{"session", session_names_[made_session_]}, {"q", q}, {key, value}});
        const std::set<std::string> both = AsSet(AllPages(limits, searched));
        const std::set<std::string> only_q =
            AsSet(AllPages(limits, Params({{"session", session_names_[made_session_]}, {"q", q}})));
        const std::set<std::string> only_filter = AsSet(
            AllPages(limits, Params({{"session", session_names_[made_session_]}, {key, value}})));
        std::set<std::string> want;
        for (const std::string& row : only_q) {
          if (only_filter.contains(row)) want.insert(row);
        }
        EXPECT_FALSE(want.empty()) << q << " " << key;
        EXPECT_EQ(both, want) << q << " " << key;
        EXPECT_EQ(Count(limits, searched), static_cast<int64_t>(want.size())) << q << " " << key;
        EXPECT_EQ(Count(limits, Params({{"session", session_names_[made_session_]}, {key, value}})),
                  static_cast<int64_t>(only_filter.size()))
            << key;
      }
    }
  }
  // Without a search or a filter, the count is the session's.
  EXPECT_EQ(Count({}, Params({{"session", session_names_[made_session_]}})), 60);
}

TEST_F(SearchApiTest, RowsSayWhereTheyMatched) {
  // "pipeline.Stage." is 15 characters.
  json answer = First("LOAD_sh");
  ASSERT_EQ(answer["tasks"].size(), 20u);
  EXPECT_EQ(answer["q"], "LOAD_sh");
  for (const json& task : answer["tasks"]) {
    EXPECT_EQ(task["matches"], json({{"function", {{15, 22}}}})) << task.dump();
  }
  // UTF-16 offsets: "Nightly Ärger-" is 14 code units, the emoji 2.
  answer = First("job \xf0\x9f\x98\x80");
  ASSERT_EQ(answer["tasks"].size(), 15u);
  EXPECT_EQ(answer["tasks"][0]["matches"], json({{"name", {{14, 20}}}}));
  // An id prefix.
  answer = First(tasks_[1].task_id.substr(0, 9));
  ASSERT_EQ(answer["tasks"].size(), 1u);
  EXPECT_EQ(answer["tasks"][0]["matches"], json({{"task_id", {{0, 9}}}}));
  // The stack trace: the line that holds the match, its number, the match in it.
  answer = First("1=1 --");
  ASSERT_EQ(answer["tasks"].size(), 1u);
  const json& excerpt = answer["tasks"][0]["matches"]["error_message"];
  EXPECT_EQ(excerpt["excerpt"], kHostileMessage);
  const std::string& message = tasks_[3].error.value.message;
  EXPECT_EQ(excerpt["line"], 1 + std::count(message.begin(), message.end(), '\n'));
  const size_t at = std::string(kHostileMessage).find("1=1 --");
  EXPECT_EQ(excerpt["matches"], json({{at, at + 6}}));
  EXPECT_FALSE(excerpt["cut_before"].get<bool>());
  EXPECT_FALSE(excerpt["cut_after"].get<bool>());
}

TEST_F(SearchApiTest, TheDetailHighlightsTheWholeMessage) {
  HistoryQueries queries(*db_, QueryLimits{});
  const TaskRecord& task = tasks_[5];
  const std::string frame = "File \"/srv/app/";
  absl::StatusOr<json> detail = queries.Task(Params({{"session", session_names_[made_session_]},
                                                     {"task_id", task.task_id},
                                                     {"q", "file \"/SRV"}}));
  ASSERT_TRUE(detail.ok()) << detail.status();
  const json& ranges = (*detail)["matches"]["error_message"];
  const std::string& message = task.error.value.message;
  size_t frames = 0;
  for (size_t at = message.find(frame); at != std::string::npos; at = message.find(frame, at + 1)) {
    ++frames;
  }
  ASSERT_EQ(ranges.size(), frames);
  for (const json& range : ranges) {
    // The trace is ASCII: UTF-16 offsets are byte offsets.
    EXPECT_EQ(message.substr(range[0].get<size_t>(), 10), "File \"/srv");
  }
  EXPECT_FALSE((*detail)["matches"].contains("function"));
}

TEST_F(SearchApiTest, BadSearchesAreRefusedNamingQ) {
  HistoryQueries queries(*db_, QueryLimits{});
  for (const std::string& q : {std::string("ab"), std::string(" x "), std::string("a\0b", 3),
                               std::string(kMaxSearchBytes + 1, 'y')}) {
    for (auto route : {&HistoryQueries::Tasks, &HistoryQueries::TaskCount}) {
      absl::StatusOr<json> answer =
          (queries.*route)(Params({{"session", session_names_[made_session_]}, {"q", q}}));
      ASSERT_FALSE(answer.ok());
      EXPECT_EQ(answer.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(answer.status().message().substr(0, 3), "q: ");
    }
  }
  // The count route takes the list's filters, not its paging.
  absl::StatusOr<json> paged =
      queries.TaskCount(Params({{"session", session_names_[made_session_]}, {"limit", "5"}}));
  ASSERT_FALSE(paged.ok());
  EXPECT_EQ(paged.status().code(), absl::StatusCode::kInvalidArgument);
  // A megabyte of text is a 400, never a scan.
  absl::StatusOr<json> huge = queries.Tasks(
      Params({{"session", session_names_[made_session_]}, {"q", std::string(1 << 20, '%')}}));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kInvalidArgument);
}

// An index of version 5 is migrated in place: its rows stay, and it gains
// the superseded attempts' index that counts in the tasks unit subtract.
TEST_F(SearchApiTest, AnIndexOfVersionFiveIsMigratedInPlace) {
  writer_.reset();
  ASSERT_TRUE(db_->Exec("DROP INDEX tasks_superseded; PRAGMA user_version=5").ok());
  db_.reset();
  absl::StatusOr<OpenedIndex> reopened = OpenIndexForWriting(dir_.path(), 1 << 20);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_FALSE(reopened->rebuilt);
  EXPECT_EQ(reopened->found_version, 5);
  db_ = std::move(reopened->db);
  for (const auto& [session, records] : expected_) {
    absl::StatusOr<SearchQuery> train = ParseSearch("train");
    ASSERT_TRUE(train.ok());
    for (const SearchLimits forms : {SearchLimits{}, SearchLimits{0, 0}}) {
      QueryLimits limits;
      limits.search = forms;
      EXPECT_EQ(Count(limits, Params({{"session", session_names_[session]}, {"q", "train"}})),
                static_cast<int64_t>(LatestOnly(session, Scan(session, *train)).size()));
    }
  }
}

TEST(MessageExcerptTest, ALongLineIsCutAroundItsMatch) {
  absl::StatusOr<SearchQuery> query = ParseSearch("needle");
  ASSERT_TRUE(query.ok());
  std::string line(1000, 'x');
  line.replace(600, 6, "NEEDLE");
  const std::string message = "first line\nsecond\n" + line + "\nlast";
  std::optional<MessageExcerpt> excerpt = ExcerptOfMatch(message, *query);
  ASSERT_TRUE(excerpt.has_value());
  EXPECT_EQ(excerpt->line, 3);
  EXPECT_LE(excerpt->text.size(), kMaxExcerptBytes);
  EXPECT_TRUE(excerpt->cut_before);
  EXPECT_TRUE(excerpt->cut_after);
  ASSERT_EQ(excerpt->matches.size(), 1u);
  EXPECT_EQ(excerpt->text.substr(excerpt->matches[0].start, 6), "NEEDLE");
  EXPECT_FALSE(ExcerptOfMatch("no such text", *query).has_value());
  // Multi-byte characters are never cut in half.
  std::string wide;
  for (int i = 0; i < 400; ++i) wide += "\xc3\xa4";
  wide += "needle";
  excerpt = ExcerptOfMatch(wide, *query);
  ASSERT_TRUE(excerpt.has_value());
  EXPECT_EQ(static_cast<unsigned char>(excerpt->text[0]), 0xc3);
  EXPECT_TRUE(excerpt->text.ends_with("needle"));
  ASSERT_EQ(excerpt->matches.size(), 1u);
  EXPECT_EQ(excerpt->matches[0].end - excerpt->matches[0].start, 6u);
}

}  // namespace
}  // namespace rayagg::history
