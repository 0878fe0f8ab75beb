// The spool's acknowledgement rows (docs/DELIVERY.md) and its upkeep: disk
// bound, deletion, ledger, lock, format version, the writer thread.
#include "spool/spool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "support/manual_clock.h"
#include "support/simulated_file_system.h"
#include "unit/spool/spool_test_util.h"

namespace rayagg::spool {
namespace {

using Op = rayagg::test::SimulatedFileSystem::Op;
using rayagg::test::SimulatedFileSystem;
using test::ReadAll;
using test::Record;
using test::TestStream;

constexpr const char* kDirectory = "/spool";

class RecordingListener final : public SpoolListener {
 public:
  void OnDurable(uint64_t position) override { durable = position; }
  void OnEvict(const SegmentInfo& segment) override { evicted.push_back(segment.number); }
  void OnHealthChanged(SpoolHealth now, const std::string& reason) override {
    health = now;
    last_reason = reason;
  }
  void OnProblem(const std::string& line) override { problems.push_back(line); }
  uint64_t durable = 0;
  std::vector<uint64_t> evicted;
  SpoolHealth health = SpoolHealth::kHealthy;
  std::string last_reason;
  std::vector<std::string> problems;
};

struct Answer {
  bool called = false;
  absl::Status status;
};

class SpoolTest : public ::testing::Test {
 protected:
  std::unique_ptr<Spool> OpenManual(SpoolOptions options) {
    options.directory = kDirectory;
    if (options.max_bytes == 0) options.max_bytes = 1 << 30;
    auto spool = Spool::Open(fs_, clock_, options, "pid 1");
    EXPECT_TRUE(spool.ok()) << spool.status();
    (*spool)->Recover(nullptr);
    (*spool)->StartManual(stream_, listener_, 0);
    return *std::move(spool);
  }
  // Appends one record of a new entry and submits it.
  Answer* Append(Spool& spool, size_t bytes = 50) {
    const Record record{.sequence = next_sequence_++, .payload = std::string(bytes, 'x')};
    answers_.push_back(std::make_unique<Answer>());
    Answer* answer = answers_.back().get();
    spool.Submit(stream_.Add(record), [answer](absl::Status status) {
      answer->called = true;
      answer->status = status;
    });
    return answer;
  }

  SimulatedFileSystem fs_;
  TestStream stream_;
  RecordingListener listener_;
  rayagg::test::ManualClock clock_;
  uint64_t next_sequence_ = 1;
  std::vector<std::unique_ptr<Answer>> answers_;
};

TEST_F(SpoolTest, IntervalSyncAnswersWhenWrittenAndSyncsLater) {
  auto spool = OpenManual({.sync = SyncMode::kInterval});
  Answer* answer = Append(*spool);
  EXPECT_FALSE(answer->called);
  spool->Pump();
  ASSERT_TRUE(answer->called);
  EXPECT_TRUE(answer->status.ok());
  EXPECT_EQ(fs_.calls(Op::kSync, ".seg"), 0) << "answered before any fsync";
  EXPECT_LT(spool->synced_position(), spool->written_position());
  clock_.Advance(std::chrono::milliseconds(100));
  spool->Pump();
  EXPECT_EQ(fs_.calls(Op::kSync, ".seg"), 1);
  EXPECT_EQ(spool->synced_position(), spool->written_position());
}

TEST_F(SpoolTest, SyncAlwaysAnswersAfterOneFsyncForEveryWaitingRequest) {
  auto spool = OpenManual({.sync = SyncMode::kAlways});
  Answer* first = Append(*spool);
  Answer* second = Append(*spool);
  Answer* third = Append(*spool);
  spool->Pump();
  for (Answer* answer : {first, second, third}) {
    ASSERT_TRUE(answer->called);
    EXPECT_TRUE(answer->status.ok());
  }
  EXPECT_EQ(fs_.calls(Op::kSync, ".seg"), 1) << "group commit: one fsync for the three";
  EXPECT_EQ(spool->synced_position(), stream_.end());
}

TEST_F(SpoolTest, FailedFsyncIsNeverRetriedOnThatSegment) {
  auto spool = OpenManual({.sync = SyncMode::kAlways});
  Append(*spool);
  spool->Pump();
  const uint64_t first_segment = spool->segments().Snapshot().back().number;
  fs_.Inject({.op = Op::kSync, .path_contains = SegmentFileName(first_segment)});
  Answer* answer = Append(*spool);
  spool->Pump();
  ASSERT_TRUE(answer->called);
  EXPECT_TRUE(answer->status.ok()) << "rewritten into a new segment and synced there";
  EXPECT_EQ(fs_.calls(Op::kSync, SegmentFileName(first_segment)), 2)
      << "one good, one failed, none after";
  EXPECT_EQ(listener_.health, SpoolHealth::kHealthy);
  ASSERT_EQ(listener_.problems.size(), 1u);
  // The record lives on in the new segment, written from memory.
  fs_.LosePower();
  auto again =
      Spool::Open(fs_, clock_, SpoolOptions{.directory = kDirectory, .max_bytes = 1 << 30}, "x");
  ASSERT_TRUE(again.ok());
  (*again)->Recover(nullptr);
  EXPECT_EQ(ReadAll(fs_, (*again)->segments()).size(), 2u);
}

TEST_F(SpoolTest, WriteErrorsWithMemoryPolicyAnswerFromMemoryAndRetryEverySecond) {
  auto spool = OpenManual({.sync = SyncMode::kInterval, .on_write_error = OnWriteError::kMemory});
  fs_.Inject({.op = Op::kAppend, .path_contains = ".seg", .times = -1, .error = ENOSPC});
  Answer* answer = Append(*spool);
  spool->Pump();
  ASSERT_TRUE(answer->called);
  EXPECT_TRUE(answer->status.ok());
  EXPECT_EQ(spool->health(), SpoolHealth::kMemory);
  EXPECT_EQ(listener_.health, SpoolHealth::kMemory);
  EXPECT_NE(listener_.last_reason.find("No space left"), std::string::npos)
      << listener_.last_reason;
  // While down, answers come at once.
  Answer* later = Append(*spool);
  EXPECT_TRUE(later->called && later->status.ok());
  clock_.Advance(std::chrono::milliseconds(999));
  spool->Pump();
  EXPECT_EQ(spool->health(), SpoolHealth::kMemory) << "not retried before a second passed";
  fs_.ClearFaults();
  clock_.Advance(std::chrono::milliseconds(1));
  spool->Pump();
  EXPECT_EQ(spool->health(), SpoolHealth::kHealthy);
  EXPECT_EQ(spool->written_position(), stream_.end()) << "what memory held is on disk now";
}

TEST_F(SpoolTest, WriteErrorsWithRefusePolicyRefuseUntilTheDiskWorks) {
  auto spool = OpenManual({.sync = SyncMode::kAlways, .on_write_error = OnWriteError::kRefuse});
  fs_.Inject({.op = Op::kAppend, .path_contains = ".seg", .times = -1, .error = EIO});
  Answer* answer = Append(*spool);
  spool->Pump();
  ASSERT_TRUE(answer->called);
  EXPECT_EQ(answer->status.code(), absl::StatusCode::kUnavailable);
  Answer* later = Append(*spool);
  EXPECT_TRUE(later->called);
  EXPECT_EQ(later->status.code(), absl::StatusCode::kUnavailable);
  fs_.ClearFaults();
  clock_.Advance(std::chrono::seconds(1));
  spool->Pump();
  EXPECT_EQ(spool->health(), SpoolHealth::kHealthy);
  Answer* after = Append(*spool);
  spool->Pump();
  EXPECT_TRUE(after->called && after->status.ok());
}

TEST_F(SpoolTest, ShortWritesAreContinued) {
  auto spool = OpenManual({.sync = SyncMode::kAlways});
  fs_.Inject({.op = Op::kAppend,
              .path_contains = ".seg",
              .skip = 1,
              .times = 5,
              .short_bytes = 7,
              .short_write = true});
  for (int i = 0; i < 4; ++i) Append(*spool, 100);
  spool->Pump();
  EXPECT_EQ(fs_.injected(Op::kAppend), 5);
  EXPECT_TRUE(listener_.problems.empty());
  EXPECT_EQ(ReadAll(fs_, spool->segments()).size(), 4u);
}

TEST_F(SpoolTest, StaysWithinMaxBytesByEvictingTheOldestSegment) {
  auto spool = OpenManual({.max_bytes = 4000, .segment_bytes = 1000, .sync = SyncMode::kNever});
  for (int i = 0; i < 100; ++i) {
    Append(*spool, 100);
    spool->Pump();
    ASSERT_LE(spool->segments().total_bytes(), 4000u + 200);
  }
  EXPECT_FALSE(listener_.evicted.empty());
  // Oldest first, each once.
  for (size_t i = 1; i < listener_.evicted.size(); ++i) {
    EXPECT_LT(listener_.evicted[i - 1], listener_.evicted[i]);
  }
}

TEST_F(SpoolTest, ReleasedSegmentsAreDeletedAndTheLedgerWritten) {
  auto spool = OpenManual({.segment_bytes = 600, .sync = SyncMode::kNever});
  for (int i = 0; i < 30; ++i) {
    Append(*spool, 100);
    spool->Pump();
  }
  const size_t before = spool->segments().segment_count();
  ASSERT_GE(before, 4u);
  spool->UpdatePositions({{"a", 20}, {"b", 25}}, 20);
  spool->Pump();
  EXPECT_LT(spool->segments().segment_count(), before);
  EXPECT_EQ(listener_.evicted.size(), 0u);
  for (const SegmentInfo& segment : spool->segments().Snapshot()) {
    EXPECT_GE(segment.max_sequence, 20u) << "only wholly released segments go";
  }
  absl::StatusOr<DecodedLedger> ledger = ReadLedger(fs_, std::string(kDirectory) + "/ledger");
  ASSERT_TRUE(ledger.ok());
  EXPECT_EQ(ledger->state.positions,
            (std::vector<std::pair<std::string, uint64_t>>{{"a", 20}, {"b", 25}}));
}

// A segment's creation time (its header, and the age of a sink's oldest
// unsent event) comes from the spool's clock, not from the system's.
TEST_F(SpoolTest, SegmentsAreDatedByTheSpoolsClock) {
  auto spool = OpenManual({.segment_bytes = 200, .sync = SyncMode::kNever});
  auto unix_ms = [&] {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(clock_.WallNow().time_since_epoch())
            .count());
  };
  const uint64_t first_ms = unix_ms();
  Append(*spool, 300);
  spool->Pump();
  clock_.Advance(std::chrono::hours(5));
  const uint64_t second_ms = unix_ms();
  Append(*spool, 300);  // the first segment is full: a second one
  spool->Pump();
  const std::vector<SegmentInfo> segments = spool->segments().Snapshot();
  ASSERT_EQ(segments.size(), 2u);
  const uint64_t expected[] = {first_ms, second_ms};
  for (size_t i = 0; i < segments.size(); ++i) {
    EXPECT_EQ(segments[i].created_unix_ms, expected[i]);
    SegmentHeader header;
    ASSERT_EQ(
        DecodeSegmentHeader(fs_.Contents(spool->segments().PathOf(segments[i].number)), header),
        HeaderState::kValid);
    EXPECT_EQ(header.created_unix_ms, expected[i]);
  }
}

TEST_F(SpoolTest, SecondProcessOnTheDirectoryIsRefused) {
  auto first = Spool::Open(fs_, clock_, SpoolOptions{.directory = kDirectory, .max_bytes = 1 << 20},
                           "pid 4242");
  ASSERT_TRUE(first.ok());
  auto second = Spool::Open(fs_, clock_,
                            SpoolOptions{.directory = kDirectory, .max_bytes = 1 << 20}, "pid 7");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find("pid 4242"), std::string::npos)
      << second.status().message();
  EXPECT_NE(second.status().message().find("in use"), std::string::npos);
}

TEST_F(SpoolTest, OtherFormatVersionIsRefusedWithAMessageSayingSo) {
  ASSERT_TRUE(fs_.CreateDirectories(kDirectory).ok());
  SegmentHeader header{.version = 2, .number = 7, .sequence_floor = 1};
  fs_.SetContents(std::string(kDirectory) + "/" + SegmentFileName(7), EncodeSegmentHeader(header));
  auto spool =
      Spool::Open(fs_, clock_, SpoolOptions{.directory = kDirectory, .max_bytes = 1 << 20}, "x");
  ASSERT_FALSE(spool.ok());
  EXPECT_EQ(spool.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(spool.status().message().find("format version 2"), std::string::npos)
      << spool.status().message();
  EXPECT_NE(spool.status().message().find("reads version 1"), std::string::npos);
}

TEST_F(SpoolTest, UnreadableSegmentIsMovedAsideAndTheRestRecovered) {
  {
    auto spool = OpenManual({.segment_bytes = 300, .sync = SyncMode::kAlways});
    for (int i = 0; i < 12; ++i) {
      Append(*spool, 100);
      spool->Pump();
    }
    spool->Stop();
  }
  const std::vector<std::string> paths = fs_.Paths();
  std::string victim;
  for (const std::string& path : paths) {
    if (path.ends_with(".seg") && victim.empty()) victim = path;
  }
  fs_.Inject({.op = Op::kRead, .path_contains = victim, .skip = 1, .times = -1});
  auto spool =
      Spool::Open(fs_, clock_, SpoolOptions{.directory = kDirectory, .max_bytes = 1 << 30}, "x");
  ASSERT_TRUE(spool.ok());
  const RecoveryReport report = (*spool)->Recover(nullptr);
  ASSERT_FALSE(report.problems.empty());
  EXPECT_NE(report.problems[0].find("moved"), std::string::npos) << report.problems[0];
  EXPECT_FALSE(fs_.Exists(victim));
  fs_.ClearFaults();
  const size_t recovered = ReadAll(fs_, (*spool)->segments()).size();
  EXPECT_GT(recovered, 0u);
  EXPECT_LT(recovered, 12u);
}

TEST_F(SpoolTest, WriterThreadAnswersConcurrentRequests) {
  auto spool = Spool::Open(fs_, clock_,
                           SpoolOptions{.directory = kDirectory,
                                        .max_bytes = 1 << 30,
                                        .segment_bytes = 4096,
                                        .sync = SyncMode::kAlways},
                           "x");
  ASSERT_TRUE(spool.ok());
  (*spool)->Recover(nullptr);
  (*spool)->Start(stream_, listener_, 0);
  std::atomic<int> answered{0};
  std::atomic<uint64_t> sequence{1};
  auto produce = [&] {
    for (int i = 0; i < 300; ++i) {
      const uint64_t end = stream_.Add(Record{.sequence = sequence++, .payload = "event"});
      (*spool)->Submit(end, [&](absl::Status status) {
        EXPECT_TRUE(status.ok());
        ++answered;
      });
    }
  };
  std::thread a(produce);
  std::thread b(produce);
  a.join();
  b.join();
  (*spool)->Stop();
  EXPECT_EQ(answered.load(), 600);
}

}  // namespace
}  // namespace rayagg::spool
