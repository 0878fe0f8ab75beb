// Reading stored objects: JSONL (our sink, KubeRay's collector), gzip or
// not, legacy JSON arrays, keys in any order, and every kind of damage
// skipped and counted without losing the rest.
#include "history/fold/object_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "history/fold/object_folder.h"
#include "http/gzip.h"

namespace rayagg::history {
namespace {

std::vector<std::string> Texts(std::string_view object, uint64_t max = 1 << 20,
                               DecodeResult* result = nullptr) {
  std::vector<std::string> out;
  DecodeResult r = ForEachEventJson(object, max, [&](std::string_view t) { out.emplace_back(t); });
  if (result != nullptr) *result = r;
  return out;
}

std::string Gzip(std::string_view text) {
  std::string out;
  EXPECT_TRUE(GzipCompress(text, out).ok());
  return out;
}

TEST(ObjectDecoder, JsonLinesPlainAndGzip) {
  const std::string lines = "{\"a\":1}\n\n  {\"b\":\"x\\ny\"}\r\n{\"c\":[1,2]}";
  const std::vector<std::string> want = {"{\"a\":1}", "{\"b\":\"x\\ny\"}", "{\"c\":[1,2]}"};
  EXPECT_EQ(Texts(lines), want);
  EXPECT_EQ(Texts(Gzip(lines)), want);
  // Two gzip members one after the other are one text.
  EXPECT_EQ(Texts(Gzip("{\"a\":1}\n") + Gzip("{\"b\":\"x\\ny\"}\n{\"c\":[1,2]}\n")), want);
}

TEST(ObjectDecoder, LegacyArraysSplitIntoElements) {
  const std::string array =
      " [ {\"a\":\"],[{\\\"\"} , {\"b\":{\"c\":[1,{\"d\":2}]}},{\"e\":\"\\\\\"}]";
  const std::vector<std::string> want = {"{\"a\":\"],[{\\\"\"}", "{\"b\":{\"c\":[1,{\"d\":2}]}}",
                                         "{\"e\":\"\\\\\"}"};
  EXPECT_EQ(Texts(array), want);
  EXPECT_EQ(Texts(Gzip(array)), want);
  EXPECT_TRUE(Texts("[]").empty());
  EXPECT_TRUE(Texts("").empty());
}

TEST(ObjectDecoder, AnArrayFollowedByMoreIsJsonLinesNotALegacyArray) {
  // Blanks after the array: a legacy array, nothing more.
  DecodeResult result;
  EXPECT_EQ(Texts("[{\"a\":1},{\"b\":2}]\n \r\n\t", 1 << 20, &result),
            (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  EXPECT_TRUE(result.error.empty());
  // Lines after the array's line: each is read.
  EXPECT_EQ(Texts("[{\"a\":1}]\n{\"b\":2}\n{\"c\":3}\n"),
            (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"}));
  // Garbage after the ']' on the same line is a text of its own (a bad
  // line to the folder), and the lines after it still count.
  EXPECT_EQ(Texts("[{\"a\":1}] trailing {\n{\"b\":2}"),
            (std::vector<std::string>{"{\"a\":1}", "trailing {", "{\"b\":2}"}));
  EXPECT_EQ(Texts(Gzip("[{\"a\":1}]]]\n")), (std::vector<std::string>{"{\"a\":1}", "]]"}));
  // A ']' inside a string does not end the array.
  EXPECT_EQ(Texts("[{\"a\":\"]\\\"]\"}]\n{\"b\":2}"),
            (std::vector<std::string>{"{\"a\":\"]\\\"]\"}", "{\"b\":2}"}));
}

TEST(ObjectDecoder, OversizedLinesAreSkippedAndCounted) {
  const std::string big(100, 'x');
  DecodeResult result;
  const std::vector<std::string> texts =
      Texts("{\"a\":1}\n{\"" + big + "\":1}\n{\"b\":2}\n", 50, &result);
  EXPECT_EQ(texts, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  EXPECT_EQ(result.oversized, 1u);
}

TEST(ObjectDecoder, BrokenGzipKeepsWhatCameBeforeAndSaysWhy) {
  std::string lines;
  for (int i = 0; i < 20000; ++i) lines += "{\"n\":" + std::to_string(i) + "}\n";
  std::string gz = Gzip(lines);
  DecodeResult result;
  const std::vector<std::string> texts =
      Texts(std::string_view(gz).substr(0, gz.size() / 2), 1 << 20, &result);
  EXPECT_FALSE(result.error.empty());
  EXPECT_GT(texts.size(), 0u);
  EXPECT_LT(texts.size(), 20000u);
  gz[gz.size() / 2] ^= 0x55;
  gz[gz.size() / 2 + 1] ^= 0x55;
  result = DecodeResult();
  Texts(gz, 1 << 20, &result);
  EXPECT_FALSE(result.error.empty());
}

// A task lifecycle event as KubeRay's collector re-serialises it: keys in
// alphabetical order, numbers through float64.
constexpr std::string_view kReordered =
    R"({"eventId":"AQID","eventType":"TASK_LIFECYCLE_EVENT","message":"","sessionName":"s",)"
    R"("severity":"INFO","sourceType":"CORE_WORKER","taskLifecycleEvent":{"jobId":"AQAAAA==",)"
    R"("nodeId":"","stateTransitions":[{"state":"RUNNING","timestamp":"2026-01-01T00:00:01Z"}],)"
    R"("taskAttempt":0,"taskId":"ABEiM0RVZneImaq7zN3u/wARIjNEVWZ3","workerId":"","workerPid":0},)"
    R"("timestamp":"2026-01-01T00:00:01.5Z"})";

// kReordered as attempt `attempt` of its task: a task record of its own.
std::string Attempt(int attempt) {
  std::string text(kReordered);
  const std::string from = "\"taskAttempt\":0";
  text.replace(text.find(from), from.size(), "\"taskAttempt\":" + std::to_string(attempt));
  return text;
}

// The hostile-input probe: a JSON Lines object of 50 task events whose
// first line is an array was read as a legacy array, and the 49 lines
// after it were dropped without a count.
TEST(ObjectFolder, AJsonLinesObjectWhoseFirstLineIsAnArrayLosesNothing) {
  for (const bool gzip : {false, true}) {
    std::string object = "[" + Attempt(0) + "]\n";
    for (int i = 1; i < 50; ++i) object += Attempt(i) + "\n";
    FoldedSession folded;
    ObjectFolder folder;
    FoldedObject result = folder.Fold(gzip ? Gzip(object) : object, folded);
    EXPECT_EQ(result.events, 50u);
    EXPECT_EQ(result.bad_lines, 0u);
    EXPECT_EQ(folded.tasks.size(), 50u);

    // A first line that is an array of non-events: each element is a bad
    // line, and all 50 events after it are read.
    object = "[1, \"two\", null]\n";
    for (int i = 0; i < 50; ++i) object += Attempt(i) + "\n";
    folded = FoldedSession();
    result = folder.Fold(gzip ? Gzip(object) : object, folded);
    EXPECT_EQ(result.events, 50u);
    EXPECT_EQ(result.bad_lines, 3u);
    EXPECT_EQ(folded.tasks.size(), 50u);
  }
}

TEST(ObjectFolder, WhatFollowsALegacyArrayIsCountedAsBadLines) {
  const std::string array = "[" + Attempt(0) + "," + Attempt(1) + "]";
  FoldedSession folded;
  ObjectFolder folder;
  FoldedObject result = folder.Fold(array + "\n\n", folded);
  EXPECT_EQ(result.events, 2u);
  EXPECT_EQ(result.bad_lines, 0u);
  // Garbage on the array's line and on a line of its own: two bad lines;
  // an event after them still counts.
  folded = FoldedSession();
  result = folder.Fold(array + " x\n\ngarbage]\n" + Attempt(2) + "\n", folded);
  EXPECT_EQ(result.events, 3u);
  EXPECT_EQ(result.bad_lines, 2u);
  EXPECT_EQ(folded.tasks.size(), 3u);
  EXPECT_TRUE(result.error.empty());
}

TEST(ObjectFolder, FoldsEventsAndCountsWhatIsNotAnEvent) {
  const std::string object = std::string(kReordered) +
                             "\nnot json\n[1,2]\n{\"eventType\":\"NO_SUCH_TYPE\"}\n" +
                             std::string(kReordered) + "\n";
  FoldedSession folded;
  ObjectFolder folder;
  const FoldedObject result = folder.Fold(Gzip(object), folded);
  EXPECT_EQ(result.events, 2u);
  EXPECT_EQ(result.bad_lines, 3u);
  EXPECT_TRUE(result.error.empty());
  ASSERT_EQ(folded.tasks.size(), 1u);
  const TaskRecord& task = folded.tasks.begin()->second;
  EXPECT_EQ(task.task_id, "00112233445566778899aabbccddeeff0011223344556677");
  EXPECT_EQ(task.job_id(), "01000000");
  ASSERT_EQ(task.transitions.size(), 1u);  // the duplicate folded away
  EXPECT_EQ(task.raw_state(), kRunning);
}

}  // namespace
}  // namespace rayagg::history
