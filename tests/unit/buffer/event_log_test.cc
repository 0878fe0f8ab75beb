#include "buffer/event_log.h"

#include <gtest/gtest.h>

#include <atomic>
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
  auto set = Events({{kTaskDefinition, "def"}, {kTaskLifecycle, "life1"}, {kTaskLifecycle, "life2"}});
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
    total += log.Read(cursor, 1'000'000, batch);
    EXPECT_EQ(total % 10, 0u);
  }
  writer.join();
  EXPECT_EQ(total, kRequests * 10u);
}

}  // namespace
}  // namespace rayagg
