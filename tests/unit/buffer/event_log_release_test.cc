// The event log's read seam: reading does not release, every event comes with
// its position, reads tile a cursor's positions, and ranges released in any
// order move the cursor's released position only over a gapless prefix.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "buffer/event_log.h"

namespace rayagg {
namespace {

constexpr int32_t kTaskDefinition = 1;
constexpr int32_t kTaskLifecycle = 2;

// Owns the bytes behind IncomingEvent views.
struct EventSet {
  std::vector<std::string> payloads;
  std::vector<IncomingEvent> events;
};

// `count` events of `type` (ids and entity keys 0: no dedup, no coalescing).
EventSet Events(int32_t type, int count, int first = 0) {
  EventSet set;
  for (int i = first; i < first + count; ++i) set.payloads.push_back("e" + std::to_string(i));
  for (const std::string& payload : set.payloads) {
    set.events.push_back(IncomingEvent{payload, type, 0, 0});
  }
  return set;
}

std::vector<uint64_t> Positions(const EventBatch& batch) {
  std::vector<uint64_t> positions;
  for (size_t i = 0; i < batch.size(); ++i) positions.push_back(batch.position(i));
  return positions;
}

TEST(EventLogReleaseTest, ReadDoesNotReleaseAndReleaseMovesThePositionOutOfOrder) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  DropCounters drops;
  const auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  auto set = Events(kTaskDefinition, 30);
  ASSERT_TRUE(log.Append(set.events).ok());

  EventBatch first, second, third;
  const auto a = log.Read(cursor, 10, first);
  const auto b = log.Read(cursor, 10, second);
  const auto c = log.Read(cursor, 10, third);
  EXPECT_EQ(a.events, 10u);
  EXPECT_EQ(a.range, (PositionRange{0, 10}));
  EXPECT_EQ(b.range, (PositionRange{10, 20}));
  EXPECT_EQ(c.range, (PositionRange{20, 30}));
  EXPECT_EQ(second.position(0), 10u);
  EXPECT_EQ(second.position(9), 19u);
  EXPECT_EQ(log.ReleasedPosition(cursor), 0u);  // read, not released

  EXPECT_TRUE(log.Release(cursor, 20, 30));
  EXPECT_EQ(log.ReleasedPosition(cursor), 0u);
  EXPECT_TRUE(log.Release(cursor, 5, 10));  // a 413's second half first
  EXPECT_EQ(log.ReleasedPosition(cursor), 0u);
  EXPECT_TRUE(log.Release(cursor, 0, 5));
  EXPECT_EQ(log.ReleasedPosition(cursor), 10u);
  EXPECT_TRUE(log.Release(cursor, 10, 20));
  EXPECT_EQ(log.ReleasedPosition(cursor), 30u);
}

TEST(EventLogReleaseTest, RejectsReleasingTwiceOrPastWhatWasRead) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  DropCounters drops;
  const auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  auto set = Events(kTaskDefinition, 10);
  ASSERT_TRUE(log.Append(set.events).ok());
  EventBatch batch;
  ASSERT_EQ(log.Read(cursor, 4, batch).range, (PositionRange{0, 4}));
  EXPECT_FALSE(log.Release(cursor, 0, 5));  // 4 is appended but not read
  EXPECT_TRUE(log.Release(cursor, 0, 4));
  EXPECT_FALSE(log.Release(cursor, 2, 4));
  EXPECT_TRUE(log.Release(cursor, 4, 4));  // empty: nothing to do
  EXPECT_EQ(log.ReleasedPosition(cursor), 4u);
}

TEST(EventLogReleaseTest, ACursorStartsReleasedAtTheNewestEnd) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  DropCounters drops_a, drops_b;
  const auto early = log.AddCursor(EventTypeFilter::All(), drops_a, nullptr);
  auto set = Events(kTaskDefinition, 7);
  ASSERT_TRUE(log.Append(set.events).ok());
  const auto late = log.AddCursor(EventTypeFilter::All(), drops_b, nullptr);
  EXPECT_EQ(log.ReleasedPosition(early), 0u);
  EXPECT_EQ(log.ReleasedPosition(late), 7u);
  auto more = Events(kTaskDefinition, 3, 7);
  ASSERT_TRUE(log.Append(more.events).ok());
  EventBatch batch;
  const auto read = log.Read(late, 100, batch);
  EXPECT_EQ(read.range, (PositionRange{7, 10}));
  EXPECT_EQ(Positions(batch), (std::vector<uint64_t>{7, 8, 9}));
}

// Events of a type the cursor does not accept are inside the range of the
// read that passed them, so releasing that range covers them.
TEST(EventLogReleaseTest, ARangeCoversSkippedEventsOfOtherTypes) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  DropCounters drops;
  const auto cursor = log.AddCursor(EventTypeFilter::Of({kTaskLifecycle}), drops, nullptr);
  auto definitions = Events(kTaskDefinition, 3);
  auto lifecycle = Events(kTaskLifecycle, 2, 3);
  auto tail = Events(kTaskDefinition, 2, 5);
  ASSERT_TRUE(log.Append(definitions.events).ok());
  ASSERT_TRUE(log.Append(lifecycle.events).ok());
  ASSERT_TRUE(log.Append(tail.events).ok());
  EventBatch batch;
  const auto read = log.Read(cursor, 100, batch);
  EXPECT_EQ(read.events, 2u);
  EXPECT_EQ(Positions(batch), (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(read.range, (PositionRange{0, 7}));
  EXPECT_TRUE(log.Release(cursor, read.range.begin, read.range.end));
  EXPECT_EQ(log.ReleasedPosition(cursor), 7u);
}

// Events evicted before the cursor reached them were counted as overflow
// drops; the next read's range starts where the previous one ended, so they
// are released with it and the released position never sticks at a gap.
TEST(EventLogReleaseTest, TheNextReadCoversEventsEvictedUnread) {
  EventLog log({.max_events = 5, .max_bytes = 1 << 20});
  DropCounters drops;
  const auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  auto first = Events(kTaskDefinition, 2);
  ASSERT_TRUE(log.Append(first.events).ok());
  EventBatch batch;
  ASSERT_EQ(log.Read(cursor, 100, batch).range, (PositionRange{0, 2}));
  auto flood = Events(kTaskDefinition, 8, 2);  // positions 2..9; 2..4 evicted unread
  ASSERT_TRUE(log.Append(flood.events).ok());
  EXPECT_EQ(drops.Total(DropReason::kOverflow), 3u);
  batch.Clear();
  const auto read = log.Read(cursor, 100, batch);
  EXPECT_EQ(read.range, (PositionRange{2, 10}));
  EXPECT_EQ(Positions(batch), (std::vector<uint64_t>{5, 6, 7, 8, 9}));
  EXPECT_TRUE(log.Release(cursor, 2, 10));
  EXPECT_TRUE(log.Release(cursor, 0, 2));
  EXPECT_EQ(log.ReleasedPosition(cursor), 10u);
}

// In memory, memory is freed by reading, as before: the sink holds its own
// copy, so an unreleased range keeps no event in the log.
TEST(EventLogReleaseTest, MemoryIsFreedByReadingNotByReleasing) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  DropCounters drops;
  const auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  auto set = Events(kTaskDefinition, 10);
  ASSERT_TRUE(log.Append(set.events).ok());
  EventBatch batch;
  log.Read(cursor, 100, batch);
  EXPECT_EQ(log.GetSnapshot().held_events, 0u);
  EXPECT_EQ(log.GetSnapshot().held_bytes, 0u);
  EXPECT_EQ(log.ReleasedPosition(cursor), 0u);
}

class RefusingMerger final : public EventMerger {
 public:
  bool Merge(std::span<const std::string_view>, std::string&) override { return false; }
};

// Parts of a coalesced entry the merger refuses come back as separate
// events; they keep their entry's position.
TEST(EventLogReleaseTest, PartsOfARefusedMergeShareTheirEntrysPosition) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20},
               {.dedup_window_events = 0,
                .merger_factory = [] { return std::make_unique<RefusingMerger>(); }});
  DropCounters drops;
  const auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string a = "a", b1 = "b1", b2 = "b2", c = "c";
  const std::vector<IncomingEvent> events = {{a, kTaskLifecycle, 0, 1},
                                             {b1, kTaskLifecycle, 0, 2},
                                             {b2, kTaskLifecycle, 0, 2},
                                             {c, kTaskLifecycle, 0, 3}};
  ASSERT_TRUE(log.Append(events).ok());
  EventBatch batch;
  const auto read = log.Read(cursor, 100, batch);
  EXPECT_EQ(read.events, 4u);
  EXPECT_EQ(read.range, (PositionRange{0, 3}));
  EXPECT_EQ(Positions(batch), (std::vector<uint64_t>{0, 1, 1, 2}));
}

TEST(EventLogReleaseTest, ARemovedCursorReleasesNothing) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  DropCounters drops;
  const auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  auto set = Events(kTaskDefinition, 3);
  ASSERT_TRUE(log.Append(set.events).ok());
  EventBatch batch;
  log.Read(cursor, 100, batch);
  log.RemoveCursor(cursor);
  EXPECT_FALSE(log.Release(cursor, 0, 3));
}

}  // namespace
}  // namespace rayagg
