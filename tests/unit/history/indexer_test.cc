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
#include "history/index/session_removal.h"
#include "history/index/store_adapter.h"
#include "http/gzip.h"
#include "objstore/blocking_object_store.h"
#include "objstore/dir_object_store.h"
#include "rayagg/event_json_encoder.h"
#include "support/temp_dir.h"
#include "unit/history/directory_store_reader.h"
#include "unit/history/random_session.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

constexpr char kNodeA[] = "aa00000000000000000000000000000000000000000000000000000a";
constexpr char kNodeB[] = "bb00000000000000000000000000000000000000000000000000000b";

// The directory store with failures put in: reads of chosen keys fail with
// a chosen status, or every call fails (the store is down).
class FaultyStore final : public StoreReader {
 public:
  explicit FaultyStore(StoreReader& inner) : inner_(inner) {}
  absl::StatusOr<StoreListPage> List(const StoreListRequest& request) override {
    if (down) return absl::UnavailableError("store down");
    return inner_.List(request);
  }
  absl::StatusOr<StoreBlob> Get(const std::string& key, uint64_t max_bytes) override {
    ++gets;
    if (down) return absl::UnavailableError("store down");
    if (auto it = failing.find(key); it != failing.end()) return it->second;
    return inner_.Get(key, max_bytes);
  }
  std::string Describe() const override { return "faulty " + inner_.Describe(); }

  bool down = false;
  std::map<std::string, absl::Status> failing;
  uint64_t gets = 0;

 private:
  StoreReader& inner_;
};

class IndexerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(store_dir_.path().string() + "/bucket");
    root_ = store_dir_.path().string() + "/bucket";
    reader_ = std::make_unique<testing::DirectoryStoreReader>(root_);
    faulty_ = std::make_unique<FaultyStore>(*reader_);
    options_.session_idle = std::chrono::minutes(60);
    options_.retention = std::chrono::hours(24);
    options_.presence_check_interval = std::chrono::minutes(10);
    options_.discovery_interval = std::chrono::milliseconds(0);
    options_.batch_max_bytes = 1 << 20;  // several batches per session
    Open();
  }

  // A restart: a new connection, indexer and metrics on the same index.
  void Open() {
    indexer_.reset();
    db_.reset();
    absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(index_dir_.path().string(), 8 << 20);
    ASSERT_TRUE(index.ok()) << index.status();
    db_ = std::move(index->db);
    metrics_ = std::make_unique<HistoryMetrics>();
    indexer_ = std::make_unique<Indexer>(
        *db_, index_dir_.path().string(), *faulty_, options_, *metrics_,
        std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()),
        [this] { return now_ms_; });
  }

  // One column of the sessions row of `name`.
  std::string SessionColumn(const std::string& name, const std::string& column) {
    absl::StatusOr<SqliteStatement> select =
        db_->Prepare("SELECT " + column + " FROM sessions WHERE name = ?");
    EXPECT_TRUE(select.ok()) << select.status();
    if (!select.ok()) return "";
    select->BindText(1, name);
    absl::StatusOr<bool> row = select->Step();
    EXPECT_TRUE(row.ok() && *row) << name;
    return row.ok() && *row ? std::string(select->Text(0)) : "";
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
  IndexerOptions options_;
  std::unique_ptr<SqliteDb> db_;
  std::unique_ptr<StoreReader> reader_;
  std::unique_ptr<FaultyStore> faulty_;
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

  json counts = Query("/c?unit=attempts", &HistoryQueries::Counts);
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
  EXPECT_EQ(Query("/c?unit=attempts", &HistoryQueries::Counts), counts);
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
  EXPECT_EQ(Query("/c?unit=attempts", &HistoryQueries::Counts)["total"], expected.tasks.size());
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
  EXPECT_EQ(Query("/c?unit=attempts", &HistoryQueries::Counts)["total"], expected.tasks.size());
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
  const json removed = Query("/s", &HistoryQueries::Sessions)["sessions"];
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0]["status"], "removed");
  EXPECT_EQ(removed[0]["removed"]["reason"], "gone");
  EXPECT_EQ(removed[0]["removed"]["time_ms"], now_ms_);
  EXPECT_EQ(removed[0]["tasks"]["total"], 0);
  EXPECT_EQ(metrics_->sessions_dropped.load(), 1u);
  EXPECT_EQ(SessionColumn(name, "removed_reason"), "gone");
  EXPECT_EQ(SessionColumn(name, "removed_ms"), std::to_string(now_ms_));
}

// Three objects of one prefix; the second one's reads fail.
struct ThreeObjects {
  std::string name = "session_2026-06-01_14-00-00_000000_1";
  std::string keys[3];
  FoldedSession first_and_last;  // what the index holds once the second is passed
};

ThreeObjects PutThreeObjects(
    const std::function<void(const std::string&, const std::string&)>& put,
    const std::function<std::string(const std::vector<RayEvent>&)>& jsonl) {
  ThreeObjects out;
  const std::string prefix = "cluster-history/raycluster/default/demo/" + out.name + "/" +
                             std::string(kNodeA) + "/node_events/" + std::string(kNodeA);
  const Session session = RandomSession(6);
  const auto& events = session.events;
  const size_t third = events.size() / 3;
  const std::vector<RayEvent> parts[3] = {{events.begin(), events.begin() + third},
                                          {events.begin() + third, events.begin() + 2 * third},
                                          {events.begin() + 2 * third, events.end()}};
  for (int i = 0; i < 3; ++i) {
    out.keys[i] = prefix + "-2026-06-01-14-" + std::to_string(i + 1) + ".jsonl";
    put(out.keys[i], jsonl(parts[i]));
  }
  for (const RayEvent& event : parts[0]) FoldEvent(event, out.first_and_last);
  for (const RayEvent& event : parts[2]) FoldEvent(event, out.first_and_last);
  return out;
}

TEST_F(IndexerTest, AnObjectThatKeepsFailingIsRecordedAsBadAndPassed) {
  options_.max_object_attempts = 3;
  Open();
  const ThreeObjects objects =
      PutThreeObjects([this](const std::string& k, const std::string& b) { Put(k, b); },
                      [](const std::vector<RayEvent>& events) { return Jsonl(events, false); });
  faulty_->failing[objects.keys[1]] = absl::UnavailableError("slow down");
  // Failed passes: the prefix waits at the object; the pass is no failure.
  for (int pass = 0; pass < 2; ++pass) {
    ASSERT_TRUE(indexer_->RunOnce().ok());
    EXPECT_TRUE(indexer_->LastPassSucceeded());
  }
  EXPECT_EQ(metrics_->objects_indexed.load(), 1u);
  EXPECT_EQ(metrics_->objects_pending.load(), 2u);
  EXPECT_EQ(metrics_->bad_objects.load(), 0u);
  EXPECT_EQ(SessionColumn(objects.name, "retrying_objects"), "{\"" + objects.keys[1] + "\":2}");
  // The count survives a restart: the third failed pass passes the object
  // (the only read of that pass; the object after it shows the store serves).
  Open();
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_abandoned[static_cast<size_t>(AbandonReason::kAttempts)].load(), 1u);
  EXPECT_EQ(metrics_->bad_objects.load(), 1u);
  EXPECT_EQ(SessionColumn(objects.name, "bad_objects"), "1");
  EXPECT_EQ(SessionColumn(objects.name, "retrying_objects"), "");
  absl::StatusOr<SqliteStatement> error = db_->Prepare("SELECT error FROM objects WHERE key = ?");
  ASSERT_TRUE(error.ok());
  error->BindText(1, objects.keys[1]);
  ASSERT_TRUE(*error->Step());
  EXPECT_EQ(error->Text(0), "could not be read in 3 passes: slow down");
  // The next pass reads what came after it; nothing is left pending.
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_indexed.load(), 1u);
  EXPECT_EQ(metrics_->objects_pending.load(), 0u);
  EXPECT_EQ(Query("/c?unit=attempts", &HistoryQueries::Counts)["total"],
            objects.first_and_last.tasks.size());
  // It stays passed: a later pass reads nothing again.
  faulty_->failing.clear();
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_indexed.load(), 1u);
}

TEST_F(IndexerTest, ReadsThatFailEverywhereAreTheStoresAndADenialAmongGoodReadsIsTheObjects) {
  options_.max_object_attempts = 2;
  Open();
  const ThreeObjects objects =
      PutThreeObjects([this](const std::string& k, const std::string& b) { Put(k, b); },
                      [](const std::vector<RayEvent>& events) { return Jsonl(events, false); });
  // Every read denied (credentials without GetObject): no object is marked
  // bad however many passes, and the passes fail.
  for (const std::string& key : objects.keys) {
    faulty_->failing[key] = absl::PermissionDeniedError("access denied");
  }
  for (int pass = 0; pass < 4; ++pass) {
    EXPECT_EQ(indexer_->RunOnce().code(), absl::StatusCode::kUnavailable);
    EXPECT_FALSE(indexer_->LastPassSucceeded());
  }
  EXPECT_EQ(metrics_->bad_objects.load(), 0u);
  EXPECT_EQ(metrics_->passes_failed.load(), 4u);
  EXPECT_EQ(metrics_->objects_pending.load(), 3u);
  EXPECT_EQ(metrics_->last_pass_success_ms.load(), 0);
  EXPECT_NE(RenderHistoryMetrics(*metrics_, true, now_ms_).find("\nrayhist_ready 0\n"),
            std::string::npos);
  EXPECT_EQ(SessionColumn(objects.name, "retrying_objects"), "");
  // The store serves the others again: the denied one is passed at once.
  faulty_->failing.erase(objects.keys[0]);
  faulty_->failing.erase(objects.keys[2]);
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_TRUE(indexer_->LastPassSucceeded());
  EXPECT_EQ(
      metrics_->objects_abandoned[static_cast<size_t>(AbandonReason::kPermissionDenied)].load(),
      1u);
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(metrics_->objects_indexed.load(), 2u);
  EXPECT_EQ(metrics_->last_pass_success_ms.load(), now_ms_);
  EXPECT_NE(RenderHistoryMetrics(*metrics_, true, now_ms_).find("\nrayhist_ready 1\n"),
            std::string::npos);
  EXPECT_EQ(Query("/c?unit=attempts", &HistoryQueries::Counts)["total"],
            objects.first_and_last.tasks.size());
}

TEST_F(IndexerTest, AFailedPassStillSetsTheGauges) {
  const ThreeObjects objects =
      PutThreeObjects([this](const std::string& k, const std::string& b) { Put(k, b); },
                      [](const std::vector<RayEvent>& events) { return Jsonl(events, false); });
  ASSERT_TRUE(indexer_->RunOnce().ok());
  Open();  // fresh metrics
  faulty_->down = true;
  EXPECT_FALSE(indexer_->RunOnce().ok());
  EXPECT_FALSE(indexer_->LastPassSucceeded());
  EXPECT_EQ(metrics_->sessions.load(), 1u);
  EXPECT_GT(metrics_->index_bytes.load(), 0u);
  EXPECT_EQ(metrics_->caught_up_at_ms.load(), 0);
  EXPECT_EQ(metrics_->passes_failed.load(), 1u);
  faulty_->down = false;
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_TRUE(indexer_->LastPassSucceeded());
  EXPECT_EQ(metrics_->caught_up_at_ms.load(), now_ms_);
}

TEST_F(IndexerTest, ADirectoryThatCannotBeListedIsSkippedNotItsSession) {
  const std::string name = "session_2026-06-01_15-00-00_000000_1";
  const std::string session_prefix = "cluster-history/raycluster/default/demo/" + name + "/";
  const Session session = RandomSession(7);
  const std::string text = Jsonl(session.events, false);
  Put(session_prefix + kNodeA + "/node_events/" + kNodeA + "-2026-06-01-15-1.jsonl", text);
  // A node directory and a job directory with control characters in their
  // names: the real dir:// store refuses to list them.
  const std::string bad_node = "bad\x01node";
  Put(session_prefix + bad_node + "/node_events/" + bad_node + "-2026-06-01-15-1.jsonl", text);
  Put(session_prefix + kNodeA + "/job_events/01\x1b[31m/" + kNodeA + "-2026-06-01-15-2.jsonl",
      text);
  // A namespace directory, and a marker naming a namespace, likewise: not
  // the discovery, nor the pass, fails for them.
  Put("cluster-history/raycluster/bad\x02ns/demo/" + name + "/" + kNodeA + "/node_events/" +
          kNodeA + "-2026-06-01-15-1.jsonl",
      text);
  Put("cluster-metadata/raycluster/bad\x02ns_demo/" + name, "");
  absl::StatusOr<std::unique_ptr<BlockingObjectStore>> store =
      BlockingObjectStore::Make([&](asio::any_io_executor executor) {
        return absl::StatusOr<std::unique_ptr<ObjectStore>>(
            std::make_unique<DirObjectStore>(std::move(executor), root_));
      });
  ASSERT_TRUE(store.ok()) << store.status();
  ObjectStoreReader dir_store(*std::move(store));
  Indexer indexer(
      *db_, index_dir_.path().string(), dir_store, options_, *metrics_,
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()),
      [this] { return now_ms_; });
  ASSERT_TRUE(indexer.RunOnce().ok());
  EXPECT_TRUE(indexer.LastPassSucceeded());
  EXPECT_EQ(metrics_->objects_indexed.load(), 1u);
  EXPECT_EQ(metrics_->prefixes_skipped.load(), 5u);
  EXPECT_EQ(metrics_->sessions.load(), 2u);  // the marker's, which cannot be read
  absl::StatusOr<SqliteStatement> skipped = db_->Prepare(
      "SELECT skipped_prefixes FROM sessions WHERE cluster = 'raycluster/default/demo'");
  ASSERT_TRUE(skipped.ok());
  ASSERT_TRUE(*skipped->Step());
  EXPECT_EQ(skipped->Int(0), 3);
  FoldedSession expected;
  for (const RayEvent& event : session.events) FoldEvent(event, expected);
  EXPECT_EQ(Query("/c?unit=attempts", &HistoryQueries::Counts)["total"], expected.tasks.size());
  // Skipped again next pass, and counted again; nothing else changes.
  ASSERT_TRUE(indexer.RunOnce().ok());
  EXPECT_TRUE(indexer.LastPassSucceeded());
  EXPECT_EQ(metrics_->prefixes_skipped.load(), 10u);
  EXPECT_EQ(metrics_->objects_indexed.load(), 1u);
}

TEST_F(IndexerTest, RetentionCountsFromTheLastIndexingOrEventAndTheRemovalSaysWhy) {
  // An archive whose events are 10 days older than the retention (24 h):
  // indexed today, it is kept for a retention from today.
  now_ms_ += 10LL * 24 * 3600 * 1000;
  const ThreeObjects objects =
      PutThreeObjects([this](const std::string& k, const std::string& b) { Put(k, b); },
                      [](const std::vector<RayEvent>& events) { return Jsonl(events, false); });
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(Query("/s", &HistoryQueries::Sessions)["sessions"].size(), 1u);
  now_ms_ += 23 * 3600 * 1000LL;
  ASSERT_TRUE(indexer_->RunOnce().ok());
  EXPECT_EQ(Query("/s", &HistoryQueries::Sessions)["sessions"].size(), 1u);
  now_ms_ += 2 * 3600 * 1000LL;
  ASSERT_TRUE(indexer_->RunOnce().ok());
  // Still listed, as removed, with why and when.
  const json listed = Query("/s", &HistoryQueries::Sessions)["sessions"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["status"], "removed");
  EXPECT_EQ(
      listed[0]["removed"],
      json({{"reason", "retention"}, {"time_ms", now_ms_}, {"detail", "index.retention is 24h"}}));
  EXPECT_EQ(metrics_->sessions_dropped.load(), 1u);
  EXPECT_EQ(SessionColumn(objects.name, "status"), "evicted");
  EXPECT_EQ(SessionColumn(objects.name, "removed_reason"), "retention");
  EXPECT_EQ(SessionColumn(objects.name, "removed_ms"), std::to_string(now_ms_));
  EXPECT_EQ(SessionColumn(objects.name, "removed_detail"), "index.retention is 24h");
  // What the API's 404 can say, by either form of the session's name.
  for (const std::string& selector : {"raycluster/default/demo/" + objects.name, objects.name}) {
    absl::StatusOr<std::optional<SessionRemoval>> removal = FindRemoval(*db_, selector);
    ASSERT_TRUE(removal.ok() && removal->has_value()) << selector;
    EXPECT_EQ(DescribeRemoval(selector, **removal),
              "session " + selector +
                  " was removed from the index by retention at 2023-11-25T23:13:30Z: "
                  "index.retention is 24h");
  }
  // The API's 404 for it.
  HistoryQueries queries(*db_, {});
  absl::StatusOr<json> answer =
      queries.Counts(*QueryParams::FromTarget("/c?session=" + objects.name));
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(answer.status().message(),
            "session " + objects.name +
                " was removed from the index by retention at 2023-11-25T23:13:30Z: "
                "index.retention is 24h");
  absl::StatusOr<std::optional<SessionRemoval>> none = FindRemoval(*db_, "session_none");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST_F(IndexerTest, RetentionZeroKeepsEverySession) {
  options_.retention = std::chrono::milliseconds(0);
  Open();
  const ThreeObjects objects =
      PutThreeObjects([this](const std::string& k, const std::string& b) { Put(k, b); },
                      [](const std::vector<RayEvent>& events) { return Jsonl(events, false); });
  ASSERT_TRUE(indexer_->RunOnce().ok());
  // Its objects disappear, and ten years pass.
  std::filesystem::remove_all(root_ + "/cluster-history");
  now_ms_ += 61 * 60 * 1000;
  ASSERT_TRUE(indexer_->RunOnce().ok());  // idle
  now_ms_ += 11 * 60 * 1000;
  ASSERT_TRUE(indexer_->RunOnce().ok());  // presence check
  now_ms_ += 3650LL * 24 * 3600 * 1000;
  ASSERT_TRUE(indexer_->RunOnce().ok());
  const json sessions = Query("/s", &HistoryQueries::Sessions)["sessions"];
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0]["status"], "gone");
  EXPECT_EQ(metrics_->sessions_dropped.load(), 0u);
}

TEST_F(IndexerTest, AboveMaxBytesTheOldestSessionIsRemovedAndSaysSo) {
  options_.max_index_bytes = 1;  // every session is too many but the last
  Open();
  for (int i = 1; i <= 2; ++i) {
    const std::string prefix = "cluster-history/raycluster/default/demo/session_2026-06-01_1" +
                               std::to_string(i) + "-00-00_000000_1/" + kNodeA + "/node_events/" +
                               kNodeA;
    Put(prefix + "-2026-06-01-16-1.jsonl", Jsonl(RandomSession(i).events, false));
  }
  ASSERT_TRUE(indexer_->RunOnce().ok());
  const json sessions = Query("/s", &HistoryQueries::Sessions)["sessions"];
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0]["status"] == "removed", sessions[1]["status"] != "removed");
  absl::StatusOr<SqliteStatement> removed =
      db_->Prepare("SELECT removed_reason, removed_detail FROM sessions WHERE status = 'evicted'");
  ASSERT_TRUE(removed.ok());
  ASSERT_TRUE(*removed->Step());
  EXPECT_EQ(removed->Text(0), "max_bytes");
  EXPECT_EQ(removed->Text(1).substr(0, 38), "index.max_bytes is 1 bytes and the ind");
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
