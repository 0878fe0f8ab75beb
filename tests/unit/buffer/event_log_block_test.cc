// when_full: block — a blocking cursor makes Append refuse (UNAVAILABLE,
// nothing inserted) rather than evict what it has not read; drop_oldest
// cursors next to it are untouched; coalescing keeps working.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "buffer/event_log.h"
#include "rayagg/event_merger.h"

namespace rayagg {
namespace {

constexpr int32_t kTaskLifecycle = 2;
constexpr int32_t kTaskProfile = 4;

IncomingEvent Event(const std::string& bytes, int32_t type, uint64_t id, uint64_t entity) {
  return IncomingEvent{bytes, type, id, entity};
}

size_t ReadCount(EventLog& log, EventLog::CursorId cursor, size_t max = 1000) {
  EventBatch batch;
  return log.Read(cursor, max, batch).events;
}

// Concatenates parts with '+', so a merge is visible in the bytes.
class JoiningMerger final : public EventMerger {
 public:
  bool Merge(std::span<const std::string_view> parts, std::string& out) override {
    out.clear();
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) out.push_back('+');
      out.append(parts[i]);
    }
    return true;
  }
};

TEST(EventLogBlockTest, RefusesInsteadOfEvictingUnreadAndNamesTheSink) {
  EventLog log({.max_events = 3, .max_bytes = 1 << 20});
  DropCounters drops;
  std::atomic<uint64_t> refusals{0};
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  log.BlockWhenFull(cursor, "archive", refusals);
  const std::string a = "a", b = "b", c = "c", d = "d";
  std::vector<IncomingEvent> three = {Event(a, 1, 1, 0), Event(b, 1, 2, 0), Event(c, 1, 3, 0)};
  ASSERT_TRUE(log.Append(three).ok());
  EXPECT_EQ(log.FullBlockingSink(), "archive");

  std::vector<IncomingEvent> one_more = {Event(d, 1, 4, 0)};
  const absl::Status refused = log.Append(one_more);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(std::string(refused.message()).find("\"archive\""), std::string::npos);
  EXPECT_EQ(refusals.load(), 1u);
  EXPECT_EQ(drops.Total(), 0u);
  EXPECT_EQ(log.GetSnapshot().held_events, 3u);
  EXPECT_EQ(log.GetSnapshot().appended_events, 3u);

  // Once the sink has read, the same request goes in.
  EXPECT_EQ(ReadCount(log, cursor, 1), 1u);
  EXPECT_EQ(log.FullBlockingSink(), std::nullopt);
  EXPECT_TRUE(log.Append(one_more).ok());
  EXPECT_EQ(ReadCount(log, cursor), 3u);
  EXPECT_EQ(drops.Total(), 0u);
}

TEST(EventLogBlockTest, ByteBoundBlocksToo) {
  EventLog log({.max_events = 100, .max_bytes = 10});
  DropCounters drops;
  std::atomic<uint64_t> refusals{0};
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  log.BlockWhenFull(cursor, "s", refusals);
  const std::string eight(8, 'x'), three(3, 'y');
  std::vector<IncomingEvent> first = {Event(eight, 1, 1, 0)};
  std::vector<IncomingEvent> second = {Event(three, 1, 2, 0)};
  ASSERT_TRUE(log.Append(first).ok());
  EXPECT_EQ(log.Append(second).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(ReadCount(log, cursor), 1u);
  EXPECT_TRUE(log.Append(second).ok());
}

TEST(EventLogBlockTest, DropOldestCursorsStillLoseTheirOwnUnreadEvents) {
  EventLog log({.max_events = 2, .max_bytes = 1 << 20});
  DropCounters blocking_drops, lossy_drops;
  std::atomic<uint64_t> refusals{0};
  auto blocking = log.AddCursor(EventTypeFilter::All(), blocking_drops, nullptr);
  auto lossy = log.AddCursor(EventTypeFilter::All(), lossy_drops, nullptr);
  log.BlockWhenFull(blocking, "blocking", refusals);
  const std::string a = "a", b = "b", c = "c";
  std::vector<IncomingEvent> two = {Event(a, 1, 1, 0), Event(b, 1, 2, 0)};
  ASSERT_TRUE(log.Append(two).ok());
  EXPECT_EQ(ReadCount(log, blocking), 2u);
  // Full, but the blocking sink has read everything: the lossy one pays.
  std::vector<IncomingEvent> third = {Event(c, 1, 3, 0)};
  ASSERT_TRUE(log.Append(third).ok());
  EXPECT_EQ(lossy_drops.Total(DropReason::kOverflow), 1u);
  EXPECT_EQ(refusals.load(), 0u);
  EXPECT_EQ(ReadCount(log, lossy), 2u);
}

TEST(EventLogBlockTest, TypesTheBlockingSinkDoesNotAcceptNeverBlock) {
  EventLog log({.max_events = 2, .max_bytes = 1 << 20});
  DropCounters blocking_drops, all_drops;
  std::atomic<uint64_t> refusals{0};
  auto blocking = log.AddCursor(EventTypeFilter::Of({kTaskLifecycle}), blocking_drops, nullptr);
  auto all = log.AddCursor(EventTypeFilter::All(), all_drops, nullptr);
  log.BlockWhenFull(blocking, "lifecycle-only", refusals);
  const std::string p1 = "p1", p2 = "p2", p3 = "p3";
  std::vector<IncomingEvent> profiles = {
      Event(p1, kTaskProfile, 1, 0), Event(p2, kTaskProfile, 2, 0), Event(p3, kTaskProfile, 3, 0)};
  EXPECT_TRUE(log.Append(profiles).ok());
  EXPECT_EQ(all_drops.Total(DropReason::kOverflow), 1u);
  EXPECT_EQ(refusals.load(), 0u);
  (void)blocking;
  (void)all;
}

TEST(EventLogBlockTest, CoalescingStillMergesWhileBlocking) {
  EventLog log({.max_events = 2, .max_bytes = 1 << 20},
               {.dedup_window_events = 0,
                .merger_factory = [] { return std::make_unique<JoiningMerger>(); }});
  DropCounters drops;
  std::atomic<uint64_t> refusals{0};
  auto cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  log.BlockWhenFull(cursor, "s", refusals);
  const std::string l1 = "l1", x = "x", l2 = "l2", y = "y";
  std::vector<IncomingEvent> first = {Event(l1, kTaskLifecycle, 1, 42),
                                      Event(x, kTaskLifecycle, 2, 43)};
  ASSERT_TRUE(log.Append(first).ok());
  // Full by events; a request that needs a new entry is refused...
  std::vector<IncomingEvent> new_entity = {Event(y, kTaskLifecycle, 3, 44)};
  EXPECT_EQ(log.Append(new_entity).code(), absl::StatusCode::kUnavailable);
  // ...and after a read, parts link at Append and merge at Read as before.
  EventBatch batch;
  ASSERT_EQ(log.Read(cursor, 1, batch).events, 1u);
  std::vector<IncomingEvent> second = {Event(l2, kTaskLifecycle, 4, 43)};
  ASSERT_TRUE(log.Append(second).ok());
  EventBatch rest;
  ASSERT_EQ(log.Read(cursor, 10, rest).events, 1u);
  EXPECT_EQ(rest.bytes(0), "x+l2");
  EXPECT_EQ(rest.received_count(0), 2u);
}

}  // namespace
}  // namespace rayagg
