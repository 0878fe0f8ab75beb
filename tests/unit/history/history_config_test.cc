// ray-task-history's YAML settings: retention (0 keeps everything, archives
// may be kept for years), the tries an unreadable object gets, and the
// index's memory map.
#include "history/history_config.h"

#include <gtest/gtest.h>

namespace rayagg::history {
namespace {

std::chrono::milliseconds Retention(const std::string& value) {
  absl::StatusOr<HistoryConfig> config =
      ParseHistoryConfigYaml("index: {retention: " + value + "}\n");
  EXPECT_TRUE(config.ok()) << value << ": " << config.status();
  return config.ok() ? config->indexing.retention : std::chrono::milliseconds(-1);
}

TEST(HistoryConfig, RetentionZeroKeepsEverythingAndArchivesMayBeKeptForYears) {
  EXPECT_EQ(ParseHistoryConfigYaml("")->indexing.retention, std::chrono::hours(720));
  for (const char* zero : {"0", "0h", "0s", "\"0\"", "0d"}) {
    EXPECT_EQ(Retention(zero), std::chrono::milliseconds(0)) << zero;
  }
  EXPECT_EQ(Retention("720h"), std::chrono::hours(720));
  EXPECT_EQ(Retention("90m"), std::chrono::minutes(90));
  EXPECT_EQ(Retention("17520h"), std::chrono::hours(17520));  // two years
  EXPECT_EQ(Retention("3650d"), std::chrono::hours(3650 * 24));
  for (const char* bad :
       {"30s", "-1h", "1.5d", "876001h", "99999999999999999999d", "soon", "[1h]"}) {
    absl::StatusOr<HistoryConfig> config =
        ParseHistoryConfigYaml(std::string("index: {retention: ") + bad + "}\n");
    ASSERT_FALSE(config.ok()) << bad;
    EXPECT_NE(config.status().message().find("index.retention"), std::string::npos)
        << config.status();
  }
}

TEST(HistoryConfig, MaxObjectAttempts) {
  EXPECT_EQ(ParseHistoryConfigYaml("")->indexing.max_object_attempts, 5u);
  absl::StatusOr<HistoryConfig> config =
      ParseHistoryConfigYaml("indexing: {max_object_attempts: 2}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->indexing.max_object_attempts, 2u);
  EXPECT_FALSE(ParseHistoryConfigYaml("indexing: {max_object_attempts: 0}\n").ok());
}

TEST(HistoryConfig, IndexMemoryMap) {
  EXPECT_EQ(ParseHistoryConfigYaml("")->mmap_bytes, 2ull << 30);
  EXPECT_EQ(ParseHistoryConfigYaml("index: {mmap_bytes: 0}\n")->mmap_bytes, 0u);
  EXPECT_EQ(ParseHistoryConfigYaml("index: {mmap_bytes: 512MiB}\n")->mmap_bytes, 512ull << 20);
  absl::StatusOr<HistoryConfig> config = ParseHistoryConfigYaml("index: {mmap_bytes: 3GiB}\n");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("index.mmap_bytes"), std::string::npos)
      << config.status();
}

}  // namespace
}  // namespace rayagg::history
