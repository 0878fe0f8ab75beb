// The indexer against a directory of objects: objects in the
// KubeRay layout as our sink writes them and as KubeRay's own collector
// writes them (no marker, uncompressed JSONL with re-ordered keys, legacy
// JSON arrays, legacy names), read incrementally from the last indexed key,
// restartable, idempotent, with idle and gone sessions, retention, and
// damaged objects skipped and counted. Time is a manual clock.
#include "history/index/indexer.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "history/api/queries.h"
#include "history/index/index_schema.h"
#include "http/gzip.h"
#include "rayagg/event_json_encoder.h"
#include "support/temp_dir.h"
#include "unit/history/directory_store_reader.h"
#include "unit/history/random_session.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

constexpr char kNodeA[] = "aa00000000000000000000000000000000000000000000000000000a";
constexpr char kNodeB[] = "bb00000000000000000000000000000000000000000000000000000b";

class IndexerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(store_dir_.path().string() + "/bucket");
    root_ = store_dir_.path().string() + "/bucket";
    Open();
  }

  void Open() {
    indexer_.reset();
    db_.reset();
    absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(index_dir_.path().string(), 8 << 20);
    ASSERT_TRUE(index.ok()) << index.status();
    db_ = std::move(index->db);
    reader_ = std::make_unique<testing::DirectoryStoreReader>(root_);
    metrics_ = std::make_unique<HistoryMetrics>();
    IndexerOptions options;
    options.session_idle = std::chrono::minutes(60);
    options.retention = std::chrono::hours(24);
    options.presence_check_interval = std::chrono::minutes(10);
    options.discovery_interval = std::chrono::milliseconds(0);
    options.batch_max_bytes = 1 << 20;  // several batches per session
    indexer_ = std::make_unique<Indexer>(
        *db_, index_dir_.path().string(), *reader_, options, *metrics_,
        std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()),
        [this] { return now_ms_; });
  }

  void Put(const std::string& key, const std::string& body) {
    const std::filesystem::path path = std::filesystem::path(root_) / key;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary)
        .write(body.data(), static_cast<std::streamsize>(body.size()));
  }

  static std::string Jsonl(const std::vector<RayEvent>& events, bool reorder_keys) {
    std::unique_ptr<EventJsonEncoder> encoder = MakeFastJsonEncoder({});
    std::string out;
    for (const RayEvent& event : events) {
      std::string one;
      EXPECT_TRUE(encoder->AppendEvent(event.SerializeAsString(), one).ok());
      if (reorder_keys) one = json::parse(one).dump();  // std::map: alphabetical keys
      out += one + "\n";
    }
    return out;
  }

  json Query(std::string_view target,
             absl::StatusOr<json> (HistoryQueries::*query)(const QueryParams&)) {
    HistoryQueries queries(*db_, {});
    absl::StatusOr<json> answer = (queries.*query)(*QueryParams::FromTarget(target));
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? *answer : json();
  }

  rayagg::test::TempDir store_dir_, index_dir_;
  std::string root_;
  std::unique_ptr<SqliteDb> db_;
  std::unique_ptr<StoreReader> reader_;
  std::unique_ptr<HistoryMetrics> metrics_;
  std::unique_ptr<Indexer> indexer_;
  int64_t now_ms_ = 1'700'000'010'000;  // just after RandomSession's events
};

// Splits a session's events over two nodes' node_events and job_events
// prefixes, several objects each, in time order per prefix.
std::map<std::string, std::vector<RayEvent>> Spread(const std::vector<RayEvent>& events,
                                                    const std::string& session_prefix) {
  std::map<std::string, std::vector<RayEvent>> by_prefix;
  size_t i = 0;
  for (const RayEvent& event : events) {
    const std::string node = (i++ % 2 == 0) ? kNodeA : kNodeB;
    std::string category = "node_events/";
    if (event.has_task_definition_event()) category = "job_events/01000000/";
    if (event.has_task_lifecycle_event()) category = "job_events/02000000/";
    by_prefix[session_prefix + node + "/" + category].push_back(event);
  }
  return by_prefix;
}

TEST_F(IndexerTest, IndexesOurSinksObjectsIncrementallyAndResumesAfterRestart) {
  const Session session = RandomSession(5);
  FoldedSession expected;
  for (const RayEvent& event : session.events) FoldEvent(event, expected);
  const std::string name = "session_2026-06-01_10-00-00_000000_7";
  Put("cluster-metadata/raycluster/default_demo/" + name, "");
  const std::string prefix = "cluster-history/raycluster/default/demo/" + name + "/";
  const auto by_prefix = Spread(session.events, prefix);
  // First half of each prefix's objects now, the rest later.
  int64_t file = 0;
  std::vector<std::pair<std::string, std::string>> later;
  for (const auto& [p, events] : by_prefix) {
    const size_t half = events.size() / 2;
    auto key = [&](const std::string& node_prefix) {
      const std::string node = node_prefix.substr(prefix.size(), 56);
      return node_prefix + node + "-2026-06-01-10-" + std::to_string(1000 + file++) + ".jsonl.gz";
    };
    std::string gz;
    ASSERT_TRUE(GzipCompress(Jsonl({events.begin(), events.begin() + half}, false), gz).ok());
    Put(key(p), gz);
    ASSERT_TRUE(GzipCompress(Jsonl({events.begin() + half, events.end()}, false), gz).ok());
    later.emplace_back(key(p), gz);
  }
  ASSERT_TRUE(indexer_->RunOnce().ok());
  const uint64_t first_objects = metrics_->objects_indexed.load();
  EXPECT_EQ(first_objects, by_prefix.size());
  for (const auto& [key, body] : later) Put(key, body);
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_indexed.load(), 2 * by_prefix.size());

  json counts = Query("/c", &HistoryQueries::Counts);
  EXPECT_EQ(counts["total"], expected.tasks.size());
  json sessions = Query("/s", &HistoryQueries::Sessions);
  ASSERT_EQ(sessions["sessions"].size(), 1u);
  EXPECT_EQ(sessions["sessions"][0]["has_marker"], true);
  EXPECT_EQ(sessions["sessions"][0]["objects"], 2 * by_prefix.size());

  // A restart reads nothing again.
  Open();
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_indexed.load(), 0u);
  // Forgetting the positions re-reads every object, and changes nothing.
  ASSERT_TRUE(db_->Exec("DELETE FROM prefixes").ok());
  Open();
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_indexed.load(), 2 * by_prefix.size());
  EXPECT_EQ(Query("/c", &HistoryQueries::Counts), counts);
}

TEST_F(IndexerTest, ReadsWhatKubeRaysOwnCollectorWrote) {
  const Session session = RandomSession(9);
  FoldedSession expected;
  for (const RayEvent& event : session.events) FoldEvent(event, expected);
  // A RayJob's session without a marker: uncompressed JSONL with
  // alphabetical keys, a legacy JSON array with a legacy name, and a gzip
  // object named .gz.
  const std::string prefix =
      "cluster-history/rayjob/team-a/nightly/cluster-1/session_2026-06-01_11-00-00_000000_8/";
  const auto by_prefix = Spread(session.events, prefix);
  int n = 0;
  for (const auto& [p, events] : by_prefix) {
    const std::string node = p.substr(prefix.size(), 56);
    const std::string text = Jsonl(events, true);
    if (n % 3 == 0) {
      Put(p + node + "-2026-06-01-11-" + std::to_string(n) + ".jsonl", text);
    } else if (n % 3 == 1) {
      json array = json::array();
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) array.push_back(json::parse(line));
      Put(p + node + "-2026-06-01-11", array.dump());
    } else {
      std::string gz;
      ASSERT_TRUE(GzipCompress(text, gz).ok());
      Put(p + node + "-2026-06-01-11.gz", gz);
    }
    ++n;
  }
  // Not event files: logs and endpoint snapshots.
  Put(prefix + std::string(kNodeA) + "/logs/raylet.out", "log line\n");
  Put(prefix + "fetched_endpoints/restful__timezone", "{}");
  ASSERT_TRUE(indexer_->RunOnce().ok());
  json sessions = Query("/s", &HistoryQueries::Sessions);
  ASSERT_EQ(sessions["sessions"].size(), 1u);
  EXPECT_EQ(sessions["sessions"][0]["cluster"], "rayjob/team-a/nightly/cluster-1");
  EXPECT_EQ(sessions["sessions"][0]["has_marker"], false);
  EXPECT_EQ(sessions["sessions"][0]["bad_lines"], 0);
  EXPECT_EQ(Query("/c", &HistoryQueries::Counts)["total"], expected.tasks.size());
}

TEST_F(IndexerTest, DamagedObjectsAreSkippedAndCountedNotFatal) {
  const std::string prefix =
      "cluster-history/raycluster/default/demo/session_2026-06-01_12-00-00_000000_9/" +
      std::string(kNodeA) + "/node_events/";
  const Session session = RandomSession(3);
  const std::string text = Jsonl(session.events, false);
  std::string gz;
  ASSERT_TRUE(GzipCompress(text, gz).ok());
  Put(prefix + std::string(kNodeA) + "-2026-06-01-12-1.jsonl.gz", gz.substr(0, gz.size() / 2));
  Put(prefix + std::string(kNodeA) + "-2026-06-01-12-2.jsonl", "{not json\n\n[1]\n" + text);
  Put(prefix + std::string(kNodeA) + "-2026-06-01-12-3.jsonl.gz", "\x1f\x8bgarbage");
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_indexed.load(), 3u);
  EXPECT_EQ(metrics_->bad_objects.load(), 2u);
  EXPECT_EQ(metrics_->bad_lines.load(), 2u);
  FoldedSession expected;
  for (const RayEvent& event : session.events) FoldEvent(event, expected);
  EXPECT_EQ(Query("/c", &HistoryQueries::Counts)["total"], expected.tasks.size());
}

TEST_F(IndexerTest, IdleSessionsAreListedOnceMoreThenOnDemandAndGoneOnesExpire) {
  const std::string name = "session_2026-06-01_13-00-00_000000_1";
  const std::string prefix = "cluster-history/raycluster/default/demo/" + name + "/" +
                             std::string(kNodeA) + "/node_events/";
  const Session session = RandomSession(4);
  Put(prefix + std::string(kNodeA) + "-2026-06-01-13-1.jsonl", Jsonl(session.events, false));
  ASSERT_TRUE(indexer_->RunOnce().ok());
  now_ms_ += 61 * 60 * 1000;  // past session_idle
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(Query("/s", &HistoryQueries::Sessions)["sessions"][0]["status"], "idle");
  // Idle: a new object is not read until someone asks.
  Put(prefix + std::string(kNodeA) + "-2026-06-01-13-2.jsonl", Jsonl(session.events, false));
  const uint64_t indexed = metrics_->objects_indexed.load();
  ASSERT_TRUE(indexer_->RunOnce().ok());
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_indexed.load(), indexed);
  indexer_->Refresh("raycluster/default/demo", name);
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_indexed.load(), indexed + 1);
  EXPECT_EQ(Query("/s", &HistoryQueries::Sessions)["sessions"][0]["status"], "live");
  // The objects disappear: gone at the next presence check, dropped after
  // retention, and not indexed again.
  std::filesystem::remove_all(root_ + "/cluster-history");
  now_ms_ += 61 * 60 * 1000;
  ASSERT_TRUE(indexer_->RunOnce().ok());  // idle
  now_ms_ += 11 * 60 * 1000;
  ASSERT_TRUE(indexer_->RunOnce().ok());  // presence check
  EXPECT_EQ(Query("/s", &HistoryQueries::Sessions)["sessions"][0]["status"], "gone");
  now_ms_ += 25 * 3600 * 1000LL;
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_TRUE(Query("/s", &HistoryQueries::Sessions)["sessions"].empty());
  EXPECT_EQ(metrics_->sessions_dropped.load(), 1u);
}

TEST_F(IndexerTest, AnIndexFromANewerBinaryIsRefusedAndAnOlderOneRebuilt) {
  ASSERT_TRUE(db_->Exec("PRAGMA user_version=99").ok());
  indexer_.reset();
  db_.reset();
  absl::StatusOr<OpenedIndex> newer = OpenIndexForWriting(index_dir_.path().string(), 1 << 20);
  EXPECT_EQ(newer.status().code(), absl::StatusCode::kFailedPrecondition);
  {
    absl::StatusOr<std::unique_ptr<SqliteDb>> raw =
        SqliteDb::Open(IndexPath(index_dir_.path().string()), false);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE((*raw)->Exec("PRAGMA user_version=0").ok());  // tables, but no version: older
  }
  absl::StatusOr<OpenedIndex> older = OpenIndexForWriting(index_dir_.path().string(), 1 << 20);
  ASSERT_TRUE(older.ok()) << older.status();
  EXPECT_TRUE(older->rebuilt);
}

TEST(EventFileNames, TheReadersRule) {
  for (const char* good : {"abc-2026-06-01-10-123.jsonl.gz", "abc-2026-06-01-10.jsonl",
                           "abc-2026-06-01-10", "abc-2026-06-01-10.gz", "x-2026-06-01-10-1"}) {
    EXPECT_TRUE(IsEventFileName(good)) << good;
  }
  for (const char* bad : {"abc.jsonl", "abc-2026-06-01.jsonl", "abc-2026-06-01-10-x.jsonl",
                          "raylet.out", "abc-2026-06-01-10.json", "abc.rayagg-meta.json"}) {
    EXPECT_FALSE(IsEventFileName(bad)) << bad;
  }
}

}  // namespace
}  // namespace rayagg::history
