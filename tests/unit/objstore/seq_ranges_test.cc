// Sequence-range lists as manifests carry them (`rayagg-seq-void`,
// docs/OBJECT_STORE.md "Manifest"), read on their own: the sink writes them,
// ray-task-history's manifest check reads them. Only "a-b[,c-d]..." with
// 1 <= a <= b in plain decimal is a list; overlapping ranges are a list too
// (a reader counts them as covered once) and MergeSeqRanges joins them, up to
// the largest number without wrapping.
#include "objstore/rules/seq_ranges.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace rayagg {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(SeqRangesTest, ParsesWhatFormatWrites) {
  const std::vector<SeqRange> ranges = {{1, 1}, {13, 20}, {25, 31}, {kMax, kMax}};
  const std::string text = FormatSeqRanges(ranges);
  EXPECT_EQ(text, "1-1,13-20,25-31,18446744073709551615-18446744073709551615");
  absl::StatusOr<std::vector<SeqRange>> parsed = ParseSeqRanges(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, ranges);
}

TEST(SeqRangesTest, EmptyTextIsNoRanges) {
  absl::StatusOr<std::vector<SeqRange>> parsed = ParseSeqRanges("");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->empty());
  EXPECT_EQ(FormatSeqRanges({}), "");
}

TEST(SeqRangesTest, OverlappingRangesParseAsWritten) {
  absl::StatusOr<std::vector<SeqRange>> parsed = ParseSeqRanges("20-30,1-25,5-5,20-30");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, (std::vector<SeqRange>{{20, 30}, {1, 25}, {5, 5}, {20, 30}}));
  EXPECT_EQ(MergeSeqRanges(*parsed), (std::vector<SeqRange>{{1, 30}}));
}

class MalformedSeqRangesTest : public ::testing::TestWithParam<const char*> {};

TEST_P(MalformedSeqRangesTest, IsRejected) {
  absl::StatusOr<std::vector<SeqRange>> parsed = ParseSeqRanges(GetParam());
  EXPECT_TRUE(absl::IsInvalidArgument(parsed.status())) << "\"" << GetParam() << "\"";
}

INSTANTIATE_TEST_SUITE_P(Cases, MalformedSeqRangesTest,
                         ::testing::Values(
                             // Truncated.
                             "1", "1-", "-5", "-", "1-5,", ",1-5", "1-5,,6-7", "1-5,6", "1-5,6-",
                             // Not decimal numbers.
                             "a-b", "1-x", "0x1-0x5", "1.0-5", "1e3-2e3", "+1-5", "1--5", "1-5-7",
                             // Spaces anywhere.
                             " 1-5", "1-5 ", "1 -5", "1- 5", "1-5, 6-7",
                             // Empty or backwards, or from zero.
                             "0-5", "0-0", "5-4", "2-1,3-4",
                             // Past the largest number (2^64 - 1).
                             "1-18446744073709551616", "18446744073709551616-18446744073709551617",
                             "1-99999999999999999999999"));

TEST(SeqRangesTest, MergeSortsAndJoinsOverlappingAndAdjacentRanges) {
  EXPECT_EQ(MergeSeqRanges({}), std::vector<SeqRange>{});
  EXPECT_EQ(MergeSeqRanges({{40, 50}, {1, 10}, {11, 20}, {30, 35}, {33, 45}}),
            (std::vector<SeqRange>{{1, 20}, {30, 50}}));
  EXPECT_EQ(MergeSeqRanges({{1, 10}, {12, 20}}), (std::vector<SeqRange>{{1, 10}, {12, 20}}));
  EXPECT_EQ(MergeSeqRanges({{5, 5}, {5, 5}, {1, 100}}), (std::vector<SeqRange>{{1, 100}}));
}

TEST(SeqRangesTest, MergeUpToTheLargestNumberDoesNotWrap) {
  EXPECT_EQ(MergeSeqRanges({{1, kMax}, {5, 10}}), (std::vector<SeqRange>{{1, kMax}}));
  EXPECT_EQ(MergeSeqRanges({{kMax - 10, kMax}, {kMax, kMax}, {1, 2}}),
            (std::vector<SeqRange>{{1, 2}, {kMax - 10, kMax}}));
  EXPECT_EQ(MergeSeqRanges({{1, kMax - 1}, {kMax, kMax}}), (std::vector<SeqRange>{{1, kMax}}));
}

}  // namespace
}  // namespace rayagg
