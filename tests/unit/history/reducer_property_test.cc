// Property tests of the reducer and the index writer: the events of random
// sessions, shuffled, duplicated, coalesced the way our sinks coalesce them
// (RayEventMerger), split into random batches, some batches written twice
// (an object re-read), fold to exactly what one in-order pass folds, both in
// memory and through the SQLite index (records and summaries).
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "history/fold/record_codec.h"
#include "history/fold/reducer.h"
#include "history/index/index_schema.h"
#include "history/index/index_writer.h"
#include "merge/ray_event_merger.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/temp_dir.h"
#include "unit/history/random_session.h"

namespace rayagg::history {
namespace {

using ray::rpc::events::RayEvent;

FoldedSession FoldAll(const std::vector<RayEvent>& events) {
  FoldedSession folded;
  for (const RayEvent& event : events) FoldEvent(event, folded);
  return folded;
}

// Shuffles, duplicates some events and coalesces runs of lifecycle events of
// one task into one (as the event log's merger sends them).
std::vector<RayEvent> Scramble(const std::vector<RayEvent>& events, std::mt19937_64& random) {
  std::vector<RayEvent> out;
  RayEventMerger merger;
  for (size_t i = 0; i < events.size(); ++i) {
    const RayEvent& event = events[i];
    if (event.has_task_lifecycle_event() && i + 1 < events.size() &&
        events[i + 1].has_task_lifecycle_event() &&
        events[i + 1].task_lifecycle_event().task_id() == event.task_lifecycle_event().task_id() &&
        events[i + 1].task_lifecycle_event().task_attempt() ==
            event.task_lifecycle_event().task_attempt() &&
        random() % 2 == 0) {
      const std::string a = event.SerializeAsString();
      const std::string b = events[i + 1].SerializeAsString();
      std::string merged;
      std::vector<std::string_view> parts = {a, b};
      if (merger.Merge(parts, merged)) {
        RayEvent coalesced;
        EXPECT_TRUE(coalesced.ParseFromString(merged));
        out.push_back(coalesced);
        ++i;
        continue;
      }
    }
    out.push_back(event);
    if (random() % 5 == 0) out.push_back(event);  // a duplicate
  }
  std::shuffle(out.begin(), out.end(), random);
  return out;
}

std::vector<FoldedSession> RandomBatches(const std::vector<RayEvent>& events,
                                         std::mt19937_64& random) {
  std::vector<FoldedSession> batches(1 + random() % 5);
  for (const RayEvent& event : events) FoldEvent(event, batches[random() % batches.size()]);
  return batches;
}

// What a reader sees: the values, not the versions that chose them (a
// coalesced lifecycle event versions its fields by its latest transition).
template <typename T>
void Strip(Versioned<T>& v) {
  if (v.has()) v.version = 0;
}
TaskRecord Observable(TaskRecord task) {
  Strip(task.definition);
  Strip(task.lifecycle_job_id);
  Strip(task.node_id);
  Strip(task.worker_id);
  Strip(task.worker_pid);
  Strip(task.error);
  Strip(task.actor_repr_name);
  Strip(task.is_debugger_paused);
  Strip(task.stdout_file);
  Strip(task.stderr_file);
  Strip(task.stdout_start);
  Strip(task.stdout_end);
  Strip(task.stderr_start);
  Strip(task.stderr_end);
  return task;
}
template <typename R>
R Observable(R record) {
  Strip(record.definition);
  return record;
}

template <typename Map>
void ExpectSameRecords(const Map& expected, const Map& actual, const char* what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (const auto& [key, record] : expected) {
    auto it = actual.find(key);
    ASSERT_NE(it, actual.end()) << what;
    EXPECT_TRUE(Observable(record) == Observable(it->second)) << what;
  }
}

void ExpectSameFold(const FoldedSession& expected, const FoldedSession& actual) {
  ExpectSameRecords(expected.tasks, actual.tasks, "tasks");
  ExpectSameRecords(expected.actors, actual.actors, "actors");
  ExpectSameRecords(expected.jobs, actual.jobs, "jobs");
  ExpectSameRecords(expected.nodes, actual.nodes, "nodes");
  ExpectSameRecords(expected.workers, actual.workers, "workers");
}

// Found by tests/fuzz/history_object_fuzz: a transition in year 1012 (or
// after 2262) overflowed int64 nanoseconds (undefined behaviour).
TEST(Reducer, TimesBeyondInt64NanosecondsAreClamped) {
  RayEvent event;
  event.set_event_type(RayEvent::TASK_LIFECYCLE_EVENT);
  event.mutable_timestamp()->set_seconds(-30215920167);
  auto* life = event.mutable_task_lifecycle_event();
  life->set_task_id("\x01\x02");
  auto* early = life->add_state_transitions();
  early->set_state(ray::rpc::PENDING_ARGS_AVAIL);
  early->mutable_timestamp()->set_seconds(-62135596800);  // 0001-01-01
  auto* late = life->add_state_transitions();
  late->set_state(ray::rpc::RUNNING);
  late->mutable_timestamp()->set_seconds(253402300799);  // 9999-12-31
  const FoldedSession folded = FoldAll({event});
  ASSERT_EQ(folded.tasks.size(), 1u);
  const TaskRecord& task = folded.tasks.begin()->second;
  ASSERT_EQ(task.transitions.size(), 2u);
  EXPECT_EQ(task.transitions[0].time_ns, 0);
  EXPECT_EQ(task.transitions[1].time_ns, int64_t{7'258'118'400} * 1'000'000'000);
}

TEST(ReducerProperty, AnyOrderDuplicatesCoalescingAndBatchesFoldTheSame) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(seed);
    const Session session = RandomSession(seed);
    const FoldedSession expected = FoldAll(session.events);
    std::mt19937_64 random(seed * 7919);
    std::vector<FoldedSession> batches = RandomBatches(Scramble(session.events, random), random);
    FoldedSession merged;
    for (FoldedSession& batch : batches) merged.Merge(std::move(batch));
    ExpectSameFold(expected, merged);
  }
}

TEST(ReducerProperty, RecordsSurviveTheirStoredForm) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const FoldedSession folded = FoldAll(RandomSession(seed).events);
    for (const auto& [key, task] : folded.tasks) {
      TaskRecord decoded;
      ASSERT_TRUE(DecodeRecord(EncodeRecord(task), decoded).ok());
      EXPECT_TRUE(decoded == task);
      // Truncated bytes are an error, never a crash or a wrong record.
      const std::string bytes = EncodeRecord(task);
      EXPECT_FALSE(DecodeRecord(std::string_view(bytes).substr(0, bytes.size() / 2), decoded).ok());
    }
    for (const auto& [id, actor] : folded.actors) {
      ActorRecord decoded;
      ASSERT_TRUE(DecodeRecord(EncodeRecord(actor), decoded).ok());
      EXPECT_TRUE(decoded == actor);
    }
    for (const auto& [id, job] : folded.jobs) {
      JobRecord decoded;
      ASSERT_TRUE(DecodeRecord(EncodeRecord(job), decoded).ok());
      EXPECT_TRUE(decoded == job);
    }
    for (const auto& [id, node] : folded.nodes) {
      NodeRecord decoded;
      ASSERT_TRUE(DecodeRecord(EncodeRecord(node), decoded).ok());
      EXPECT_TRUE(decoded == node);
    }
  }
}

TEST(ReducerProperty, RecordsWithStackTracesAreStoredDeflated) {
  TaskRecord task;
  task.task_id = "00ff";
  task.AddTransition({kFailed, 5});
  std::string trace = "Traceback (most recent call last):\n";
  for (int i = 0; i < 60; ++i)
    trace += "  File \"/x/y.py\", line " + std::to_string(i) + ", in f\n";
  task.error.Offer(5, TaskError{3, trace + "ValueError: boom"});
  const std::string bytes = EncodeRecord(task);
  EXPECT_LT(bytes.size(), trace.size() / 2);
  TaskRecord decoded;
  ASSERT_TRUE(DecodeRecord(bytes, decoded).ok());
  EXPECT_TRUE(decoded == task);
  for (size_t cut : {size_t{1}, size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_FALSE(DecodeRecord(std::string_view(bytes).substr(0, cut), decoded).ok()) << cut;
  }
}

// What the index holds for the session, read back.

struct StoredTask {
  TaskRecord record;
  int32_t state = 0;
  bool latest = false;
  int64_t attempts = 0;
};

struct Stored {
  std::map<std::pair<std::string, int32_t>, StoredTask> tasks;
  std::map<SummaryKey, std::pair<int64_t, std::string>> summary;
};

Stored ReadBack(SqliteDb& db, int64_t session_id) {
  Stored out;
  SqliteStatement tasks =
      *db.Prepare("SELECT record, state, latest, attempts FROM tasks WHERE session_id=?");
  tasks.Bind(1, session_id);
  while (*tasks.Step()) {
    TaskRecord task;
    EXPECT_TRUE(DecodeRecord(tasks.Blob(0), task).ok());
    out.tasks[{task.task_id, task.attempt}] = {task, static_cast<int32_t>(tasks.Int(1)),
                                               tasks.Int(2) != 0, tasks.Int(3)};
  }
  SqliteStatement summary = *db.Prepare(
      "SELECT unit, dim, value, job_id, task_type, state, count, stats FROM summary "
      "WHERE session_id=?");
  summary.Bind(1, session_id);
  while (*summary.Step()) {
    SummaryKey key{static_cast<int>(summary.Int(0)),     static_cast<int>(summary.Int(1)),
                   std::string(summary.Text(2)),         std::string(summary.Text(3)),
                   static_cast<int32_t>(summary.Int(4)), static_cast<int32_t>(summary.Int(5))};
    out.summary[key] = {summary.Int(6), std::string(summary.Blob(7))};
  }
  return out;
}

namespace {

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

// The record's plain encoding, inflated from its stored (deflated) form:
// 0x7e, the varint plain size, zlib's stream.
std::string PlainOf(std::string_view stored) {
  EXPECT_EQ(static_cast<uint8_t>(stored[0]), 0x7e);
  size_t pos = 1;
  uint64_t size = 0;
  for (int shift = 0;; shift += 7) {
    const auto byte = static_cast<uint8_t>(stored[pos++]);
    size |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  std::string plain(size, '\0');
  uLongf produced = size;
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(plain.data()), &produced,
                       reinterpret_cast<const Bytef*>(stored.data() + pos), stored.size() - pos),
            Z_OK);
  EXPECT_EQ(produced, size);
  return plain;
}

TaskRecord FailedWithTrace(size_t frames) {
  TaskRecord task;
  task.task_id = "00ff";
  task.AddTransition({kFailed, 5});
  std::string trace = "Traceback (most recent call last):\n";
  for (size_t i = 0; i < frames; ++i) {
    trace += "  File \"/x/module_" + std::to_string(i % 97) + ".py\", line " + std::to_string(i) +
             ", in f" + std::to_string(i % 13) + "\n";
  }
  task.error.Offer(5, TaskError{3, trace + "ValueError: boom"});
  return task;
}

}  // namespace

TEST(ReducerProperty, RecordsDeflatedByEarlierBuildsStillDecode) {
  // Earlier builds deflated with compress2() (a 32 KiB window); records
  // are now deflated with a window sized to the record. Both decode.
  for (size_t frames : {size_t{30}, size_t{2000}}) {
    const TaskRecord task = FailedWithTrace(frames);
    const std::string plain = PlainOf(EncodeRecord(task));
    uLongf bound = compressBound(plain.size());
    std::string deflated(bound, '\0');
    ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(deflated.data()), &bound,
                        reinterpret_cast<const Bytef*>(plain.data()), plain.size(), 1),
              Z_OK);
    deflated.resize(bound);
    const std::string earlier = "\x7e" + Varint(plain.size()) + deflated;
    TaskRecord decoded;
    ASSERT_TRUE(DecodeRecord(earlier, decoded).ok()) << frames;
    EXPECT_TRUE(decoded == task) << frames;
  }
}

TEST(ReducerProperty, RecordsOfAnySizeSurviveDeflating) {
  // Below the deflating threshold (768 B), around the window sizes chosen
  // (512 B .. 32 KiB) and beyond them.
  for (size_t frames :
       {size_t{12}, size_t{25}, size_t{50}, size_t{100}, size_t{400}, size_t{800}, size_t{3000}}) {
    const TaskRecord task = FailedWithTrace(frames);
    const std::string bytes = EncodeRecord(task);
    if (frames >= 25) {
      EXPECT_LT(bytes.size(), task.error.value.message.size() / 2) << frames;
    }
    TaskRecord decoded;
    ASSERT_TRUE(DecodeRecord(bytes, decoded).ok()) << frames;
    EXPECT_TRUE(decoded == task) << frames;
    EXPECT_EQ(EncodeRecord(task), bytes) << "the same record encodes to the same bytes";
  }
}

TEST(IndexSchema, NewIndexesUse16KiBPagesAndOlderFilesKeepTheirs) {
  test::TempDir fresh;
  {
    absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(fresh.path(), 1 << 20);
    ASSERT_TRUE(index.ok()) << index.status();
    SqliteStatement page_size = *index->db->Prepare("PRAGMA page_size");
    ASSERT_TRUE(*page_size.Step());
    EXPECT_EQ(page_size.Int(0), 16384);
  }
  // A file that earlier builds made with SQLite's default 4 KiB pages is
  // used as it is (a WAL file's page size cannot change).
  test::TempDir earlier;
  {
    absl::StatusOr<std::unique_ptr<SqliteDb>> raw =
        SqliteDb::Open(IndexPath(earlier.path()), false);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE((*raw)->Exec("PRAGMA page_size=4096; PRAGMA journal_mode=WAL;").ok());
  }
  absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(earlier.path(), 1 << 20);
  ASSERT_TRUE(index.ok()) << index.status();
  SqliteStatement page_size = *index->db->Prepare("PRAGMA page_size");
  ASSERT_TRUE(*page_size.Step());
  EXPECT_EQ(page_size.Int(0), 4096);
  IndexWriter writer(*index->db);
  absl::StatusOr<int64_t> id = writer.EnsureSession(
      {"raycluster", "default", "", "c", "session_2026-01-01_00-00-00_000000_1"}, false);
  ASSERT_TRUE(id.ok());
  BatchInput input;
  input.folded = FoldAll(RandomSession(7).events);
  const size_t tasks = input.folded.tasks.size();
  ASSERT_TRUE(writer.WriteBatch(*id, std::move(input)).ok());
  EXPECT_EQ(ReadBack(*index->db, *id).tasks.size(), tasks);
}

// The index holds exactly what a from-scratch computation over the in-order
// fold gives: every attempt's record and reported state, the latest flag on
// each task's highest attempt, attempts = that number + 1 on every row, and
// the summaries of both units.
void ExpectIndexHoldsTheFold(SqliteDb& db, int64_t session_id, const FoldedSession& expected) {
  const Stored stored = ReadBack(db, session_id);
  ASSERT_EQ(stored.tasks.size(), expected.tasks.size());
  std::unordered_map<std::string, int64_t> finished_jobs, dead_nodes;
  for (const auto& [job_id, job] : expected.jobs) {
    if (job.finished_ns() != kNoTime) finished_jobs[job_id] = job.finished_ns();
  }
  for (const auto& [node_id, node] : expected.nodes) {
    if (node.dead_ns() != kNoTime) dead_nodes[node_id] = node.dead_ns();
  }
  std::map<std::string, int32_t> highest;
  for (const auto& [key, task] : expected.tasks) {
    int32_t& h = highest.try_emplace(key.task_id, key.attempt).first->second;
    h = std::max(h, key.attempt);
  }
  std::map<SummaryKey, SummaryStats> expected_summary;
  for (const auto& [key, task] : expected.tasks) {
    auto it = stored.tasks.find({key.task_id, key.attempt});
    ASSERT_NE(it, stored.tasks.end());
    const StoredTask& row = it->second;
    EXPECT_TRUE(Observable(row.record) == Observable(task));
    const int32_t state = ReportedState(task, finished_jobs, dead_nodes);
    EXPECT_EQ(row.state, state) << TaskStateName(row.state);
    // Never silently running: a non-terminal task of a finished job is
    // reported as such.
    if (!IsTerminalTaskState(task.raw_state()) && finished_jobs.contains(task.job_id())) {
      EXPECT_EQ(row.state, kUnknownJobFinished);
    }
    const bool latest = key.attempt == highest[key.task_id];
    EXPECT_EQ(row.latest, latest) << key.task_id << " attempt " << key.attempt;
    EXPECT_EQ(row.attempts, highest[key.task_id] + 1) << key.task_id;
    AddContributions(task, state, latest, +1, expected_summary);
  }
  // Summaries: exactly those of the final records, in both units.
  std::map<SummaryKey, std::pair<int64_t, std::string>> want;
  for (const auto& [key, stats] : expected_summary) {
    if (stats.count != 0) want[key] = {stats.count, stats.Encode()};
  }
  EXPECT_EQ(stored.summary.size(), want.size());
  for (const auto& [key, value] : want) {
    auto it = stored.summary.find(key);
    ASSERT_NE(it, stored.summary.end()) << key.unit << " " << key.dim << " " << key.value;
    EXPECT_EQ(it->second.first, value.first);
    SummaryStats a, b;
    ASSERT_TRUE(a.Decode(it->second.second).ok());
    ASSERT_TRUE(b.Decode(value.second).ok());
    for (auto [x, y] : {std::pair{&a.pending, &b.pending}, std::pair{&a.running, &b.running},
                        std::pair{&a.total, &b.total}}) {
      EXPECT_EQ(x->count(), y->count());
      EXPECT_EQ(x->sum_ns(), y->sum_ns());
      EXPECT_EQ(x->Octaves(), y->Octaves());
    }
  }
}

TEST(ReducerProperty, IndexHoldsTheSameTasksAndSummariesWhateverTheBatches) {
  test::TempDir dir;
  absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir.path(), 8 << 20);
  ASSERT_TRUE(index.ok()) << index.status();
  IndexWriter writer(*index->db);
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE(seed);
    const Session session = RandomSession(seed);
    const FoldedSession expected = FoldAll(session.events);
    std::mt19937_64 random(seed * 104729);
    SessionIdentity identity{"raycluster", "default", "", "c" + std::to_string(seed),
                             "session_2026-01-01_00-00-00_000000_1"};
    absl::StatusOr<int64_t> id = writer.EnsureSession(identity, false);
    ASSERT_TRUE(id.ok());
    std::vector<RayEvent> scrambled = Scramble(session.events, random);
    std::vector<FoldedSession> batches = RandomBatches(scrambled, random);
    for (size_t b = 0; b < batches.size(); ++b) {
      // Some batches twice: an object indexed twice changes nothing.
      const int times = random() % 3 == 0 ? 2 : 1;
      for (int k = 0; k < times; ++k) {
        FoldedSession copy;
        copy.Merge(FoldedSession(batches[b]));
        BatchInput input;
        input.folded = std::move(copy);
        ASSERT_TRUE(writer.WriteBatch(*id, std::move(input)).ok());
      }
    }
    ExpectIndexHoldsTheFold(*index->db, *id, expected);
  }
}

// The attempt number an event is about (0 for events of no task).
int AttemptOf(const RayEvent& event) {
  if (event.has_task_definition_event()) return event.task_definition_event().task_attempt();
  if (event.has_actor_task_definition_event()) {
    return event.actor_task_definition_event().task_attempt();
  }
  if (event.has_task_lifecycle_event()) return event.task_lifecycle_event().task_attempt();
  if (event.has_task_profile_events()) return event.task_profile_events().attempt_number();
  return 0;
}

// Later attempts first: one batch per attempt number, the highest first
// (so every retried task's latest row arrives before the rows it
// supersedes), each batch maybe written twice, jobs and nodes in a random
// one of them.
TEST(ReducerProperty, LaterAttemptsFirstIndexTheSame) {
  test::TempDir dir;
  absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir.path(), 8 << 20);
  ASSERT_TRUE(index.ok()) << index.status();
  IndexWriter writer(*index->db);
  for (uint64_t seed = 100; seed <= 140; ++seed) {
    SCOPED_TRACE(seed);
    const Session session = RandomSession(seed);
    const FoldedSession expected = FoldAll(session.events);
    std::mt19937_64 random(seed * 15485863);
    absl::StatusOr<int64_t> id =
        writer.EnsureSession({"raycluster", "default", "", "r" + std::to_string(seed),
                              "session_2026-01-01_00-00-00_000000_1"},
                             false);
    ASSERT_TRUE(id.ok());
    std::map<int, FoldedSession, std::greater<>> by_attempt;
    for (const RayEvent& event : session.events) by_attempt[AttemptOf(event)];
    const int entities = static_cast<int>(random() % by_attempt.size());
    for (const RayEvent& event : Scramble(session.events, random)) {
      const bool task_event = event.has_task_definition_event() ||
                              event.has_actor_task_definition_event() ||
                              event.has_task_lifecycle_event() || event.has_task_profile_events();
      FoldEvent(event, task_event ? by_attempt[AttemptOf(event)]
                                  : std::next(by_attempt.begin(), entities)->second);
    }
    for (auto& [attempt, batch] : by_attempt) {
      const int times = random() % 2 == 0 ? 2 : 1;
      for (int k = 0; k < times; ++k) {
        BatchInput input;
        input.folded.Merge(FoldedSession(batch));
        ASSERT_TRUE(writer.WriteBatch(*id, std::move(input)).ok());
      }
    }
    ExpectIndexHoldsTheFold(*index->db, *id, expected);
  }
}

TEST(IndexWriter, LossesAManifestReportsCountOnceHoweverOftenItsObjectIsRead) {
  test::TempDir dir;
  absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir.path(), 1 << 20);
  ASSERT_TRUE(index.ok()) << index.status();
  IndexWriter writer(*index->db);
  absl::StatusOr<int64_t> id = writer.EnsureSession(
      {"raycluster", "default", "", "c", "session_2026-01-01_00-00-00_000000_1"}, false);
  ASSERT_TRUE(id.ok());
  auto write = [&](std::vector<std::pair<std::string, int64_t>> objects) {
    BatchInput input;
    for (const auto& [key, dropped] : objects) {
      ObjectOutcome object;
      object.key = key;
      object.dropped_task_attempts = dropped;
      input.objects.push_back(object);
    }
    ASSERT_TRUE(writer.WriteBatch(*id, std::move(input)).ok());
  };
  auto lost = [&] {
    SqliteStatement s = *index->db->Prepare("SELECT dropped_task_attempts FROM sessions");
    EXPECT_TRUE(*s.Step());
    return s.Int(0);
  };
  write({{"a", 3}, {"b", 0}});
  EXPECT_EQ(lost(), 3);
  write({{"a", 3}, {"c", 4}});  // "a" read again (positions lost): counted once
  EXPECT_EQ(lost(), 7);
  write({{"d", INT64_MAX}, {"e", INT64_MAX}});  // absurd manifests saturate, never wrap
  EXPECT_GT(lost(), 7);
}

TEST(ExceptionClass, FromPythonAndJavaMessages) {
  EXPECT_EQ(ExceptionClassOf("Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n"
                             "    raise ValueError('x')\nValueError: x"),
            "ValueError");
  EXPECT_EQ(ExceptionClassOf("ray::f() (pid=1, ip=10.0.0.1)\n  File \"a.py\", line 3\n"
                             "mymod.CustomError: boom\n"),
            "mymod.CustomError");
  EXPECT_EQ(ExceptionClassOf("ray.exceptions.RayTaskError(ZeroDivisionError): ray::g()\n"
                             "  File \"b.py\"\nZeroDivisionError: division by zero"),
            "ZeroDivisionError");
  EXPECT_EQ(ExceptionClassOf("ray.exceptions.RayTaskError(KeyError): ray::g()"), "KeyError");
  EXPECT_EQ(ExceptionClassOf("java.lang.IllegalStateException: bad\n\tat A.b(A.java:1)"),
            "java.lang.IllegalStateException");
  EXPECT_EQ(ExceptionClassOf("The worker died unexpectedly"), "");
  EXPECT_EQ(ExceptionClassOf(""), "");
  EXPECT_EQ(ExceptionClassOf("killed"), "");
}

TEST(DurationStats, QuantilesWithinTheBucketWidth) {
  DurationStats stats;
  for (int64_t ms = 1; ms <= 1000; ++ms) stats.Add(ms * 1'000'000);
  EXPECT_EQ(stats.count(), 1000);
  EXPECT_EQ(stats.max_ns(), 1'000'000'000);
  for (double q : {0.5, 0.9, 0.99}) {
    const double want = q * 1e9;
    EXPECT_NEAR(static_cast<double>(stats.Quantile(q)), want, want * 0.05) << q;
  }
  DurationStats copy = stats;
  copy.Merge(stats, -1);
  EXPECT_EQ(copy.count(), 0);
  EXPECT_TRUE(copy.Octaves().empty());
  std::string bytes;
  stats.EncodeTo(bytes);
  std::string_view view = bytes;
  DurationStats decoded;
  ASSERT_TRUE(decoded.DecodeFrom(view).ok());
  EXPECT_TRUE(decoded == stats);
}

}  // namespace
}  // namespace rayagg::history
