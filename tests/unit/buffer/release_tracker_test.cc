// Out-of-order release: each row releases ranges in the order listed and
// checks the released position after every step, and what the tracker still
// holds at the end.
#include "buffer/release_tracker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rayagg {
namespace {

using Result = ReleaseTracker::Result;

struct Step {
  uint64_t begin;
  uint64_t end;
  Result result;
  uint64_t released_after;
};

struct Row {
  std::string name;
  uint64_t start;
  std::vector<Step> steps;
  size_t pending_at_end;
};

const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = {
      {"in_order",
       0,
       {{0, 10, Result::kReleased, 10},
        {10, 20, Result::kReleased, 20},
        {20, 25, Result::kReleased, 25}},
       0},
      {"reversed",
       0,
       {{20, 30, Result::kReleased, 0},
        {10, 20, Result::kReleased, 0},
        {0, 10, Result::kReleased, 30}},
       0},
      // A 413 split: the second half of [0, 10) finishes first.
      {"halves_second_first", 0, {{5, 10, Result::kReleased, 0}, {0, 5, Result::kReleased, 10}}, 0},
      {"halves_of_halves",
       0,
       {{6, 8, Result::kReleased, 0},
        {0, 4, Result::kReleased, 4},
        {8, 10, Result::kReleased, 4},
        {4, 6, Result::kReleased, 10}},
       0},
      // Two slots: batch [10, 20) is done while [0, 10) still retries.
      {"gap_holds_the_prefix",
       0,
       {{10, 20, Result::kReleased, 0},
        {30, 40, Result::kReleased, 0},
        {0, 10, Result::kReleased, 20}},
       1},
      {"gap_between_pending_ranges_closes",
       0,
       {{10, 20, Result::kReleased, 0},
        {30, 40, Result::kReleased, 0},
        {20, 30, Result::kReleased, 0},
        {0, 10, Result::kReleased, 40}},
       0},
      {"starts_where_the_cursor_started",
       100,
       {{105, 110, Result::kReleased, 100}, {100, 105, Result::kReleased, 110}},
       0},
      {"empty_range_is_a_no_op",
       0,
       {{0, 0, Result::kEmpty, 0}, {7, 7, Result::kEmpty, 0}, {0, 3, Result::kReleased, 3}},
       0},
      {"inverted_range_is_invalid",
       0,
       {{5, 3, Result::kInvalid, 0}, {0, 5, Result::kReleased, 5}},
       0},
      // Duplicates and overlaps are rejected and change nothing: a range
      // released twice is a bug in the caller, and taking it could hide a
      // range that was never released.
      {"duplicate_of_the_prefix_rejected",
       0,
       {{0, 10, Result::kReleased, 10},
        {0, 10, Result::kOverlap, 10},
        {5, 8, Result::kOverlap, 10}},
       0},
      {"straddling_the_prefix_rejected",
       0,
       {{0, 10, Result::kReleased, 10},
        {8, 12, Result::kOverlap, 10},
        {10, 12, Result::kReleased, 12}},
       0},
      {"duplicate_of_a_pending_range_rejected",
       0,
       {{10, 20, Result::kReleased, 0},
        {10, 20, Result::kOverlap, 0},
        {15, 25, Result::kOverlap, 0},
        {5, 11, Result::kOverlap, 0},
        {12, 13, Result::kOverlap, 0},
        {0, 10, Result::kReleased, 20}},
       0},
      {"range_covering_a_pending_one_rejected",
       0,
       {{10, 20, Result::kReleased, 0},
        {5, 25, Result::kOverlap, 0},
        {0, 10, Result::kReleased, 20}},
       0},
  };
  return rows;
}

class ReleaseTrackerTable : public ::testing::TestWithParam<Row> {};

TEST_P(ReleaseTrackerTable, ReleasesInAnyOrder) {
  const Row& row = GetParam();
  ReleaseTracker tracker(row.start);
  EXPECT_EQ(tracker.released(), row.start);
  for (size_t i = 0; i < row.steps.size(); ++i) {
    const Step& step = row.steps[i];
    SCOPED_TRACE("step " + std::to_string(i) + ": [" + std::to_string(step.begin) + ", " +
                 std::to_string(step.end) + ")");
    EXPECT_EQ(tracker.Release(step.begin, step.end), step.result);
    EXPECT_EQ(tracker.released(), step.released_after);
  }
  EXPECT_EQ(tracker.pending_ranges(), row.pending_at_end);
}

INSTANTIATE_TEST_SUITE_P(Rows, ReleaseTrackerTable, ::testing::ValuesIn(Rows()),
                         [](const ::testing::TestParamInfo<Row>& row_info) {
                           return row_info.param.name;
                         });

// Memory stays bounded by the gaps, not the positions: a million ranges
// released ahead of one missing range merge into a single pending range.
TEST(ReleaseTrackerTest, AdjacentPendingRangesMerge) {
  ReleaseTracker tracker;
  for (uint64_t i = 1; i <= 1'000'000; ++i) {
    ASSERT_EQ(tracker.Release(i, i + 1), Result::kReleased);
    ASSERT_EQ(tracker.pending_ranges(), 1u);
  }
  // Merged in reverse order too.
  for (uint64_t i = 3'000'000; i > 2'000'000; --i) {
    ASSERT_EQ(tracker.Release(i - 1, i), Result::kReleased);
    ASSERT_EQ(tracker.pending_ranges(), 2u);
  }
  EXPECT_EQ(tracker.released(), 0u);
  EXPECT_EQ(tracker.Release(0, 1), Result::kReleased);
  EXPECT_EQ(tracker.released(), 1'000'001u);
  EXPECT_EQ(tracker.pending_ranges(), 1u);
  EXPECT_EQ(tracker.Release(1'000'001, 2'000'000), Result::kReleased);
  EXPECT_EQ(tracker.released(), 3'000'000u);
  EXPECT_EQ(tracker.pending_ranges(), 0u);
}

}  // namespace
}  // namespace rayagg
