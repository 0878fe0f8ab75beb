// The batcher against a scripted reader and the real JSON encoder: where
// batches are cut, what is dropped, and which positions each batch (or 413
// slice) answers for. No sockets, no time.
#include "sinks/batcher.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/fake_event_reader.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;

constexpr int32_t kDefinition = RayEvent::TASK_DEFINITION_EVENT;
constexpr int32_t kLifecycle = RayEvent::TASK_LIFECYCLE_EVENT;

// Same-sized events: ids and messages padded to three digits.
std::string Serialized(int32_t type, int index, size_t message_bytes = 4) {
  char digits[8];
  std::snprintf(digits, sizeof(digits), "%03d", index % 1000);
  RayEvent event;
  event.set_event_id(std::string("event-") + digits);
  event.set_event_type(static_cast<RayEvent::EventType>(type));
  std::string message = std::string("m") + digits;
  message.resize(std::max(message.size(), message_bytes), 'x');
  event.set_message(message);
  return event.SerializeAsString();
}
// Not a RayEvent: field 1, length-delimited, 255 bytes announced, none there.
const std::string kGarbage("\x0a\xff", 2);

size_t ElementBytes() {
  std::string out;
  EXPECT_TRUE(MakeFastJsonEncoder({})->AppendEvent(Serialized(kDefinition, 0), out).ok());
  return out.size();
}
// A body limit that fits exactly `n` normal elements.
uint64_t BytesFor(size_t n) { return 2 + n * ElementBytes() + (n - 1); }

// What one row scripts: 'e' a normal event of the row's type, 'o' one of
// another type (the cursor skips it), 'g' garbage, 'L' an event larger than
// any body.
struct Row {
  std::string name;
  std::string script;
  uint64_t max_events;
  size_t max_elements_by_bytes;  // 0: no byte limit in play
  // Per batch cut: its elements' positions and its range.
  std::vector<std::vector<uint64_t>> positions;
  std::vector<PositionRange> ranges;
  uint64_t too_large = 0;
  uint64_t encode_errors = 0;
};

std::vector<Row> Rows() {
  return {
      {"cut_by_max_events",
       "eeeeeeeeeeeeeeeeeeeeeeeee",
       10,
       0,
       {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
        {10, 11, 12, 13, 14, 15, 16, 17, 18, 19},
        {20, 21, 22, 23, 24}},
       {{0, 10}, {10, 20}, {20, 25}}},
      // Leftovers after a byte cut stay in front of the next batch.
      {"cut_by_max_bytes",
       "eeeeeeeee",
       5,
       3,
       {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}},
       {{0, 3}, {3, 6}, {6, 9}}},
      // The large event cuts the first batch, then is dropped alone; its
      // position is released inside the next batch's range.
      {"too_large_single_event", "eLe", 10, 3, {{0}, {2}}, {{0, 1}, {1, 3}}, 1, 0},
      {"encode_error", "ege", 10, 0, {{0, 2}}, {{0, 3}}, 0, 1},
      // Nothing left to deliver: the empty batch's range is released at once.
      {"empty_batch", "gg", 10, 0, {{}}, {{2, 2}}, 0, 2},
      {"skipped_types_inside_the_range", "eoe", 10, 0, {{0, 2}}, {{0, 3}}},
      // Trailing skipped events are read with the batch and in its range.
      {"skipped_types_at_the_end", "eoo", 10, 0, {{0}}, {{0, 3}}},
      // A read that stages nothing is released without a batch.
      {"only_skipped_types", "ooo", 10, 0, {}, {}},
  };
}

class BatcherTable : public ::testing::TestWithParam<Row> {};

TEST_P(BatcherTable, CutsBatchesAndTheirRanges) {
  const Row& row = GetParam();
  FakeEventReader reader;
  DropCounters drops;
  const auto cursor = reader.AddCursor(EventTypeFilter::Of({kDefinition}), drops, nullptr);
  BatchConfig config;
  config.max_events = row.max_events;
  if (row.max_elements_by_bytes > 0) config.max_bytes = BytesFor(row.max_elements_by_bytes);
  Batcher batcher(reader, cursor, config, MakeFastJsonEncoder({}), drops);
  int index = 0;
  for (const char kind : row.script) {
    switch (kind) {
      case 'e':
        reader.Append(kDefinition, Serialized(kDefinition, index));
        break;
      case 'o':
        reader.Append(kLifecycle, Serialized(kLifecycle, index));
        break;
      case 'g':
        reader.Append(kDefinition, kGarbage);
        break;
      case 'L':
        reader.Append(kDefinition, Serialized(kDefinition, index, 100'000));
        break;
      default:
        FAIL() << "unknown script letter " << kind;
    }
    ++index;
  }

  std::vector<std::vector<uint64_t>> positions;
  std::vector<PositionRange> ranges;
  Batcher::EncodeDrops dropped;
  for (int guard = 0; guard < 100; ++guard) {
    batcher.Refill();
    if (batcher.staged_count() == 0) break;
    OutgoingBatch batch = batcher.Encode(dropped);
    positions.push_back(batch.positions);
    ranges.push_back(batch.range);
    ASSERT_EQ(nlohmann::json::parse(batch.body).size(), batch.size());
    ASSERT_LE(batch.size(), config.max_events);
    ASSERT_LE(batch.body.size(), config.max_bytes);
    if (batch.size() > 0) {
      EXPECT_TRUE(batcher.Release(batch.range));  // delivered
    }
  }
  EXPECT_EQ(positions, row.positions);
  EXPECT_EQ(ranges, row.ranges);
  EXPECT_EQ(dropped.too_large, row.too_large);
  EXPECT_EQ(dropped.encode_errors, row.encode_errors);
  EXPECT_EQ(drops.Total(DropReason::kTooLarge), row.too_large);
  EXPECT_EQ(drops.Total(DropReason::kEncodeError), row.encode_errors);
  EXPECT_EQ(dropped.first_encode_error.empty(), row.encode_errors == 0);
  // Every position was read, and delivered, dropped or skipped: all released.
  EXPECT_EQ(reader.ReleasedPosition(cursor), reader.end_position());
}

INSTANTIATE_TEST_SUITE_P(Rows, BatcherTable, ::testing::ValuesIn(Rows()),
                         [](const ::testing::TestParamInfo<Row>& row_info) {
                           return row_info.param.name;
                         });

class BatcherTest : public ::testing::Test {
 protected:
  BatcherTest()
      : cursor_(reader_.AddCursor(EventTypeFilter::All(), drops_, nullptr)),
        batcher_(reader_, cursor_, Config(), MakeFastJsonEncoder({}), drops_) {}

  static BatchConfig Config() {
    BatchConfig config;
    config.max_events = 10;
    return config;
  }
  void Append(int count) {
    for (int i = 0; i < count; ++i) reader_.Append(kDefinition, Serialized(kDefinition, next_++));
  }
  OutgoingBatch Cut() {
    batcher_.Refill();
    Batcher::EncodeDrops dropped;
    return batcher_.Encode(dropped);
  }

  FakeEventReader reader_;
  DropCounters drops_;
  EventReader::CursorId cursor_;
  Batcher batcher_;
  int next_ = 0;
};

// A 413 splits a batch in halves, and halves again: every slice answers for
// its own part of the parent's range, and together they cover it exactly.
TEST_F(BatcherTest, SlicesTileTheParentRange) {
  reader_.Append(kLifecycle, Serialized(kLifecycle, 99));  // position 0, before the batch
  Append(7);
  reader_.Append(kLifecycle, Serialized(kLifecycle, 98));  // position 8, after it
  reader_.SetCursorFilter(cursor_, EventTypeFilter::Of({kDefinition}));
  const OutgoingBatch batch = Cut();
  ASSERT_EQ(batch.size(), 7u);
  EXPECT_EQ(batch.range, (PositionRange{0, 9}));

  const OutgoingBatch first = batch.Slice(0, 3);
  const OutgoingBatch second = batch.Slice(3, 7);
  EXPECT_EQ(first.range, (PositionRange{0, 4}));
  EXPECT_EQ(second.range, (PositionRange{4, 9}));
  EXPECT_EQ(first.positions, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(second.positions, (std::vector<uint64_t>{4, 5, 6, 7}));
  const OutgoingBatch second_a = second.Slice(0, 2);
  const OutgoingBatch second_b = second.Slice(2, 4);
  EXPECT_EQ(second_a.range, (PositionRange{4, 6}));
  EXPECT_EQ(second_b.range, (PositionRange{6, 9}));
  const OutgoingBatch single = batch.Slice(6, 7);
  EXPECT_EQ(single.range, (PositionRange{7, 9}));

  const auto elements = nlohmann::json::parse(batch.body);
  const auto a = nlohmann::json::parse(first.body);
  const auto b = nlohmann::json::parse(second_b.body);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[0], elements[0]);
  EXPECT_EQ(b[1], elements[6]);

  // Halves released out of order: the position moves only past a gapless
  // prefix.
  EXPECT_TRUE(batcher_.Release(second_b.range));
  EXPECT_TRUE(batcher_.Release(first.range));
  EXPECT_EQ(reader_.ReleasedPosition(cursor_), 4u);
  EXPECT_TRUE(batcher_.Release(second_a.range));
  EXPECT_EQ(reader_.ReleasedPosition(cursor_), 9u);
  EXPECT_FALSE(batcher_.Release(first.range));  // twice: refused
}

TEST_F(BatcherTest, BatchesReleasedOutOfOrderMoveThePositionOnlyWhenAllBeforeAreDone) {
  Append(30);
  const OutgoingBatch a = Cut();
  const OutgoingBatch b = Cut();
  const OutgoingBatch c = Cut();
  EXPECT_EQ(reader_.ReleasedPosition(cursor_), 0u);  // read, not released
  EXPECT_TRUE(batcher_.Release(c.range));
  EXPECT_TRUE(batcher_.Release(a.range));
  EXPECT_EQ(reader_.ReleasedPosition(cursor_), 10u);
  EXPECT_TRUE(batcher_.Release(b.range));
  EXPECT_EQ(reader_.ReleasedPosition(cursor_), 30u);
}

// A finished batch's buffers are reused by a later one (no fresh body per
// batch), emptied first, and no more are kept than asked for.
TEST_F(BatcherTest, RecycledBatchBuffersAreReusedEmptiedAndBounded) {
  Append(30);
  OutgoingBatch a = Cut();
  const std::string first_body = a.body;
  const char* const reused = a.body.data();
  EXPECT_TRUE(batcher_.Release(a.range));
  batcher_.Recycle(std::move(a), /*keep=*/1);
  const OutgoingBatch b = Cut();
  EXPECT_EQ(b.body.data(), reused);
  EXPECT_EQ(b.size(), 10u);
  EXPECT_EQ(b.positions, (std::vector<uint64_t>{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}));
  EXPECT_EQ(b.range, (PositionRange{10, 20}));
  ASSERT_EQ(nlohmann::json::parse(b.body).size(), 10u);
  EXPECT_NE(b.body, first_body);

  // A recycled batch's positions are gone with it: the next cut goes on from
  // the read position, not from the recycled batch's range.
  OutgoingBatch c = Cut();
  EXPECT_EQ(c.range, (PositionRange{20, 30}));
  batcher_.Recycle(std::move(c), /*keep=*/1);
  Append(10);
  const OutgoingBatch d = Cut();
  EXPECT_EQ(d.range, (PositionRange{30, 40}));
  EXPECT_EQ(d.positions.front(), 30u);
  EXPECT_EQ(d.size(), 10u);
  EXPECT_EQ(batcher_.spare_batches(), 0u);

  // No more are kept than asked for.
  batcher_.Recycle(OutgoingBatch{}, /*keep=*/2);
  batcher_.Recycle(OutgoingBatch{}, /*keep=*/2);
  batcher_.Recycle(OutgoingBatch{}, /*keep=*/2);
  EXPECT_EQ(batcher_.spare_batches(), 2u);
}

// Parts of a coalesced entry the merger refused share a position. Cut
// between batches, the entry belongs to the later batch's range; the earlier
// one's range ends at it, so the position passes the entry only when both
// are released.
TEST_F(BatcherTest, PartsOfOneEntryCutBetweenBatchesAreReleasedWithBoth) {
  Append(2);                                                               // 0, 1
  reader_.AppendAtLastPosition(kDefinition, Serialized(kDefinition, 50));  // 1 again
  Append(1);                                                               // 2
  batcher_.Reconfigure(BatchConfig{.max_events = 2}, MakeFastJsonEncoder({}));
  const OutgoingBatch first = Cut();
  const OutgoingBatch second = Cut();
  EXPECT_EQ(first.positions, (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(first.range, (PositionRange{0, 1}));
  EXPECT_EQ(second.positions, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(second.range, (PositionRange{1, 3}));
  EXPECT_TRUE(batcher_.Release(second.range));
  EXPECT_EQ(reader_.ReleasedPosition(cursor_), 0u);
  EXPECT_TRUE(batcher_.Release(first.range));
  EXPECT_EQ(reader_.ReleasedPosition(cursor_), 3u);
}

// At the drain deadline: staged and unread events are counted as shutdown
// drops and released, so the position reaches the end.
TEST_F(BatcherTest, DropUndeliveredCountsAndReleasesStagedAndUnread) {
  Append(25);
  const OutgoingBatch in_flight = Cut();  // 0..9, still out
  batcher_.Refill();                      // 10..19 staged
  EXPECT_EQ(batcher_.staged_count(), 10u);
  batcher_.DropUndelivered(DropReason::kShutdown);
  EXPECT_EQ(drops_.Total(DropReason::kShutdown), 15u);
  EXPECT_EQ(batcher_.staged_count(), 0u);
  EXPECT_EQ(reader_.ReleasedPosition(cursor_), 0u);  // the batch in flight holds it
  EXPECT_TRUE(batcher_.Release(in_flight.range));
  EXPECT_EQ(reader_.ReleasedPosition(cursor_), 25u);
}

// A reload that lowers max_events below what is staged: batches keep to the
// new limit and the rest stays staged, in order.
TEST_F(BatcherTest, ALowerMaxEventsCutsWhatIsAlreadyStaged) {
  Append(10);
  batcher_.Refill();
  batcher_.Reconfigure(BatchConfig{.max_events = 4}, MakeFastJsonEncoder({}));
  Batcher::EncodeDrops dropped;
  const OutgoingBatch first = batcher_.Encode(dropped);
  EXPECT_EQ(first.positions, (std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(first.range, (PositionRange{0, 4}));
  EXPECT_EQ(batcher_.staged_count(), 6u);
  const OutgoingBatch second = Cut();
  EXPECT_EQ(second.positions, (std::vector<uint64_t>{4, 5, 6, 7}));
}

// A batch's body parses to its elements in read order, with their types and
// received counts alongside.
TEST_F(BatcherTest, BodyHoldsTheElementsInReadOrder) {
  Append(3);
  const OutgoingBatch batch = Cut();
  const auto elements = nlohmann::json::parse(batch.body);
  ASSERT_EQ(elements.size(), 3u);
  EXPECT_EQ(elements[0]["message"], "m000");
  EXPECT_EQ(elements[2]["message"], "m002");
  EXPECT_EQ(batch.types, (std::vector<int32_t>{kDefinition, kDefinition, kDefinition}));
  EXPECT_EQ(batch.received, (std::vector<uint32_t>{1, 1, 1}));
}

}  // namespace
}  // namespace rayagg
