// ray-task-history's YAML settings: retention (0 keeps everything, archives
// may be kept for years), the tries an unreadable object gets, and the
// index's memory map.
#include "history/history_config.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

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

TEST(HistoryConfig, UiSection) {
  absl::StatusOr<HistoryConfig> defaults = ParseHistoryConfigYaml("");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->ui.grafana_url, "");
  EXPECT_EQ(defaults->ui.redact, "(?i)secret|token|password|key|credential");
  EXPECT_FALSE(defaults->ui.show_secrets);
  EXPECT_NE(DescribeHistoryConfig(*defaults).find("ui: grafana_url=(none) redact=(?i)secret"),
            std::string::npos);

  absl::StatusOr<HistoryConfig> config = ParseHistoryConfigYaml(
      "ui: {grafana_url: 'http://grafana:3000/d/ray?orgId=1', redact: '^MY_', "
      "show_secrets: true}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->ui.grafana_url, "http://grafana:3000/d/ray?orgId=1");
  EXPECT_EQ(config->ui.redact, "^MY_");
  EXPECT_TRUE(config->ui.show_secrets);
  EXPECT_NE(DescribeHistoryConfig(*config).find(
                "ui: grafana_url=http://grafana:3000/d/ray?orgId=1 redact=^MY_ show_secrets=true"),
            std::string::npos);
  EXPECT_EQ(ParseHistoryConfigYaml("ui: {grafana_url: ''}\n")->ui.grafana_url, "");

  // Each bad value is an error naming its key.
  for (const auto& [yaml, key] : std::vector<std::pair<std::string, std::string>>{
           {"ui: {grafana_url: 'javascript:alert(1)'}", "ui.grafana_url"},
           {"ui: {grafana_url: '/grafana'}", "ui.grafana_url"},
           {"ui: {grafana_url: 'ftp://grafana'}", "ui.grafana_url"},
           {"ui: {grafana_url: 'https://user:pw@grafana'}", "ui.grafana_url"},
           {"ui: {grafana_url: [a]}", "ui.grafana_url"},
           {"ui: {redact: '(unclosed'}", "ui.redact"},
           {"ui: {redact: 'a(?i)b'}", "ui.redact"},
           {"ui: {redact: ''}", "ui.redact"},
           {"ui: {redact: '(?i)'}", "ui.redact"},
           {"ui: {show_secrets: maybe}", "ui.show_secrets"},
           {"ui: {colour: blue}", "ui.colour"},
       }) {
    absl::StatusOr<HistoryConfig> bad = ParseHistoryConfigYaml(yaml + "\n");
    ASSERT_FALSE(bad.ok()) << yaml;
    EXPECT_NE(bad.status().message().find(key), std::string::npos) << bad.status();
  }
}

}  // namespace
}  // namespace rayagg::history
