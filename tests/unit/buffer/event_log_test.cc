#include "buffer/event_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace rayagg {
namespace {

constexpr int32_t kTaskDefinition = 1;
constexpr int32_t kTaskLifecycle = 2;
constexpr int32_t kTaskProfile = 4;

// Owns the bytes behind IncomingEvent views.
struct EventSet {
  std::vector<std::string> payloads;
  std::vector<int32_t> types;
  std::vector<IncomingEvent> events;
};

EventSet Events(std::initializer_list<std::pair<int32_t, std::string>> items) {
  EventSet set;
  for (const auto& [type, payload] : items) {
    set.payloads.push_back(payload);
    set.types.push_back(type);
  }
  for (size_t i = 0; i < set.payloads.size(); ++i) {
    set.events.push_back(IncomingEvent{set.payloads[i], set.types[i], i + 1, 0});
  }
  return set;
}

std::vector<std::string> ReadAll(EventLog& log, EventLog::CursorId cursor, size_t max = 1000) {
  EventBatch batch;
  log.Read(cursor, max, batch);
  std::vector<std::string> out;
  for (size_t i = 0; i < batch.size(); ++i) out.emplace_back(batch.bytes(i));
  return out;
}

TEST(EventLogTest, EachCursorReadsEveryAcceptedEventInOrder) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  DropCounters drops_a, drops_b;
  auto a = log.AddCursor(EventTypeFilter::All(), drops_a, nullptr);
  auto b = log.AddCursor(EventTypeFilter::Of({kTaskLifecycle}), drops_b, nullptr);
  auto set =
      Events({{kTaskDefinition, "def"}, {kTaskLifecycle, "life1"}, {kTaskLifecycle, "life2"}});
  ASSERT_TRUE(log.Append(set.events).ok());

  EXPECT_EQ(ReadAll(log, a), (std::vector<std::string>{"def", "life1", "life2"}));
  EXPECT_EQ(ReadAll(log, b), (std::vector<std::string>{"life1", "life2"}));
  EXPECT_EQ(log.GetSnapshot().held_events, 0u);  // both passed everything
  EXPECT_EQ(log.GetSnapshot().held_bytes, 0u);
}

TEST(EventLogTest, ReadStopsAtMaxEventsAndResumes) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  auto set = Events({{1, "a"}, {1, "b"}, {1, "c"}});
  ASSERT_TRUE(log.Append(set.events).ok());
  EXPECT_EQ(ReadAll(log, cursor, 2), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(log.HasUnread(cursor));
  EXPECT_EQ(log.GetSnapshot().held_events, 1u);
  EXPECT_EQ(ReadAll(log, cursor, 2), (std::vector<std::string>{"c"}));
  EXPECT_FALSE(log.HasUnread(cursor));
}

TEST(EventLogTest, OverflowDropsOldestAndCountsOnlyForSinksThatHadNotReadIt) {
  EventLog log({.max_events = 2, .max_bytes = 1 << 20});
  DropCounters fast_drops, slow_drops;
  auto fast = log.AddCursor(EventTypeFilter::All(), fast_drops, nullptr);
  auto slow = log.AddCursor(EventTypeFilter::All(), slow_drops, nullptr);
  auto first = Events({{kTaskDefinition, "1"}, {kTaskLifecycle, "2"}});
  ASSERT_TRUE(log.Append(first.events).ok());
  EXPECT_EQ(ReadAll(log, fast).size(), 2u);

  auto more = Events({{kTaskLifecycle, "3"}, {kTaskLifecycle, "4"}});
  ASSERT_TRUE(log.Append(more.events).ok());

  EXPECT_EQ(fast_drops.Total(), 0u);
  EXPECT_EQ(slow_drops.Total(DropReason::kOverflow), 2u);
  auto snapshot = slow_drops.Snapshot();
  EXPECT_EQ((snapshot[{DropReason::kOverflow, kTaskDefinition}]), 1u);
  EXPECT_EQ((snapshot[{DropReason::kOverflow, kTaskLifecycle}]), 1u);
  EXPECT_EQ(ReadAll(log, slow), (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(ReadAll(log, fast), (std::vector<std::string>{"3", "4"}));
}

TEST(EventLogTest, OverflowOfATypeASinkFiltersOutIsNotItsDrop) {
  EventLog log({.max_events = 1, .max_bytes = 1 << 20});
  DropCounters drops;
  log.AddCursor(EventTypeFilter::Of({kTaskLifecycle}), drops, nullptr);
  auto set = Events({{kTaskProfile, "p1"}, {kTaskProfile, "p2"}, {kTaskLifecycle, "l"}});
  ASSERT_TRUE(log.Append(set.events).ok());
  EXPECT_EQ(drops.Total(), 0u);
}

TEST(EventLogTest, ByteBoundEvictsOldest) {
  EventLog log({.max_events = 100, .max_bytes = 10});
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  auto set = Events({{1, "aaaa"}, {1, "bbbb"}, {1, "cccc"}});
  ASSERT_TRUE(log.Append(set.events).ok());
  EXPECT_EQ(log.GetSnapshot().held_bytes, 8u);
  EXPECT_EQ(drops.Total(DropReason::kOverflow), 1u);
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"bbbb", "cccc"}));
}

TEST(EventLogTest, EventLargerThanTheWholeBufferIsDroppedAsTooLarge) {
  EventLog log({.max_events = 100, .max_bytes = 4});
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  auto set = Events({{1, "ok"}, {1, "much too large"}});
  ASSERT_TRUE(log.Append(set.events).ok());
  EXPECT_EQ(drops.Total(DropReason::kTooLarge), 1u);
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"ok"}));
}

TEST(EventLogTest, WithoutReadersNothingIsHeld) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  auto set = Events({{1, "a"}, {1, "b"}});
  ASSERT_TRUE(log.Append(set.events).ok());
  EXPECT_EQ(log.GetSnapshot().held_events, 0u);
  EXPECT_EQ(log.GetSnapshot().appended_events, 2u);
}

TEST(EventLogTest, NotifiesOnlyCursorsThatAcceptAnAppendedType) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20});
  DropCounters drops_a, drops_b;
  int notified_a = 0, notified_b = 0;
  log.AddCursor(EventTypeFilter::Of({kTaskDefinition}), drops_a, [&] { ++notified_a; });
  log.AddCursor(EventTypeFilter::Of({kTaskLifecycle}), drops_b, [&] { ++notified_b; });
  auto set = Events({{kTaskDefinition, "a"}, {kTaskDefinition, "b"}});
  ASSERT_TRUE(log.Append(set.events).ok());
  EXPECT_EQ(notified_a, 1);  // once per Append, not per event
  EXPECT_EQ(notified_b, 0);
}

TEST(EventLogTest, RequestIsInsertedAtomicallyWithRespectToReaders) {
  // Readers racing with appends of 10-event requests must always see whole
  // requests: the count read so far is a multiple of 10 whenever the log is
  // drained.
  EventLog log({.max_events = 1'000'000, .max_bytes = 1 << 30});
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  constexpr int kRequests = 2000;
  std::vector<std::string> payloads(10, std::string(16, 'x'));
  std::vector<IncomingEvent> request;
  for (const auto& payload : payloads) request.push_back(IncomingEvent{payload, 1, 0, 0});

  std::atomic<bool> done{false};
  std::jthread writer([&] {
    for (int i = 0; i < kRequests; ++i) ASSERT_TRUE(log.Append(request).ok());
    done = true;
  });
  size_t total = 0;
  while (!done || log.HasUnread(cursor)) {
    EventBatch batch;
    total += log.Read(cursor, 1'000'000, batch).events;
    EXPECT_EQ(total % 10, 0u);
  }
  writer.join();
  EXPECT_EQ(total, kRequests * 10u);
}

// Joins payloads with '+', so tests can see exactly what was merged.
class JoiningMerger final : public EventMerger {
 public:
  bool Merge(std::span<const std::string_view> parts, std::string& merged) override {
    merged.clear();
    for (const std::string_view part : parts) {
      if (part == "unmergeable") return false;
      if (!merged.empty()) merged += '+';
      merged += part;
    }
    return true;
  }
};

EventLog::Options Coalescing(uint64_t dedup_window = 100) {
  return EventLog::Options{.dedup_window_events = dedup_window,
                           .merger_factory = [] { return std::make_unique<JoiningMerger>(); }};
}

IncomingEvent Event(const std::string& bytes, int32_t type, uint64_t id, uint64_t entity) {
  return IncomingEvent{bytes, type, id, entity};
}

TEST(EventLogDedupTest, DropsAnIdSeenWithinTheWindowAndCountsItOnce) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20},
               {.dedup_window_events = 2, .merger_factory = nullptr});
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string a = "a", b = "b", c = "c";
  std::vector<IncomingEvent> first = {Event(a, 1, 11, 0), Event(a, 1, 11, 0), Event(b, 1, 12, 0)};
  ASSERT_TRUE(log.Append(first).ok());
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"a", "b"}));
  // 11 is still in a window of 2; after 13 it is forgotten.
  std::vector<IncomingEvent> second = {Event(a, 1, 11, 0), Event(c, 1, 13, 0), Event(a, 1, 11, 0)};
  ASSERT_TRUE(log.Append(second).ok());
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(log.GetSnapshot().deduplicated_events, 2u);
  EXPECT_EQ(log.GetSnapshot().appended_events, 6u);
  EXPECT_EQ(drops.Total(), 0u);  // not a per-sink drop
}

TEST(EventLogDedupTest, EventsWithoutAnIdAreNeverDeduplicated) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20},
               {.dedup_window_events = 100, .merger_factory = nullptr});
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string a = "a";
  std::vector<IncomingEvent> events = {Event(a, 1, 0, 0), Event(a, 1, 0, 0),
                                       Event(a, 1, HashEventId(""), 0),
                                       Event(a, 1, HashEventId(""), 0)};
  ASSERT_TRUE(log.Append(events).ok());
  EXPECT_EQ(ReadAll(log, cursor).size(), 4u);
  EXPECT_EQ(log.GetSnapshot().deduplicated_events, 0u);
}

TEST(EventLogDedupTest, WindowOfZeroKeepsEverything) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20},
               {.dedup_window_events = 0, .merger_factory = nullptr});
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string a = "a";
  std::vector<IncomingEvent> events = {Event(a, 1, 7, 0), Event(a, 1, 7, 0)};
  ASSERT_TRUE(log.Append(events).ok());
  EXPECT_EQ(ReadAll(log, cursor).size(), 2u);
}

TEST(EventLogCoalesceTest, MergesWhileUnreadAndNotAfterwards) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20}, Coalescing());
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string l1 = "l1", l2 = "l2", l3 = "l3", other = "x";
  std::vector<IncomingEvent> first = {Event(l1, kTaskLifecycle, 1, 42),
                                      Event(other, kTaskLifecycle, 2, 43),
                                      Event(l2, kTaskLifecycle, 3, 42)};
  ASSERT_TRUE(log.Append(first).ok());
  EXPECT_EQ(log.GetSnapshot().held_events, 2u);
  EXPECT_EQ(log.GetSnapshot().held_bytes, 5u);  // parts "l1", "l2" and "x"
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"l1+l2", "x"}));
  // Read: a later event of the same entity is a new entry.
  std::vector<IncomingEvent> second = {Event(l3, kTaskLifecycle, 4, 42)};
  ASSERT_TRUE(log.Append(second).ok());
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"l3"}));
  EXPECT_EQ(log.GetSnapshot().coalesced_events, 1u);
}

TEST(EventLogCoalesceTest, AnyCursorAcceptingTheTypeHavingReadItPreventsMerging) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20}, Coalescing());
  DropCounters fast_drops, slow_drops, other_drops;
  auto fast = log.AddCursor(EventTypeFilter::All(), fast_drops, nullptr);
  auto slow = log.AddCursor(EventTypeFilter::All(), slow_drops, nullptr);
  // Reads past everything, but never accepts lifecycle events: irrelevant.
  auto other = log.AddCursor(EventTypeFilter::Of({kTaskProfile}), other_drops, nullptr);
  const std::string l1 = "l1", l2 = "l2";
  std::vector<IncomingEvent> first = {Event(l1, kTaskLifecycle, 1, 42)};
  ASSERT_TRUE(log.Append(first).ok());
  EXPECT_TRUE(ReadAll(log, other).empty());
  EXPECT_EQ(ReadAll(log, fast), (std::vector<std::string>{"l1"}));
  std::vector<IncomingEvent> second = {Event(l2, kTaskLifecycle, 2, 42)};
  ASSERT_TRUE(log.Append(second).ok());
  EXPECT_EQ(ReadAll(log, slow), (std::vector<std::string>{"l1", "l2"}));
  EXPECT_EQ(log.GetSnapshot().coalesced_events, 0u);
}

TEST(EventLogCoalesceTest, ACursorAddedAfterTheEntryPreventsMerging) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20}, Coalescing());
  DropCounters old_drops, new_drops;
  auto old_cursor = log.AddCursor(EventTypeFilter::All(), old_drops, nullptr);
  const std::string l1 = "l1", l2 = "l2";
  std::vector<IncomingEvent> first = {Event(l1, kTaskLifecycle, 1, 42)};
  ASSERT_TRUE(log.Append(first).ok());
  auto new_cursor = log.AddCursor(EventTypeFilter::All(), new_drops, nullptr);
  std::vector<IncomingEvent> second = {Event(l2, kTaskLifecycle, 2, 42)};
  ASSERT_TRUE(log.Append(second).ok());
  EXPECT_EQ(ReadAll(log, new_cursor), (std::vector<std::string>{"l2"}));
  EXPECT_EQ(ReadAll(log, old_cursor), (std::vector<std::string>{"l1", "l2"}));
}

TEST(EventLogCoalesceTest, NeverAcrossTypesOrForKeyZeroOrWhenTheMergerDeclines) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20}, Coalescing());
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string a = "a", b = "b", p1 = "p1", p2 = "p2", bad = "unmergeable";
  std::vector<IncomingEvent> events = {Event(a, kTaskLifecycle, 1, 42),
                                       Event(b, kTaskDefinition, 2, 42),  // same key, other type
                                       Event(p1, 15, 3, 0), Event(p2, 15, 4, 0),  // platform: key 0
                                       Event(bad, kTaskDefinition, 5, 42)};
  ASSERT_TRUE(log.Append(events).ok());
  // A refused merge delivers the parts separately, in the entity's order, at
  // the place of the entry they joined.
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"a", "b", "unmergeable", "p1", "p2"}));
}

TEST(EventLogCoalesceTest, DuplicateOfAMergedAwayEventIsStillDropped) {
  EventLog log({.max_events = 100, .max_bytes = 1 << 20}, Coalescing());
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string l1 = "l1", l2 = "l2";
  std::vector<IncomingEvent> events = {Event(l1, kTaskLifecycle, 1, 42),
                                       Event(l2, kTaskLifecycle, 2, 42),
                                       Event(l2, kTaskLifecycle, 2, 42)};
  ASSERT_TRUE(log.Append(events).ok());
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"l1+l2"}));
  EXPECT_EQ(log.GetSnapshot().deduplicated_events, 1u);
}

TEST(EventLogCoalesceTest, EvictingAMergedEntryCountsEveryEventItHolds) {
  EventLog log({.max_events = 1, .max_bytes = 1 << 20}, Coalescing());
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string l1 = "l1", l2 = "l2", l3 = "l3", d = "d";
  std::vector<IncomingEvent> events = {
      Event(l1, kTaskLifecycle, 1, 42), Event(l2, kTaskLifecycle, 2, 42),
      Event(l3, kTaskLifecycle, 3, 42), Event(d, kTaskDefinition, 4, 7)};
  ASSERT_TRUE(log.Append(events).ok());
  EXPECT_EQ((drops.Snapshot()[{DropReason::kOverflow, kTaskLifecycle}]), 3u);
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"d"}));
}

TEST(EventLogCoalesceTest, APartPastTheByteBoundEvictsLikeAnAppend) {
  EventLog log({.max_events = 100, .max_bytes = 6}, Coalescing());
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string l1 = "1111", l2 = "2222";
  std::vector<IncomingEvent> events = {Event(l1, kTaskLifecycle, 1, 42),
                                       Event(l2, kTaskLifecycle, 2, 42)};
  ASSERT_TRUE(log.Append(events).ok());
  // Room for "2222" meant evicting the entry it would have joined.
  EXPECT_EQ(ReadAll(log, cursor), (std::vector<std::string>{"2222"}));
  EXPECT_EQ((drops.Snapshot()[{DropReason::kOverflow, kTaskLifecycle}]), 1u);
  EXPECT_EQ(log.GetSnapshot().coalesced_events, 0u);
}

TEST(EventLogCoalesceTest, ALongChainStartsANewEntryAtThePartLimit) {
  EventLog log({.max_events = 1000, .max_bytes = 1 << 20}, Coalescing(0));
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string x = "x";
  const uint32_t total = EventLog::kMaxPartsPerEntry + 3;
  std::vector<IncomingEvent> events(total, Event(x, kTaskLifecycle, 0, 42));
  ASSERT_TRUE(log.Append(events).ok());
  const std::vector<std::string> read = ReadAll(log, cursor);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(std::count(read[0].begin(), read[0].end(), 'x'), EventLog::kMaxPartsPerEntry);
  EXPECT_EQ(read[1], "x+x+x");
  EXPECT_EQ(log.GetSnapshot().coalesced_events, total - 2);
}

TEST(EventLogCoalesceTest, CoalescedPartsAreFreedWithTheirChunks) {
  // Small chunks, one entity merged many times, read now and then: memory
  // must come back once everything is read.
  EventLog log({.max_events = 100, .max_bytes = 4096}, Coalescing(0), /*chunk_bytes=*/256);
  DropCounters drops;
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  const std::string x = "xxxxxxxx";
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 10; ++i) {
      std::vector<IncomingEvent> one = {Event(x, kTaskLifecycle, 0, 42)};
      ASSERT_TRUE(log.Append(one).ok());
    }
    EXPECT_LE(log.GetSnapshot().reserved_bytes, 3 * 4096u + 256u);
    ReadAll(log, cursor);
  }
  EXPECT_EQ(log.GetSnapshot().held_bytes, 0u);
  EXPECT_EQ(drops.Total(), 0u);
}

}  // namespace
}  // namespace rayagg
