// The event log's durable mode (UseSpool): every accepted event becomes a
// spool record (coalesced parts carrying their entry's sequence), requests
// are answered when the spool reports them written, memory keeps a record
// until it is durable, releases reach the ledger's listener, and a refusing
// spool refuses before anything is held. The spool is real, pumped by hand
// on a simulated disk.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "buffer/event_log.h"
#include "spool/spool.h"
#include "support/manual_clock.h"
#include "support/simulated_file_system.h"
#include "unit/spool/spool_test_util.h"

namespace rayagg {
namespace {

using Op = test::SimulatedFileSystem::Op;

constexpr int32_t kTaskLifecycle = 2;
constexpr const char* kDirectory = "/spool";

class NullListener final : public spool::SpoolListener {
 public:
  explicit NullListener(EventLog& log) : log_(log) {}
  void OnDurable(uint64_t position) override { log_.OnDurable(position); }
  void OnEvict(const spool::SegmentInfo& segment) override { log_.OnSegmentEvicted(segment); }
  bool MayEvict(const spool::SegmentInfo& segment) override {
    return log_.MayEvictSegment(segment);
  }
  void OnHealthChanged(spool::SpoolHealth now, const std::string&) override { health = now; }
  void OnProblem(const std::string&) override {}
  spool::SpoolHealth health = spool::SpoolHealth::kHealthy;

 private:
  EventLog& log_;
};

class JoiningMerger final : public EventMerger {
 public:
  bool Merge(std::span<const std::string_view> parts, std::string& merged) override {
    merged.clear();
    for (const std::string_view part : parts) {
      if (!merged.empty()) merged += '+';
      merged += part;
    }
    return true;
  }
};

struct Answer {
  bool called = false;
  absl::Status status;
};

class EventLogSpoolTest : public ::testing::Test {
 protected:
  void Open(spool::SpoolOptions options, bool coalesce = false,
            EventLog::Limits limits = {1000, 1 << 20}) {
    options.directory = kDirectory;
    if (options.max_bytes == 0) options.max_bytes = 1 << 30;
    EventLog::Options log_options;
    log_options.dedup_window_events = 100;
    if (coalesce) log_options.merger_factory = [] { return std::make_unique<JoiningMerger>(); };
    log_ = std::make_unique<EventLog>(limits, std::move(log_options), /*chunk_bytes=*/256);
    listener_ = std::make_unique<NullListener>(*log_);
    auto opened = spool::Spool::Open(fs_, clock_, options, "pid 1");
    ASSERT_TRUE(opened.ok()) << opened.status();
    spool_ = *std::move(opened);
    spool_->Recover([](const spool::RecordHeader&, std::string_view) {});
    log_->UseSpool(*spool_, spool_->first_sequence());
    spool_->StartManual(*log_, *listener_, 0);
  }

  Answer* AppendAsync(std::vector<std::string> payloads, uint64_t entity_key = 0,
                      bool with_ids = false) {
    std::vector<IncomingEvent> events;
    for (const std::string& payload : payloads) {
      events.push_back(IncomingEvent{payload, kTaskLifecycle,
                                     with_ids ? HashEventId("id-" + payload) : 0, entity_key});
    }
    answers_.push_back(std::make_unique<Answer>());
    Answer* answer = answers_.back().get();
    log_->AppendAsync(events, [answer](absl::Status status) {
      answer->called = true;
      answer->status = std::move(status);
    });
    return answer;
  }

  std::vector<spool::test::Record> OnDisk() {
    return spool::test::ReadAll(fs_, spool_->segments());
  }

  // A clean stop, then the same directory opened again (a restart).
  void Restart(spool::SpoolOptions options, bool coalesce = false,
               EventLog::Limits limits = {1000, 1 << 20}) {
    spool_->Stop();
    spool_.reset();
    listener_.reset();
    log_.reset();
    ASSERT_NO_FATAL_FAILURE(Open(options, coalesce, limits));
  }

  // While the spool is down under on_write_error: memory, appends 40
  // requests of two 100-byte events (coalescing into 5 entities when on)
  // with a cursor that reads nothing; then the disk works again. Returns
  // the events the cursor reads in the end (merged parts counted apart).
  size_t AppendWhileDownThenResume(bool coalesce, DropCounters& drops) {
    constexpr uint64_t kMemoryBytes = 2000;
    EXPECT_NO_FATAL_FAILURE(
        Open({.sync = spool::SyncMode::kAlways, .on_write_error = spool::OnWriteError::kMemory},
             coalesce, EventLog::Limits{.max_events = 1000, .max_bytes = kMemoryBytes}));
    const EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
    // The first segment takes a write, then its fsync fails and no new
    // segment can be made: the spool is down, acknowledging from memory.
    fs_.Inject({.op = Op::kSync, .path_contains = ".seg", .times = -1, .error = EIO});
    fs_.Inject({.op = Op::kOpen, .path_contains = ".seg", .skip = 1, .times = -1, .error = ENOSPC});
    for (int request = 0; request < 40; ++request) {
      const uint64_t entity = coalesce ? static_cast<uint64_t>(request % 5) + 1 : 0;
      Answer* answer = AppendAsync({std::string(100, 'a'), std::string(100, 'b')}, entity);
      if (request % 4 == 0) spool_->Pump();  // the writer's passes while down
      EXPECT_TRUE(answer->called && answer->status.ok()) << answer->status;
      EXPECT_LE(log_->PendingRecordBytes(), kMemoryBytes) << "request " << request;
      EXPECT_LE(log_->GetSnapshot().reserved_bytes, 3 * kMemoryBytes) << "request " << request;
    }
    EXPECT_EQ(listener_->health, spool::SpoolHealth::kMemory);
    EXPECT_GT(drops.Total(DropReason::kOverflow), 0u) << "nothing dropped: not bounded";
    // The disk works again: the next retry writes what memory still holds.
    fs_.ClearFaults();
    clock_.Advance(std::chrono::seconds(1));
    spool_->Pump();
    EXPECT_EQ(listener_->health, spool::SpoolHealth::kHealthy);
    EXPECT_EQ(log_->PendingRecordBytes(), 0u);
    size_t events = 0;
    for (const std::string& payload : ReadAllOf(cursor)) {
      events += static_cast<size_t>(std::count(payload.begin(), payload.end(), '+')) + 1;
    }
    return events;
  }

  // Every payload the cursor reads until it has nothing more.
  std::vector<std::string> ReadAllOf(EventLog::CursorId cursor) {
    std::vector<std::string> payloads;
    for (int rounds = 0; rounds < 1000 && log_->HasUnread(cursor); ++rounds) {
      EventBatch batch;
      const auto read = log_->Read(cursor, 3, batch);
      for (size_t i = 0; i < batch.size(); ++i) payloads.emplace_back(batch.bytes(i));
      EXPECT_TRUE(log_->Release(cursor, read.range.begin, read.range.end));
    }
    return payloads;
  }

  void TearDown() override {
    if (spool_) spool_->Stop();
  }

  test::SimulatedFileSystem fs_;
  test::ManualClock clock_;
  std::unique_ptr<EventLog> log_;
  std::unique_ptr<NullListener> listener_;
  std::unique_ptr<spool::Spool> spool_;
  std::vector<std::unique_ptr<Answer>> answers_;
};

TEST_F(EventLogSpoolTest, AnswersOnlyOnceTheRecordsAreWritten) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kInterval}));
  Answer* answer = AppendAsync({"a", "bb", "ccc"});
  EXPECT_FALSE(answer->called) << "answered before the spool wrote";
  spool_->Pump();
  ASSERT_TRUE(answer->called);
  EXPECT_TRUE(answer->status.ok()) << answer->status;
  const auto records = OnDisk();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].payload, "a");
  EXPECT_EQ(records[2].payload, "ccc");
  EXPECT_EQ(records[0].sequence, spool_->first_sequence());
  EXPECT_EQ(records[2].sequence, spool_->first_sequence() + 2);
  EXPECT_EQ(records[1].event_type, kTaskLifecycle);
  EXPECT_GT(log_->PendingRecordBytes(), 0u) << "written, not yet durable (synced)";
  clock_.Advance(std::chrono::milliseconds(100));
  spool_->Pump();
  EXPECT_EQ(log_->PendingRecordBytes(), 0u);
}

TEST_F(EventLogSpoolTest, SyncAlwaysAnswersAfterTheFsync) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kAlways}));
  Answer* answer = AppendAsync({"a"});
  fs_.Inject({.op = Op::kSync, .path_contains = ".seg", .times = -1, .error = EIO});
  fs_.Inject({.op = Op::kOpen, .path_contains = ".seg", .skip = 1, .times = -1, .error = ENOSPC});
  spool_->Pump();
  // The fsync failed and no new segment could take the records: under the
  // default on_write_error (memory) the answer says "in memory".
  ASSERT_TRUE(answer->called);
  EXPECT_TRUE(answer->status.ok());
  EXPECT_EQ(listener_->health, spool::SpoolHealth::kMemory);
  EXPECT_GE(fs_.injected(Op::kSync), 1);
}

TEST_F(EventLogSpoolTest, ARefusingSpoolRefusesBeforeAnythingIsHeld) {
  ASSERT_NO_FATAL_FAILURE(
      Open({.sync = spool::SyncMode::kAlways, .on_write_error = spool::OnWriteError::kRefuse}));
  fs_.Inject({.op = Op::kAppend, .path_contains = ".seg", .times = -1, .error = EIO});
  fs_.Inject({.op = Op::kOpen, .path_contains = ".seg", .skip = 1, .times = -1, .error = EIO});
  Answer* first = AppendAsync({"a"});
  spool_->Pump();
  ASSERT_TRUE(first->called);
  EXPECT_TRUE(absl::IsUnavailable(first->status)) << first->status;
  ASSERT_EQ(listener_->health, spool::SpoolHealth::kRefusing);
  const uint64_t held = log_->GetSnapshot().appended_events;
  Answer* second = AppendAsync({"b"});
  ASSERT_TRUE(second->called) << "refused at once";
  EXPECT_TRUE(absl::IsUnavailable(second->status)) << second->status;
  EXPECT_EQ(log_->GetSnapshot().appended_events, held) << "nothing held for a refused request";
}

TEST_F(EventLogSpoolTest, CoalescedPartsCarryTheirEntrysSequence) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kInterval}, /*coalesce=*/true));
  DropCounters drops;  // a cursor that has read nothing: events are held, and merge
  log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  AppendAsync({"first"}, /*entity_key=*/7);
  AppendAsync({"other"}, /*entity_key=*/8);
  AppendAsync({"second", "third"}, /*entity_key=*/7);
  spool_->Pump();
  const auto records = OnDisk();
  ASSERT_EQ(records.size(), 4u);
  // The reader gives each entry with its parts, in the order received.
  EXPECT_EQ(records[0].payload, "first");
  EXPECT_EQ(records[0].part, 0);
  EXPECT_EQ(records[1].payload, "second");
  EXPECT_EQ(records[1].sequence, records[0].sequence);
  EXPECT_EQ(records[1].part, 1);
  EXPECT_EQ(records[2].payload, "third");
  EXPECT_EQ(records[2].part, 2);
  EXPECT_EQ(records[3].payload, "other");
  EXPECT_EQ(records[3].sequence, records[0].sequence + 1);
  for (const auto& answer : answers_) EXPECT_TRUE(answer->called);
}

TEST_F(EventLogSpoolTest, MemoryKeepsRecordsUntilTheyAreDurable) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kAlways}));
  DropCounters drops;
  const EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  AppendAsync({std::string(300, 'x'), std::string(300, 'y')});
  EventBatch batch;
  ASSERT_EQ(log_->Read(cursor, 10, batch).events, 2u);
  // Every cursor has passed the events, but the writer has not written them.
  EXPECT_GT(log_->GetSnapshot().reserved_bytes, 0u);
  EXPECT_GT(log_->PendingRecordBytes(), 0u);
  spool_->Pump();
  EXPECT_EQ(log_->PendingRecordBytes(), 0u);
  EXPECT_EQ(log_->GetSnapshot().reserved_bytes, 0u) << "freed once durable";
  const auto records = OnDisk();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].payload, std::string(300, 'y'));
}

TEST_F(EventLogSpoolTest, ReleasesCallTheListenerWhenThePositionMoves) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kInterval}));
  int calls = 0;
  log_->SetReleaseListener([&] { ++calls; });
  DropCounters drops;
  const EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  AppendAsync({"a", "b", "c"});
  EventBatch batch;
  const auto read = log_->Read(cursor, 10, batch);
  ASSERT_EQ(read.events, 3u);
  const uint64_t first = spool_->first_sequence();
  EXPECT_TRUE(log_->Release(cursor, first + 1, first + 3));
  EXPECT_EQ(calls, 0) << "a gap before it: the released position did not move";
  EXPECT_TRUE(log_->Release(cursor, first, first + 1));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(log_->ReleasedPosition(cursor), first + 3);
}

TEST_F(EventLogSpoolTest, SequencesContinueAboveAnEarlierRun) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kInterval}));
  AppendAsync({"a", "b"});
  spool_->Stop();
  const uint64_t earlier_first = spool_->first_sequence();
  spool_.reset();
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kInterval}));
  EXPECT_GE(spool_->first_sequence(), earlier_first + 2);
  AppendAsync({"c"});
  spool_->Pump();
  const auto records = OnDisk();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].payload, "c");
  EXPECT_EQ(records[2].sequence, spool_->first_sequence());
}

TEST_F(EventLogSpoolTest, EntriesMemoryLetGoOfAreReadFromDiskNotDropped) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kAlways}, /*coalesce=*/false,
                               EventLog::Limits{.max_events = 4, .max_bytes = 1 << 20}));
  DropCounters drops;
  const EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  std::vector<std::string> sent;
  for (int i = 0; i < 10; ++i) sent.push_back("event-" + std::to_string(i));
  AppendAsync(sent);
  EXPECT_EQ(log_->GetSnapshot().held_events, 4u) << "memory holds its bound";
  EXPECT_FALSE(log_->HasUnread(cursor)) << "what memory let go of is not on disk yet";
  spool_->Pump();
  EXPECT_EQ(ReadAllOf(cursor), sent);
  EXPECT_EQ(drops.Total(), 0u);
  EXPECT_EQ(log_->ReleasedPosition(cursor), spool_->first_sequence() + sent.size());
}

TEST_F(EventLogSpoolTest, ARestartResumesACursorAtItsPosition) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kInterval}));
  DropCounters drops;
  EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  AppendAsync({"a", "b", "c", "d"});
  EventBatch batch;
  const auto read = log_->Read(cursor, 2, batch);  // a and b delivered
  ASSERT_TRUE(log_->Release(cursor, read.range.begin, read.range.end));
  const uint64_t position = log_->ReleasedPosition(cursor);
  const uint64_t earlier_first = spool_->first_sequence();
  EXPECT_EQ(position, earlier_first + 2);

  ASSERT_NO_FATAL_FAILURE(Restart({.sync = spool::SyncMode::kInterval}));
  cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  log_->ResumeCursor(cursor, position);
  AppendAsync({"e"});
  spool_->Pump();
  EXPECT_EQ(ReadAllOf(cursor), (std::vector<std::string>{"c", "d", "e"}));
  EXPECT_EQ(drops.Total(), 0u);
  EXPECT_EQ(log_->ReplayedEvents(cursor), 2u) << "c and d came from the earlier run";
  EXPECT_EQ(spool_->recovered_end(), earlier_first + 4);
}

TEST_F(EventLogSpoolTest, ACoalescedEntryReadBackAfterARestartHasAllItsParts) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kInterval}, /*coalesce=*/true));
  DropCounters drops;
  EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  AppendAsync({"first"}, /*entity_key=*/7);
  AppendAsync({"other"}, /*entity_key=*/8);
  AppendAsync({"second"}, /*entity_key=*/7);
  const uint64_t position = log_->ReleasedPosition(cursor);  // nothing delivered

  ASSERT_NO_FATAL_FAILURE(Restart({.sync = spool::SyncMode::kInterval}, /*coalesce=*/true));
  cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  log_->ResumeCursor(cursor, position);
  EXPECT_EQ(ReadAllOf(cursor), (std::vector<std::string>{"first+second", "other"}));
}

TEST_F(EventLogSpoolTest, RememberedIdsDeduplicateASendersRetryAfterARestart) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kInterval}));
  const uint64_t id = HashEventId("id-x");
  log_->RememberIds(std::vector<uint64_t>{id});
  AppendAsync({"x"}, /*entity_key=*/0, /*with_ids=*/true);
  EXPECT_EQ(log_->GetSnapshot().deduplicated_events, 1u);
  AppendAsync({"y"}, /*entity_key=*/0, /*with_ids=*/true);
  EXPECT_EQ(log_->GetSnapshot().deduplicated_events, 1u);
}

TEST_F(EventLogSpoolTest, ADamagedRecordIsCountedAsCorruptForTheCursor) {
  ASSERT_NO_FATAL_FAILURE(Open({.sync = spool::SyncMode::kAlways}));
  std::vector<std::string> sent;
  for (int i = 0; i < 6; ++i) sent.push_back("payload-number-" + std::to_string(i));
  AppendAsync(sent);
  spool_->Pump();
  const uint64_t position = spool_->first_sequence();
  spool_->Stop();
  // Flip a byte inside the third record's payload.
  std::string path;
  for (const std::string& candidate : fs_.Paths()) {
    if (candidate.ends_with(".seg")) path = candidate;
  }
  ASSERT_FALSE(path.empty());
  std::string bytes = fs_.Contents(path);
  const size_t at = bytes.find("payload-number-2");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] ^= 0x20;
  fs_.SetContents(path, bytes);

  ASSERT_NO_FATAL_FAILURE(Restart({.sync = spool::SyncMode::kAlways}));
  DropCounters drops;
  const EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  log_->ResumeCursor(cursor, position);
  const std::vector<std::string> read = ReadAllOf(cursor);
  EXPECT_EQ(read.size(), 5u);
  EXPECT_EQ(std::count(read.begin(), read.end(), "payload-number-2"), 0);
  EXPECT_EQ(drops.Total(DropReason::kCorrupt), 1u);
}

// Three segments of ten events each; a restart finds the middle one
// unreadable (EIO on its `skip_reads`+1-th read: 0 fails the header at
// Open, 1 the records while recovery scans). Cursors at the first event,
// inside the middle segment and at the first event after it read what is
// left; returns what each read and counted as `corrupt`.
struct AfterMovedAside {
  std::vector<size_t> read;
  std::vector<uint64_t> corrupt;
  uint64_t moved_aside_segments = 0;
};

class EventLogMovedAsideTest : public EventLogSpoolTest {
 protected:
  AfterMovedAside RestartWithMiddleSegmentUnreadable(int skip_reads) {
    AfterMovedAside after;
    EXPECT_NO_FATAL_FAILURE(Open({.segment_bytes = 256, .sync = spool::SyncMode::kAlways}));
    const uint64_t first = spool_->first_sequence();
    for (int segment = 0; segment < 3; ++segment) {
      std::vector<std::string> payloads;
      for (int i = 0; i < 10; ++i) {
        payloads.push_back("event-" + std::to_string(segment) + "-" + std::to_string(i));
      }
      AppendAsync(payloads);
      spool_->Pump();
    }
    const std::vector<spool::SegmentInfo> segments = spool_->segments().Snapshot();
    EXPECT_EQ(segments.size(), 3u);
    if (segments.size() != 3u) return after;
    EXPECT_EQ(segments[2].first_entry, first + 20);
    fs_.Inject({.op = Op::kRead,
                .path_contains = spool::SegmentFileName(segments[1].number),
                .skip = skip_reads,
                .times = -1,
                .error = EIO});
    EXPECT_NO_FATAL_FAILURE(Restart({.segment_bytes = 256, .sync = spool::SyncMode::kAlways}));
    EXPECT_EQ(fs_.injected(Op::kRead), 1);
    after.moved_aside_segments = spool_->Stats().moved_aside_segments;
    std::vector<std::unique_ptr<DropCounters>> drops;
    for (const uint64_t position : {first, first + 15, first + 20}) {
      drops.push_back(std::make_unique<DropCounters>());
      const EventLog::CursorId cursor =
          log_->AddCursor(EventTypeFilter::All(), *drops.back(), nullptr);
      log_->ResumeCursor(cursor, position);
      after.read.push_back(ReadAllOf(cursor).size());
      after.corrupt.push_back(drops.back()->Total(DropReason::kCorrupt));
    }
    return after;
  }
};

// A segment the disk will not read is moved aside at start; its events are
// lost. Each cursor that had not read all of them counts one `corrupt` drop
// (how many it held is what the disk would not give back) and reads the
// other segments whole; a cursor already past it counts nothing.
TEST_F(EventLogMovedAsideTest, AnUnreadableSegmentCountsOneCorruptDropForEachCursorBeforeItsEnd) {
  const AfterMovedAside after = RestartWithMiddleSegmentUnreadable(/*skip_reads=*/1);
  EXPECT_EQ(after.moved_aside_segments, 1u);
  EXPECT_EQ(after.read, (std::vector<size_t>{20, 10, 10}));
  EXPECT_EQ(after.corrupt, (std::vector<uint64_t>{1, 1, 0}));
}

TEST_F(EventLogMovedAsideTest, AnUnreadableSegmentHeaderCountsTheSame) {
  const AfterMovedAside after = RestartWithMiddleSegmentUnreadable(/*skip_reads=*/0);
  EXPECT_EQ(after.moved_aside_segments, 1u);
  EXPECT_EQ(after.read, (std::vector<size_t>{20, 10, 10}));
  EXPECT_EQ(after.corrupt, (std::vector<uint64_t>{1, 1, 0}));
}

// A full spool evicts its oldest segment: a sink that never reads (a dead
// endpoint) counts what it loses there as overflow and moves past it, so
// the disk stays bounded and every event is read or counted.
TEST_F(EventLogSpoolTest, AFullSpoolEvictsTheOldestSegmentCountingWhatEachCursorLoses) {
  ASSERT_NO_FATAL_FAILURE(
      Open({.max_bytes = 4096, .segment_bytes = 1024, .sync = spool::SyncMode::kAlways},
           /*coalesce=*/false, EventLog::Limits{.max_events = 8, .max_bytes = 1 << 20}));
  DropCounters drops;
  const EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  size_t sent = 0;
  for (int request = 0; request < 40; ++request) {
    std::vector<std::string> payloads;
    for (int i = 0; i < 4; ++i) payloads.push_back(std::string(60, 'a' + (sent++ % 26)));
    AppendAsync(payloads);
    spool_->Pump();
  }
  EXPECT_LE(spool_->Stats().bytes, 4096u + 1024u);
  EXPECT_GT(spool_->Stats().evicted_segments, 0u);
  const uint64_t dropped = drops.Total(DropReason::kOverflow);
  EXPECT_GT(dropped, 0u);
  const std::vector<std::string> read = ReadAllOf(cursor);
  EXPECT_EQ(read.size() + dropped, sent) << "every event read or counted";
}

// when_full: block with the spool: memory letting go of an entry loses
// nothing, but the spool's bound does. Requests that would make the spool
// evict a segment the blocking sink has not read are refused (nothing
// held, the sink named, counted), the disk stays within its bound, and
// once the sink has read, the same request goes in; nothing is dropped.
TEST_F(EventLogSpoolTest, ABlockingCursorRefusesRequestsTheFullSpoolWouldEvictFor) {
  ASSERT_NO_FATAL_FAILURE(
      Open({.max_bytes = 4096, .segment_bytes = 1024, .sync = spool::SyncMode::kAlways},
           /*coalesce=*/false, EventLog::Limits{.max_events = 8, .max_bytes = 1 << 20}));
  DropCounters drops;
  std::atomic<uint64_t> refusals{0};
  const EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  log_->BlockWhenFull(cursor, "archive", refusals);
  size_t accepted = 0;
  Answer* refused = nullptr;
  for (int request = 0; request < 40 && refused == nullptr; ++request) {
    Answer* answer = AppendAsync({std::string(60, 'a'), std::string(60, 'b')});
    spool_->Pump();
    ASSERT_TRUE(answer->called);
    if (answer->status.ok()) {
      accepted += 2;
    } else {
      refused = answer;
    }
  }
  ASSERT_NE(refused, nullptr) << "never full";
  EXPECT_TRUE(absl::IsUnavailable(refused->status)) << refused->status;
  EXPECT_NE(std::string(refused->status.message()).find("\"archive\""), std::string::npos);
  EXPECT_EQ(refusals.load(), 1u);
  EXPECT_EQ(log_->GetSnapshot().appended_events, accepted) << "nothing held for the refusal";
  // Smaller requests still fit, until not even one byte does: then the sink
  // is full for everyone (FullBlockingSink, what HTTP ingest and /readyz ask).
  for (int request = 0; request < 100 && log_->FullBlockingSink() == std::nullopt; ++request) {
    Answer* answer = AppendAsync({"x"});
    spool_->Pump();
    ASSERT_TRUE(answer->called);
    if (answer->status.ok()) ++accepted;
  }
  EXPECT_EQ(log_->FullBlockingSink(), "archive");
  EXPECT_EQ(log_->GetSnapshot().appended_events, accepted);
  EXPECT_EQ(spool_->Stats().evicted_segments, 0u);
  EXPECT_LE(spool_->Stats().bytes, 4096u);

  // The sink reads everything (from disk, memory let go of most): the
  // request goes in, and the segments it had read make room for it.
  const std::vector<std::string> read = ReadAllOf(cursor);
  EXPECT_EQ(read.size(), accepted);
  EXPECT_EQ(log_->FullBlockingSink(), std::nullopt);
  Answer* again = AppendAsync({std::string(60, 'a'), std::string(60, 'b')});
  spool_->Pump();
  ASSERT_TRUE(again->called);
  EXPECT_TRUE(again->status.ok()) << again->status;
  EXPECT_LE(spool_->Stats().bytes, 4096u);
  EXPECT_EQ(ReadAllOf(cursor).size(), 2u);
  EXPECT_EQ(drops.Total(), 0u);
}

// A blocking cursor holds the disk only for the types it accepts: beside
// one that takes other types, a full spool evicts as with drop_oldest.
TEST_F(EventLogSpoolTest, WithoutABlockingCursorAFullSpoolStillEvicts) {
  ASSERT_NO_FATAL_FAILURE(
      Open({.max_bytes = 4096, .segment_bytes = 1024, .sync = spool::SyncMode::kAlways},
           /*coalesce=*/false, EventLog::Limits{.max_events = 8, .max_bytes = 1 << 20}));
  DropCounters drops;
  std::atomic<uint64_t> refusals{0};
  const EventLog::CursorId cursor = log_->AddCursor(EventTypeFilter::All(), drops, nullptr);
  // A blocking cursor that accepts another type only: not full for these.
  DropCounters other_drops;
  const EventLog::CursorId other =
      log_->AddCursor(EventTypeFilter::Of({kTaskLifecycle + 1}), other_drops, nullptr);
  log_->BlockWhenFull(other, "profiles", refusals);
  for (int request = 0; request < 40; ++request) {
    Answer* answer = AppendAsync({std::string(60, 'a'), std::string(60, 'b')});
    spool_->Pump();
    ASSERT_TRUE(answer->called);
    ASSERT_TRUE(answer->status.ok()) << answer->status;
  }
  EXPECT_EQ(refusals.load(), 0u);
  EXPECT_GT(spool_->Stats().evicted_segments, 0u);
  EXPECT_GT(drops.Total(DropReason::kOverflow), 0u);
  EXPECT_EQ(ReadAllOf(cursor).size() + drops.Total(DropReason::kOverflow), 80u);
}

// While the spool is down (on_write_error: memory) the records it could not
// write stay within buffer.max_bytes: the oldest are dropped and counted as
// overflow by each cursor that had not read them; once the disk works
// again the rest is written and read back. Every event is read or counted.
TEST_F(EventLogSpoolTest, WhileTheSpoolIsDownUnwrittenRecordsStayWithinTheMemoryBound) {
  DropCounters drops;
  const size_t read = AppendWhileDownThenResume(/*coalesce=*/false, drops);
  EXPECT_GT(read, 0u);
  EXPECT_EQ(read + drops.Total(DropReason::kOverflow), 80u);
  EXPECT_EQ(drops.Total(), drops.Total(DropReason::kOverflow));
}

// The same with coalescing: a dropped entry's parts written later can
// never be read, and are counted too.
TEST_F(EventLogSpoolTest, WhileTheSpoolIsDownDroppedEntriesCountTheirPartsToo) {
  DropCounters drops;
  const size_t read = AppendWhileDownThenResume(/*coalesce=*/true, drops);
  EXPECT_GT(read, 0u);
  EXPECT_EQ(read + drops.Total(DropReason::kOverflow), 80u);
}

}  // namespace
}  // namespace rayagg
