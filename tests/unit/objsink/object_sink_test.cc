// The object-store sink on a manual clock against the dir:// store: objects
// appear max_age after their first event, with the session marker and the
// manifest, decodable, and only then are their events released; failures
// are retried; nothing is written for an empty interval; draining uploads
// what is open, and at the deadline drops (and releases) what the store
// still refuses — or, with a disk spool, keeps it unreleased for the next
// run.
#include "objsink/object_sink.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <deque>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>

#include "buffer/event_log.h"
#include "objsink/writer_state.h"
#include "objstore/dir_object_store.h"
#include "spool/spool.h"
#include "support/condition_wait.h"
#include "support/gunzip.h"
#include "support/io_thread.h"
#include "support/manual_clock.h"
#include "support/object_events.h"
#include "support/simulated_file_system.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

using namespace std::chrono_literals;

// A dir:// store whose next Puts fail with scripted errors (or every Put,
// with FailAlways); the rest reach the directory.
class ScriptedStore final : public ObjectStore {
 public:
  ScriptedStore(asio::any_io_executor executor, std::string root)
      : store_(std::move(executor), std::move(root)) {}

  void FailNext(absl::Status status) {
    MutexLock lock(mutex_);
    failures_.push_back(std::move(status));
  }
  void FailAlways(absl::Status status) {
    MutexLock lock(mutex_);
    always_ = std::move(status);
  }

  asio::awaitable<absl::Status> Put(PutObjectRequest request) override {
    {
      MutexLock lock(mutex_);
      if (!always_.ok()) co_return always_;
      if (!failures_.empty()) {
        absl::Status failure = failures_.front();
        failures_.pop_front();
        co_return failure;
      }
    }
    co_return co_await store_.Put(std::move(request));
  }
  asio::awaitable<absl::StatusOr<StoredObject>> Get(GetObjectRequest request) override {
    co_return co_await store_.Get(std::move(request));
  }
  asio::awaitable<absl::StatusOr<ListObjectsPage>> List(ListObjectsRequest request) override {
    co_return co_await store_.List(std::move(request));
  }
  std::string Describe() const override { return store_.Describe(); }

 private:
  DirObjectStore store_;
  Mutex mutex_;
  std::deque<absl::Status> failures_ ABSL_GUARDED_BY(mutex_);
  absl::Status always_ ABSL_GUARDED_BY(mutex_);
};

// Hands the spool's reports to the log; nothing else is needed here.
class LogSpoolListener final : public spool::SpoolListener {
 public:
  explicit LogSpoolListener(EventLog& log) : log_(log) {}
  void OnDurable(uint64_t position) override { log_.OnDurable(position); }
  void OnEvict(const spool::SegmentInfo& segment) override { log_.OnSegmentEvicted(segment); }
  void OnHealthChanged(spool::SpoolHealth, const std::string&) override {}
  void OnProblem(const std::string&) override {}

 private:
  EventLog& log_;
};

const kuberay::ClusterIdentity kCluster{
    .kind = kuberay::ClusterKind::kRayCluster, .namespace_name = "ns", .name = "c"};

class ObjectSinkTest : public ::testing::Test {
 protected:
  ObjectSinkTest()
      : logger_("test", std::make_shared<spdlog::sinks::null_sink_mt>()),
        log_(EventLog::Limits{100000, 1 << 30}) {}

  ~ObjectSinkTest() override {
    if (sink_) {
      if (store_ != nullptr) store_->FailAlways(absl::OkStatus());
      sink_->Drain(clock_.Now());
      sink_->WaitFinished(60s);
    }
    if (spool_) spool_->Stop();  // its listener reports to log_
  }

  // Durable mode, before Start(): the log keeps its events as spool records
  // on a simulated disk, so the sink's reader keeps what is unsent across
  // restarts (EventReader::KeepsUnsentAcrossRestarts).
  void UseSpool() {
    auto opened = spool::Spool::Open(
        spool_fs_, clock_, spool::SpoolOptions{.directory = "/spool", .max_bytes = 1 << 30},
        "pid 1");
    ASSERT_TRUE(opened.ok()) << opened.status();
    spool_ = *std::move(opened);
    spool_->Recover(nullptr);
    log_.UseSpool(*spool_, spool_->first_sequence());
    spool_listener_ = std::make_unique<LogSpoolListener>(log_);
    spool_->StartManual(log_, *spool_listener_, 0);
  }

  static SinkConfig Config() {
    SinkConfig config;
    config.name = "objects";
    config.event_types = EventTypeFilter::All();
    config.retry.initial_backoff = 1s;
    config.retry.max_backoff = 30s;
    config.retry.jitter_ratio = 0.0;
    return config;
  }

  // `writer_state`: the writer state file, as the daemon passes it with a
  // spool ("" for a new writer per process).
  void Start(SinkConfig config = Config(), std::string writer_state = "") {
    auto strand = asio::make_strand(io_);
    auto store = std::make_unique<ScriptedStore>(strand, root_.path().string());
    store_ = store.get();
    sink_ = std::make_unique<ObjectSink>(strand, std::move(config), kCluster, log_,
                                         std::move(store), MakeFastJsonEncoder({}), logger_, clock_,
                                         std::move(writer_state));
    sink_->ReportSenderDrops(sender_drops_);
    sink_->Start();
    io_thread_.emplace(io_);
  }

  // After the sink finished: a new sink (a new process's) in its place, on
  // the same log and store; its cursor starts at the log's end.
  void Restart(SinkConfig config, std::string writer_state) {
    io_thread_.reset();
    io_.restart();
    io_.poll();  // handlers the old sink posted, while it still exists
    sink_.reset();
    store_ = nullptr;
    io_.restart();
    Start(std::move(config), std::move(writer_state));
  }

  void Append(int first, int count) {
    std::vector<std::string> payloads;
    std::vector<IncomingEvent> events;
    for (int i = first; i < first + count; ++i) {
      payloads.push_back(test::ObjectTestEvent(i).SerializeAsString());
    }
    for (const auto& payload : payloads) {
      events.push_back(IncomingEvent{payload, ray::rpc::events::RayEvent::TASK_DEFINITION_EVENT,
                                     HashEventId(payload), 0});
    }
    ASSERT_TRUE(log_.Append(events).ok());
  }

  // Keys under the root, sidecars and temporary files left out.
  std::vector<std::string> Keys() {
    absl::StatusOr<ListObjectsPage> page =
        DirObjectStore::ListBlocking(root_.path().string(), ListObjectsRequest{});
    std::vector<std::string> keys;
    if (!page.ok()) return keys;
    for (const ObjectInfo& object : page->objects) keys.push_back(object.key);
    return keys;
  }

  std::vector<std::string> EventObjectKeys() {
    std::vector<std::string> keys;
    for (const std::string& key : Keys()) {
      if (key.starts_with("cluster-history/")) keys.push_back(key);
    }
    return keys;
  }

  // The event ids in every event object, and the manifests' event counts.
  std::multiset<std::string> StoredEventIds() {
    std::multiset<std::string> ids;
    for (const std::string& key : EventObjectKeys()) {
      absl::StatusOr<StoredObject> object =
          DirObjectStore::GetBlocking(root_.path().string(), GetObjectRequest{.key = key});
      EXPECT_TRUE(object.ok()) << key;
      if (!object.ok()) continue;
      const std::string text = test::Gunzip(object->body).value_or("");
      std::istringstream in(text);
      size_t lines = 0;
      for (std::string line; std::getline(in, line); ++lines) {
        ids.insert(nlohmann::json::parse(line)["eventId"].get<std::string>());
      }
      std::string manifest_events;
      for (const auto& [name, value] : object->metadata) {
        if (name == "rayagg-events") manifest_events = value;
      }
      EXPECT_EQ(manifest_events, std::to_string(lines)) << key;
    }
    return ids;
  }

  // Each event object's manifest value `name` ("" when absent), in key order.
  std::vector<std::string> ManifestValues(const std::string& name) {
    std::vector<std::string> values;
    for (const std::string& key : EventObjectKeys()) {
      absl::StatusOr<StoredObject> object =
          DirObjectStore::GetBlocking(root_.path().string(), GetObjectRequest{.key = key});
      std::string value;
      if (object.ok()) {
        for (const auto& [field, text] : object->metadata) {
          if (field == name) value = text;
        }
      }
      values.push_back(value);
    }
    return values;
  }

  uint64_t Released() { return log_.ReleasedPosition(sink_->cursor()); }
  uint64_t Sent() { return sink_->counters().sent_events.load(); }

  test::ManualClock clock_;
  test::TempDir root_;
  test::TempDir state_dir_;  // stands in for spool.dir
  spdlog::logger logger_;
  test::SimulatedFileSystem spool_fs_;
  std::unique_ptr<spool::Spool> spool_;  // UseSpool()
  EventLog log_;
  std::unique_ptr<LogSpoolListener> spool_listener_;
  asio::io_context io_;
  ScriptedStore* store_ = nullptr;
  std::atomic<uint64_t> sender_drops_{0};  // the daemon's sender_dropped_task_attempts
  std::unique_ptr<ObjectSink> sink_;
  std::optional<test::IoThread> io_thread_;
};

TEST_F(ObjectSinkTest, AnObjectAppearsMaxAgeAfterItsFirstEventWithMarkerAndManifest) {
  Start();
  Append(0, 5);
  const std::optional<SteadyTime> due = clock_.WaitForNextDeadline();
  ASSERT_TRUE(due.has_value());
  EXPECT_EQ(*due, test::ManualClock::kDefaultStart + 10s);
  EXPECT_TRUE(Keys().empty());
  EXPECT_EQ(Released(), 0u);
  clock_.AdvanceTo(*due);
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 5; }));
  const std::vector<std::string> keys = Keys();
  ASSERT_EQ(keys.size(), 2u);  // sorted: cluster-history/... < cluster-metadata/...
  EXPECT_EQ(keys[1], std::string("cluster-metadata/raycluster/ns_c/") + test::kSession);
  EXPECT_EQ(StoredEventIds().size(), 5u);
  EXPECT_TRUE(test::WaitFor([&] { return Released() == 5; }));
  EXPECT_EQ(sink_->counters().sent_batches.load(), 1u);
  EXPECT_EQ(sink_->object_counters().markers.load(), 1u);
}

TEST_F(ObjectSinkTest, NothingIsWrittenForAnEmptyInterval) {
  Start();
  Append(0, 3);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 3; }));
  clock_.Advance(1h);
  Append(3, 1);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 4; }));
  EXPECT_EQ(EventObjectKeys().size(), 2u);  // one per interval with events, none between
  EXPECT_EQ(sink_->counters().sent_batches.load(), 2u);
  EXPECT_EQ(sink_->object_counters().markers.load(), 1u);  // once per session
}

TEST_F(ObjectSinkTest, AFailedUploadIsRetriedAndReleasedOnlyOnceStored) {
  Start();
  store_->FailNext(ObjectStoreError(absl::StatusCode::kUnavailable, "SlowDown", "slow down"));
  store_->FailNext(ObjectStoreError(absl::StatusCode::kUnavailable, "SlowDown", "slow down"));
  Append(0, 4);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return sink_->counters().failed_attempts.load() == 1; }));
  EXPECT_EQ(Released(), 0u);
  // The backoff: 1 s, then 2 s.
  const std::optional<SteadyTime> retry = clock_.WaitForNextDeadline();
  ASSERT_TRUE(retry.has_value());
  clock_.AdvanceTo(*retry);
  ASSERT_TRUE(test::WaitFor([&] { return sink_->counters().failed_attempts.load() == 2; }));
  EXPECT_EQ(Released(), 0u);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 4; }));
  EXPECT_TRUE(test::WaitFor([&] { return Released() == 4; }));
  EXPECT_EQ(StoredEventIds().size(), 4u);
  EXPECT_EQ(sink_->counters().retries.load(), 2u);
  EXPECT_EQ(sink_->object_counters().Failures().at("SlowDown"), 2u);
}

TEST_F(ObjectSinkTest, AnOperatorErrorIsRetriedUntilFixedAndNothingIsLost) {
  Start();
  store_->FailAlways(ObjectStoreError(absl::StatusCode::kPermissionDenied, "AccessDenied", "no"));
  Append(0, 3);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  for (uint64_t attempts = 1; attempts <= 3; ++attempts) {
    ASSERT_TRUE(
        test::WaitFor([&] { return sink_->counters().failed_attempts.load() == attempts; }));
    const std::optional<SteadyTime> retry = clock_.WaitForNextDeadline();
    ASSERT_TRUE(retry.has_value());
    EXPECT_EQ(*retry, clock_.Now() + 30s);  // max_backoff
    if (attempts == 3) store_->FailAlways(absl::OkStatus());
    clock_.AdvanceTo(*retry);
  }
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 3; }));
  EXPECT_TRUE(test::WaitFor([&] { return Released() == 3; }));
  EXPECT_EQ(sink_->drops().Total(), 0u);
}

TEST_F(ObjectSinkTest, DrainUploadsWhatIsOpenAtOnce) {
  Start();
  Append(0, 7);
  ASSERT_TRUE(clock_.WaitForNextDeadline().has_value());  // read and open
  sink_->Drain(clock_.Now() + 5s);
  ASSERT_TRUE(sink_->WaitFinished(60s));
  EXPECT_EQ(Sent(), 7u);
  EXPECT_EQ(Released(), 7u);
  EXPECT_EQ(StoredEventIds().size(), 7u);
}

TEST_F(ObjectSinkTest, AtTheDrainDeadlineWhatTheStoreRefusesIsDroppedAndReleased) {
  Start();
  store_->FailAlways(ObjectStoreError(absl::StatusCode::kUnavailable, "ServiceUnavailable", "x"));
  Append(0, 6);
  ASSERT_TRUE(clock_.WaitForNextDeadline().has_value());
  const SteadyTime deadline = clock_.Now() + 5s;
  sink_->Drain(deadline);
  ASSERT_TRUE(test::WaitFor([&] { return sink_->counters().failed_attempts.load() >= 1; }));
  clock_.AdvanceTo(deadline);
  ASSERT_TRUE(sink_->WaitFinished(60s));
  EXPECT_EQ(sink_->drops().Total(DropReason::kShutdown), 6u);
  EXPECT_EQ(Released(), 6u);
  EXPECT_TRUE(EventObjectKeys().empty());
}

TEST_F(ObjectSinkTest, WithTheBudgetHeldByFailedUploadsTheSinkStopsReading) {
  SinkConfig config = Config();
  config.object.max_open_bytes = 1;  // one read fills it
  Start(config);
  store_->FailAlways(ObjectStoreError(absl::StatusCode::kUnavailable, "SlowDown", "x"));
  Append(0, 2);
  ASSERT_TRUE(test::WaitFor([&] { return sink_->counters().failed_attempts.load() >= 1; }));
  Append(2, 2);  // not read while the first object is held
  ASSERT_TRUE(clock_.WaitForNextDeadline().has_value());
  EXPECT_TRUE(log_.HasUnread(sink_->cursor()));
  store_->FailAlways(absl::OkStatus());
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());  // the retry succeeds, then the rest is read
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 4; }));
  EXPECT_TRUE(test::WaitFor([&] { return Released() == 4; }));
  EXPECT_EQ(StoredEventIds().size(), 4u);
}

// Issue 16: with the store down the sink stops reading once its budget is
// held, and gzip does not stretch that budget over the JSON of every event
// it reads: each event held costs kHeldBytesPerCutEvent at least. (Before,
// a cut object counted only its compressed bytes, a small part of a line.)
TEST_F(ObjectSinkTest, WithTheStoreDownGzipDoesNotStretchTheBudgetOverMoreEvents) {
  SinkConfig config = Config();
  config.object.max_open_bytes = 64 * 1024;  // gzip on, the default
  Start(config);
  store_->FailAlways(ObjectStoreError(absl::StatusCode::kUnavailable, "SlowDown", "x"));
  Append(0, 20000);
  ASSERT_TRUE(test::WaitFor(
      [&] { return sink_->object_counters().held_bytes.load() >= config.object.max_open_bytes; }));
  // The log frees what its only cursor read: the rest is in the sink,
  // unreleased. One read (1000 events) may pass the budget.
  const uint64_t held_by_sink = 20000 - log_.GetSnapshot().held_events;
  EXPECT_LE(held_by_sink,
            config.object.max_open_bytes / ObjectAssembler::kHeldBytesPerCutEvent + 1000);
  EXPECT_TRUE(log_.HasUnread(sink_->cursor()));
  EXPECT_EQ(Released(), 0u);
}

// Ray's reported losses (AddEvents' dropped task attempts) go into the next
// object's manifest, what they grew by since the previous one; an object
// given up hands its share on, so the store's manifests add up to what the
// senders reported.
TEST_F(ObjectSinkTest, SenderReportedDropsGoIntoTheNextObjectsManifest) {
  sender_drops_ = 5;
  Start();
  for (int i = 0; i < 4; ++i) {
    store_->FailNext(
        ObjectStoreError(absl::StatusCode::kDataLoss, "XAmzContentSHA256Mismatch", "damaged"));
  }
  Append(0, 2);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());  // cut; the first attempt fails
  for (uint64_t attempts = 1; attempts <= 3; ++attempts) {
    ASSERT_TRUE(
        test::WaitFor([&] { return sink_->counters().failed_attempts.load() == attempts; }));
    clock_.AdvanceTo(*clock_.WaitForNextDeadline());  // the retry
  }
  ASSERT_TRUE(test::WaitFor([&] { return sink_->drops().Total(DropReason::kRejected) == 2; }));
  EXPECT_TRUE(EventObjectKeys().empty());

  sender_drops_ += 3;
  Append(2, 3);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 3; }));
  Append(5, 1);  // nothing reported since: no such field
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 4; }));
  EXPECT_EQ(ManifestValues("rayagg-dropped-task-attempts"), (std::vector<std::string>{"8", ""}));
}

// With a spool nothing is lost at the drain deadline: the object the store
// still refuses is neither dropped nor released (the next run reads it
// again from the spool), and neither are the events the sink had not read.
TEST_F(ObjectSinkTest, WithASpoolWhatIsUnsentAtTheDrainDeadlineIsKeptUnreleased) {
  ASSERT_NO_FATAL_FAILURE(UseSpool());
  SinkConfig config = Config();
  config.object.max_open_bytes = 1;  // one read fills it: the rest stays unread
  Start(config);
  const uint64_t first = spool_->first_sequence();
  store_->FailAlways(ObjectStoreError(absl::StatusCode::kUnavailable, "ServiceUnavailable", "x"));
  Append(0, 2);
  ASSERT_TRUE(test::WaitFor([&] { return sink_->counters().failed_attempts.load() >= 1; }));
  Append(2, 2);  // not read while the first object is held
  ASSERT_TRUE(clock_.WaitForNextDeadline().has_value());
  const SteadyTime deadline = clock_.Now() + 5s;
  sink_->Drain(deadline);
  clock_.AdvanceTo(deadline);
  ASSERT_TRUE(sink_->WaitFinished(60s));
  EXPECT_EQ(sink_->drops().Total(), 0u);
  EXPECT_EQ(Released(), first) << "released events would not be sent by the next run";
  EXPECT_TRUE(log_.HasUnread(sink_->cursor()));
  EXPECT_TRUE(EventObjectKeys().empty());
  EXPECT_EQ(sink_->object_counters().held_bytes.load(), 0u);
}

// With the spool on, the writer state file keeps the writer across a
// restart: the next run uploads under the same writer id, continues the
// numbering, and declares void the range its predecessor had handed to an
// upload that never succeeded (those events are still in the spool and get
// new numbers), so a reader sees no gap.
TEST_F(ObjectSinkTest, ARestartWithTheSameStateFileContinuesTheWritersSequence) {
  ASSERT_NO_FATAL_FAILURE(UseSpool());
  const std::string state = WriterStatePath(state_dir_.path().string(), "objects");
  Start(Config(), state);
  Append(0, 3);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 3; }));
  const std::string writer = sink_->writer();
  store_->FailAlways(ObjectStoreError(absl::StatusCode::kUnavailable, "ServiceUnavailable", "x"));
  Append(3, 2);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());  // cut 4..5; its upload fails
  ASSERT_TRUE(test::WaitFor([&] { return sink_->counters().failed_attempts.load() >= 1; }));
  const SteadyTime deadline = clock_.Now() + 5s;
  sink_->Drain(deadline);
  clock_.AdvanceTo(deadline);
  ASSERT_TRUE(sink_->WaitFinished(60s));
  EXPECT_EQ(sink_->drops().Total(), 0u);
  absl::StatusOr<WriterState> saved = LoadWriterState(state);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->writer, writer);
  EXPECT_EQ(saved->next_seq, 6u);
  EXPECT_EQ(saved->pending, (std::vector<SeqRange>{{4, 5}}));

  Restart(Config(), state);
  EXPECT_EQ(sink_->writer(), writer);
  EXPECT_EQ(sink_->object_counters().writer_state_resets.load(), 0u);
  Append(5, 4);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 4; }));
  EXPECT_EQ(ManifestValues("rayagg-writer"), (std::vector<std::string>{writer, writer}));
  EXPECT_EQ(ManifestValues("rayagg-seq-first"), (std::vector<std::string>{"1", "6"}));
  EXPECT_EQ(ManifestValues("rayagg-seq-last"), (std::vector<std::string>{"3", "9"}));
  EXPECT_EQ(ManifestValues("rayagg-seq-void"), (std::vector<std::string>{"", "4-5"}));

  // Declared once: the next clean stop's state has nothing left to void.
  sink_->Drain(clock_.Now());
  ASSERT_TRUE(sink_->WaitFinished(60s));
  saved = LoadWriterState(state);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->next_seq, 10u);
  EXPECT_TRUE(saved->pending.empty());
  EXPECT_TRUE(saved->void_ranges.empty());
}

// A state file that cannot be read back (torn, edited, another version)
// must not stop the sink: it starts a new writer, counts it, and replaces
// the file with its own state.
TEST_F(ObjectSinkTest, ACorruptStateFileStartsANewWriterAndIsCounted) {
  const std::string state = WriterStatePath(state_dir_.path().string(), "objects");
  test::WriteWholeFile(state, R"({"version": 1, "writer": "00112233)");
  Start(Config(), state);
  EXPECT_EQ(sink_->object_counters().writer_state_resets.load(), 1u);
  Append(0, 2);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 2; }));
  EXPECT_EQ(ManifestValues("rayagg-writer"), (std::vector<std::string>{sink_->writer()}));
  EXPECT_EQ(ManifestValues("rayagg-seq-first"), (std::vector<std::string>{"1"}));
  absl::StatusOr<WriterState> saved = LoadWriterState(state);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->writer, sink_->writer());
  EXPECT_EQ(saved->next_seq, 3u);
  EXPECT_EQ(sink_->object_counters().writer_state_write_errors.load(), 0u);
}

// Each kind of unreadable state (writer_state_test has them all) is one
// reset: a new random writer numbering from 1, never the file's writer.
TEST_F(ObjectSinkTest, EachUnreadableStateFileIsOneResetToANewWriter) {
  const std::string state = WriterStatePath(state_dir_.path().string(), "objects");
  const std::vector<std::string> unreadable = {
      "",
      R"({"version":2,"writer":"0123456789abcdef","next_seq":5,"drops":0,"pending":[],"void":[]})",
      R"({"version":1,"writer":"0123456789abcdef","next_seq":"5","drops":0,"pending":[],"void":[]})",
      R"({"version":1,"writer":"0123456789abcdef","next_seq":18446744073709551615,"drops":0,)"
      R"("pending":[],"void":[]})",
      R"({"version":1,"writer":"0123456789abcdef","next_seq":5,"drops":0,"pending":[[3,9]],)"
      R"("void":[]})",
  };
  for (const std::string& text : unreadable) {
    SCOPED_TRACE(text);
    if (sink_) {
      sink_->Drain(clock_.Now());  // saves its own state, replaced here
      ASSERT_TRUE(sink_->WaitFinished(60s));
      test::WriteWholeFile(state, text);
      Restart(Config(), state);
    } else {
      test::WriteWholeFile(state, text);
      Start(Config(), state);
    }
    EXPECT_EQ(sink_->object_counters().writer_state_resets.load(), 1u);
    EXPECT_NE(sink_->writer(), "0123456789abcdef");
  }
  Append(0, 2);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 2; }));
  EXPECT_EQ(ManifestValues("rayagg-seq-first"), (std::vector<std::string>{"1"}));
  EXPECT_EQ(ManifestValues("rayagg-seq-void"), (std::vector<std::string>{""}));
}

// Overlapping ranges in a state file (written by hand: the sink joins what
// it saves) are no reason to reset: the writer is kept and their union is
// declared void once.
TEST_F(ObjectSinkTest, OverlappingRangesInTheStateFileAreDeclaredVoidOnce) {
  const std::string state = WriterStatePath(state_dir_.path().string(), "objects");
  test::WriteWholeFile(state, R"({"version":1,"writer":"0123456789abcdef","next_seq":31,"drops":4,)"
                              R"("pending":[[5,10],[8,12]],"void":[[1,6],[20,25],[21,22]]})");
  Start(Config(), state);
  EXPECT_EQ(sink_->object_counters().writer_state_resets.load(), 0u);
  EXPECT_EQ(sink_->writer(), "0123456789abcdef");
  Append(0, 2);
  clock_.AdvanceTo(*clock_.WaitForNextDeadline());
  ASSERT_TRUE(test::WaitFor([&] { return Sent() == 2; }));
  EXPECT_EQ(ManifestValues("rayagg-writer"), (std::vector<std::string>{"0123456789abcdef"}));
  EXPECT_EQ(ManifestValues("rayagg-seq-first"), (std::vector<std::string>{"31"}));
  EXPECT_EQ(ManifestValues("rayagg-seq-void"), (std::vector<std::string>{"1-12,20-25"}));
  EXPECT_EQ(ManifestValues("rayagg-drops"), (std::vector<std::string>{"4"}));
}

}  // namespace
}  // namespace rayagg
