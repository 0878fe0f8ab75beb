// config/example.yaml and config/default.yaml must load, and the example
// must show exactly the built-in defaults, so neither can drift from the code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/load_config.h"
#include "config_test_util.h"

#ifndef RAYAGG_SOURCE_DIR
#error "tests/unit/config/CMakeLists.txt defines RAYAGG_SOURCE_DIR"
#endif

namespace rayagg {
namespace {

using testing_config::Same;
using testing_config::SameExceptSinks;

absl::StatusOr<LoadedConfig> LoadFile(const std::string& relative_path) {
  CommandLine cli;
  cli.config_path = std::string(RAYAGG_SOURCE_DIR) + "/" + relative_path;
  return LoadConfig(cli, Environment({}));
}

TEST(ExampleConfigsTest, ExampleShowsTheDefaults) {
  absl::StatusOr<LoadedConfig> loaded = LoadFile("config/example.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Config& config = loaded->config;
  EXPECT_TRUE(SameExceptSinks(config, Config{})) << DescribeConfig(config);

  ASSERT_EQ(config.sinks.size(), 1u);
  SinkConfig expected;
  expected.name = config.sinks[0].name;
  expected.url = config.sinks[0].url;
  EXPECT_TRUE(Same(config.sinks[0], expected)) << DescribeConfig(config);
  EXPECT_EQ(config.sinks[0].name, "collector");
  EXPECT_THAT(loaded->warnings, ::testing::IsEmpty());
}

TEST(ExampleConfigsTest, DefaultPrintsEverythingToTheConsole) {
  absl::StatusOr<LoadedConfig> loaded = LoadFile("config/default.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Config& config = loaded->config;
  EXPECT_TRUE(SameExceptSinks(config, Config{})) << DescribeConfig(config);

  ASSERT_EQ(config.sinks.size(), 1u);
  SinkConfig expected;
  expected.name = "console";
  expected.url = "file:///dev/stdout";
  expected.event_types = EventTypeFilter::All();
  EXPECT_TRUE(Same(config.sinks[0], expected)) << DescribeConfig(config);
  EXPECT_THAT(loaded->warnings, ::testing::IsEmpty());
}

}  // namespace
}  // namespace rayagg
