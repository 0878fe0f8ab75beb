// config/example.yaml and config/default.yaml must load, and the example
// must show exactly the built-in defaults, so neither can drift from the code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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

// scripts/run's demo daemon: config/demo.yaml with the checkout's path filled
// in, as scripts/run writes it to build/demo/daemon.yaml.
TEST(ExampleConfigsTest, DemoListensWhereRaysAgentPostsAndStoresForTheHistory) {
  std::ifstream file(std::string(RAYAGG_SOURCE_DIR) + "/config/demo.yaml");
  ASSERT_TRUE(file) << "config/demo.yaml not found";
  std::stringstream text;
  text << file.rdbuf();
  std::string yaml = text.str();
  for (size_t at = yaml.find("@ROOT@"); at != std::string::npos; at = yaml.find("@ROOT@")) {
    yaml.replace(at, 6, "/checkout");
  }
  const std::string path = ::testing::TempDir() + "/demo-daemon.yaml";
  std::ofstream(path) << yaml;
  CommandLine cli;
  cli.config_path = path;
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(cli, Environment({}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Config& config = loaded->config;
  EXPECT_TRUE(config.http_ingest.enabled);
  EXPECT_EQ(config.http_ingest.address, "127.0.0.1");
  EXPECT_EQ(config.http_ingest.port, 8084);
  EXPECT_EQ(config.grpc.address, "127.0.0.1");
  EXPECT_EQ(config.grpc.port, 8085);
  ASSERT_EQ(config.sinks.size(), 1u);  // no console sink
  EXPECT_EQ(config.sinks[0].url, "dir:///checkout/build/demo/store");
  EXPECT_EQ(config.sinks[0].cluster.name, "demo-cluster");
  EXPECT_EQ(config.sinks[0].object.max_age, Duration(1000));
  EXPECT_THAT(loaded->warnings, ::testing::IsEmpty());
}

// Every ```yaml and ```json block in docs/CONFIG.md is a complete, valid file.
TEST(ExampleConfigsTest, DocumentationExamplesParse) {
  std::ifstream file(std::string(RAYAGG_SOURCE_DIR) + "/docs/CONFIG.md");
  ASSERT_TRUE(file) << "docs/CONFIG.md not found";
  std::string line;
  std::string block;
  bool in_block = false;
  int blocks = 0;
  int line_number = 0;
  int block_start = 0;
  while (std::getline(file, line)) {
    ++line_number;
    if (!in_block && (line == "```yaml" || line == "```json")) {
      in_block = true;
      block.clear();
      block_start = line_number;
    } else if (in_block && line == "```") {
      in_block = false;
      ++blocks;
      absl::StatusOr<Config> config = ParseConfigYaml(block);
      EXPECT_TRUE(config.ok()) << "docs/CONFIG.md block at line " << block_start << ": "
                               << config.status();
    } else if (in_block) {
      block += line + "\n";
    }
  }
  EXPECT_GE(blocks, 3);
}

}  // namespace
}  // namespace rayagg
