// A "sink recovered" line answers a failure warning the operator saw: once
// per such warning, at the first success after it, never after a success
// that followed only unannounced (rate-limited) failures.
#include "sinks/recovery_log.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

TEST(RecoveryLogTest, NothingToReportWithoutFailures) {
  RecoveryLog log;
  EXPECT_EQ(log.Succeeded(), std::nullopt);
  EXPECT_EQ(log.Succeeded(), std::nullopt);
}

TEST(RecoveryLogTest, OneLinePerWarnedEpisodeAtItsFirstSuccess) {
  RecoveryLog log;
  log.Failed(/*warned=*/true);
  log.Failed(/*warned=*/false);
  EXPECT_EQ(log.Succeeded(), 2u);
  EXPECT_EQ(log.Succeeded(), std::nullopt);  // already reported
}

// A flaky endpoint failing every other attempt while the failure warning is
// rate-limited: one recovery line per warning, not one per success; the
// line counts the unannounced failures too.
TEST(RecoveryLogTest, AFlakyEndpointGetsOneLinePerWarning) {
  RecoveryLog log;
  int lines = 0;
  uint64_t reported = 0;
  for (int i = 0; i < 100; ++i) {
    log.Failed(/*warned=*/i % 50 == 0);  // the rate limiter lets every 50th warning through
    if (const auto failed = log.Succeeded()) {
      ++lines;
      reported += *failed;
    }
  }
  EXPECT_EQ(lines, 2);
  EXPECT_EQ(reported, 51u);  // 1 at the first line, 50 at the second
}

}  // namespace
}  // namespace rayagg
