// The object sink's writer state file (`<spool.dir>/objsink-<sink>.json`,
// docs/OBJECT_STORE.md "Across restarts") read on its own: what the sink
// writes reads back equal; anything else — not JSON, cut short at any byte,
// a field missing or of another type, numbers out of range, a range that is
// empty or reaches next_seq — is INVALID_ARGUMENT, and LoadWriterState names
// the path. (What the sink does then, a new writer and a counted reset, is
// object_sink_test's.)
#include "objsink/writer_state.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace rayagg {
namespace {

WriterState SampleState() {
  return WriterState{.writer = "0123456789abcdef",
                     .next_seq = 101,
                     .drops = 7,
                     .pending = {{41, 60}, {81, 100}},
                     .void_ranges = {{13, 20}}};
}

std::string Json(const std::string& fields) { return "{" + fields + "}"; }

// A state text with one field replaced by `field` (a "name": value pair) or
// left out ("" as the value).
std::string StateWith(const std::string& name, const std::string& value) {
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"version", "1"}, {"writer", "\"0123456789abcdef\""}, {"next_seq", "101"},
      {"drops", "7"},   {"pending", "[[41,60]]"},           {"void", "[[13,20]]"}};
  std::string text;
  for (const auto& [field, original] : fields) {
    const std::string& chosen = field == name ? value : original;
    if (chosen.empty()) continue;
    if (!text.empty()) text += ",";
    text += "\"" + field + "\":" + chosen;
  }
  return Json(text);
}

TEST(WriterStateTest, WhatIsSerializedParsesBackEqual) {
  const WriterState state = SampleState();
  absl::StatusOr<WriterState> parsed = ParseWriterState(SerializeWriterState(state));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, state);
  // The hand-built text the other cases vary is a valid state itself.
  EXPECT_TRUE(ParseWriterState(StateWith("", "")).ok());
}

TEST(WriterStateTest, TheLargestNumbersTheReaderKeepsAreAccepted) {
  const uint64_t max = std::numeric_limits<int64_t>::max();
  const WriterState state{.writer = "ffffffffffffffff",
                          .next_seq = max,
                          .drops = std::numeric_limits<uint64_t>::max(),
                          .pending = {{max - 1, max - 1}},
                          .void_ranges = {{1, max - 2}}};
  absl::StatusOr<WriterState> parsed = ParseWriterState(SerializeWriterState(state));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, state);
}

TEST(WriterStateTest, EveryTruncationIsRejected) {
  const std::string text = SerializeWriterState(SampleState());
  const size_t json_end = text.rfind('}') + 1;
  for (size_t length = 0; length < json_end; ++length) {
    absl::StatusOr<WriterState> parsed = ParseWriterState(text.substr(0, length));
    EXPECT_TRUE(absl::IsInvalidArgument(parsed.status()))
        << "cut after " << length << " bytes: " << text.substr(0, length);
  }
}

struct Malformed {
  const char* name;
  std::string text;
};

class MalformedWriterStateTest : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedWriterStateTest, IsRejectedAsNotAWriterState) {
  absl::StatusOr<WriterState> parsed = ParseWriterState(GetParam().text);
  ASSERT_TRUE(absl::IsInvalidArgument(parsed.status())) << parsed.status();
  EXPECT_TRUE(
      std::string(parsed.status().message()).starts_with("not an object sink writer state: "))
      << parsed.status();
}

const uint64_t kTooLarge = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1;

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedWriterStateTest,
    ::testing::Values(
        // Not a JSON object.
        Malformed{"Empty", ""}, Malformed{"Whitespace", " \n"}, Malformed{"Null", "null"},
        Malformed{"Array", "[1,2]"}, Malformed{"String", "\"state\""},
        Malformed{"Binary", std::string("\x00\xff\x7f{", 4)},
        Malformed{"TrailingGarbage", StateWith("", "") + "x"},
        Malformed{"TwoObjects", StateWith("", "") + StateWith("", "")},
        // Version.
        Malformed{"NoVersion", StateWith("version", "")},
        Malformed{"VersionTwo", StateWith("version", "2")},
        Malformed{"VersionZero", StateWith("version", "0")},
        Malformed{"VersionString", StateWith("version", "\"1\"")},
        Malformed{"VersionFloat", StateWith("version", "1.5")},
        // Writer id.
        Malformed{"NoWriter", StateWith("writer", "")},
        Malformed{"WriterNumber", StateWith("writer", "123")},
        Malformed{"WriterShort", StateWith("writer", "\"0123456789abcde\"")},
        Malformed{"WriterLong", StateWith("writer", "\"0123456789abcdef0\"")},
        Malformed{"WriterUpperCase", StateWith("writer", "\"0123456789ABCDEF\"")},
        Malformed{"WriterNotHex", StateWith("writer", "\"0123456789abcdeg\"")},
        Malformed{"WriterEmpty", StateWith("writer", "\"\"")},
        // next_seq.
        Malformed{"NoNextSeq", StateWith("next_seq", "")},
        Malformed{"NextSeqZero", StateWith("next_seq", "0")},
        Malformed{"NextSeqNegative", StateWith("next_seq", "-5")},
        Malformed{"NextSeqString", StateWith("next_seq", "\"101\"")},
        Malformed{"NextSeqFloat", StateWith("next_seq", "101.0")},
        Malformed{"NextSeqNull", StateWith("next_seq", "null")},
        Malformed{"NextSeqAboveInt64", StateWith("next_seq", std::to_string(kTooLarge))},
        Malformed{"NextSeqUint64Max", StateWith("next_seq", "18446744073709551615")},
        Malformed{"NextSeqAboveUint64", StateWith("next_seq", "18446744073709551616")},
        Malformed{"NextSeqHuge", StateWith("next_seq", "1e300")},
        // drops.
        Malformed{"NoDrops", StateWith("drops", "")},
        Malformed{"DropsNegative", StateWith("drops", "-1")},
        Malformed{"DropsBool", StateWith("drops", "true")},
        Malformed{"DropsAboveUint64", StateWith("drops", "18446744073709551616")},
        // pending and void: lists of [first, last] with 1 <= first <= last < next_seq.
        Malformed{"NoPending", StateWith("pending", "")},
        Malformed{"NoVoid", StateWith("void", "")},
        Malformed{"PendingObject", StateWith("pending", "{\"41\":60}")},
        Malformed{"PendingFlat", StateWith("pending", "[41,60]")},
        Malformed{"PendingOneNumber", StateWith("pending", "[[41]]")},
        Malformed{"PendingThreeNumbers", StateWith("pending", "[[41,50,60]]")},
        Malformed{"PendingStrings", StateWith("pending", "[[\"41\",\"60\"]]")},
        Malformed{"PendingNegative", StateWith("pending", "[[-1,60]]")},
        Malformed{"PendingFloat", StateWith("pending", "[[41.5,60]]")},
        Malformed{"PendingFromZero", StateWith("pending", "[[0,60]]")},
        Malformed{"PendingBackwards", StateWith("pending", "[[60,41]]")},
        Malformed{"PendingReachesNextSeq", StateWith("pending", "[[41,101]]")},
        Malformed{"PendingBeyondNextSeq", StateWith("pending", "[[200,300]]")},
        Malformed{"PendingAboveUint64", StateWith("pending", "[[1,18446744073709551616]]")},
        Malformed{"OneBadRangeAmongGood", StateWith("pending", "[[1,2],[5,4],[7,8]]")},
        Malformed{"VoidReachesNextSeq", StateWith("void", "[[13,101]]")},
        Malformed{"VoidNull", StateWith("void", "null")},
        Malformed{"VoidString", StateWith("void", "\"13-20\"")}),
    [](const ::testing::TestParamInfo<Malformed>& param_info) {
      return std::string(param_info.param.name);
    });

// Ranges that overlap (the sink never writes them: it joins what it saves)
// are read as written; the sink joins them again when it loads them.
TEST(WriterStateTest, OverlappingRangesAreReadAsWritten) {
  absl::StatusOr<WriterState> parsed =
      ParseWriterState(StateWith("pending", "[[41,60],[50,70],[41,60]]"));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->pending, (std::vector<SeqRange>{{41, 60}, {50, 70}, {41, 60}}));
  EXPECT_EQ(MergeSeqRanges(parsed->pending), (std::vector<SeqRange>{{41, 70}}));
}

TEST(WriterStateTest, LoadNamesThePathOfAnUnreadableFile) {
  test::TempDir dir;
  const std::string path = WriterStatePath(dir.path().string(), "history");
  EXPECT_EQ(path, dir.Path("objsink-history.json"));
  EXPECT_TRUE(absl::IsNotFound(LoadWriterState(path).status()));

  test::WriteWholeFile(path, R"({"version": 1, "writer": "00112233)");
  absl::StatusOr<WriterState> torn = LoadWriterState(path);
  ASSERT_TRUE(absl::IsInvalidArgument(torn.status())) << torn.status();
  EXPECT_TRUE(
      std::string(torn.status().message()).starts_with(path + ": not an object sink writer state"))
      << torn.status();

  // Larger than any state: not read to the end.
  test::WriteWholeFile(path, std::string((1 << 20) + 1, ' '));
  absl::StatusOr<WriterState> huge = LoadWriterState(path);
  EXPECT_FALSE(huge.ok());
  EXPECT_FALSE(absl::IsNotFound(huge.status())) << "a reset, not a first start";
  EXPECT_NE(huge.status().message().find(path), std::string::npos) << huge.status();

  std::filesystem::remove(path);
  std::filesystem::create_directory(path);
  absl::StatusOr<WriterState> directory = LoadWriterState(path);
  EXPECT_FALSE(directory.ok());
  EXPECT_FALSE(absl::IsNotFound(directory.status()));
}

TEST(WriterStateTest, SaveReplacesTheFileWhole) {
  test::TempDir dir;
  const std::string path = WriterStatePath(dir.path().string(), "history");
  test::WriteWholeFile(path, std::string(4096, 'x'));  // longer than any state
  WriterState state = SampleState();
  ASSERT_TRUE(SaveWriterState(path, state).ok());
  absl::StatusOr<WriterState> loaded = LoadWriterState(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, state);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  state.next_seq = 102;
  state.pending.clear();
  ASSERT_TRUE(SaveWriterState(path, state).ok());
  loaded = LoadWriterState(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, state);
}

}  // namespace
}  // namespace rayagg
