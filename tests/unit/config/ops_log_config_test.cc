// The `ops:` and `log:` sections, their flags (--ops-port, --ops-address,
// --ops-port-file), ${VAR} expansion in constant labels, and `probe URL`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config/command_line.h"
#include "config/load_config.h"
#include "config_test_util.h"

namespace rayagg {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using testing_config::Message;

TEST(OpsConfigTest, ParsesEveryKey) {
  absl::StatusOr<Config> config = ParseConfigYaml(R"(
ops:
  enabled: true
  address: 0.0.0.0
  port: 0
  constant_labels:
    namespace: ray
    RayClusterName: "${CLUSTER}"
log:
  level: DEBUG
  format: JSON
  file: /var/log/agg.log
  max_file_bytes: 1MiB
  max_files: 3
)");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->ops.enabled);
  EXPECT_EQ(config->ops.address, "0.0.0.0");
  EXPECT_EQ(config->ops.port, 0);
  EXPECT_THAT(config->ops.constant_labels,
              ElementsAre(Pair("namespace", "ray"), Pair("RayClusterName", "${CLUSTER}")));
  EXPECT_EQ(config->log.level, "debug");
  EXPECT_EQ(config->log.format, "json");
  EXPECT_EQ(config->log.file, "/var/log/agg.log");
  EXPECT_EQ(config->log.max_file_bytes, 1024u * 1024);
  EXPECT_EQ(config->log.max_files, 3u);
}

TEST(OpsConfigTest, BadValuesNameTheirKeys) {
  absl::StatusOr<Config> config = ParseConfigYaml(R"(
ops:
  port: 70000
  constant_labels:
    "9lives": x
    sink: y
log:
  format: xml
  max_files: 0
  max_file_bytes: 10
)");
  ASSERT_FALSE(config.ok());
  const std::string message = Message(config);
  EXPECT_THAT(message, HasSubstr("ops.port"));
  EXPECT_THAT(message, HasSubstr("ops.constant_labels.9lives"));
  EXPECT_THAT(message, HasSubstr("ops.constant_labels.sink"));
  EXPECT_THAT(message, HasSubstr("log.format"));
  EXPECT_THAT(message, HasSubstr("log.max_files"));
  EXPECT_THAT(message, HasSubstr("log.max_file_bytes"));
}

TEST(OpsConfigTest, ConstantLabelsMustBeAMap) {
  absl::StatusOr<Config> config = ParseConfigYaml("ops:\n  constant_labels: [a, b]\n");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(Message(config), HasSubstr("ops.constant_labels"));
}

class OpsLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/ops_load_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml";
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(OpsLoadTest, ExpandsEnvironmentVariablesInLabelValues) {
  std::ofstream(path_) << "ops:\n  constant_labels:\n    cluster: \"c-${CLUSTER}-${MISSING}\"\n"
                          "    plain: \"$HOME {x}\"\n";
  CommandLine cli;
  cli.config_path = path_;
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(cli, Environment({{"CLUSTER", "prod"}}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->config.ops.constant_labels,
              ElementsAre(Pair("cluster", "c-prod-"), Pair("plain", "$HOME {x}")));
  EXPECT_THAT(loaded->warnings, testing::Contains(HasSubstr("MISSING")));
}

TEST_F(OpsLoadTest, FlagsOverrideTheFileAndEnableOps) {
  std::ofstream(path_) << "ops:\n  address: 10.0.0.1\n  port: 9000\n";
  absl::StatusOr<CommandLine> cli =
      ParseCommandLine({"--config", path_, "--ops-port", "0", "--ops-address", "127.0.0.2",
                        "--ops-port-file", "/p"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_EQ(cli->ops_port_file, "/p");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(*cli, Environment({}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->config.ops.enabled);
  EXPECT_EQ(loaded->config.ops.port, 0);
  EXPECT_EQ(loaded->config.ops.address, "127.0.0.2");
}

TEST(ProbeCommandLineTest, ProbeTakesExactlyOneUrl) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"probe", "http://127.0.0.1:9188/healthz"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_EQ(cli->probe_url, "http://127.0.0.1:9188/healthz");
  EXPECT_FALSE(ParseCommandLine({"probe"}).ok());
  EXPECT_FALSE(ParseCommandLine({"probe", "http://a/", "http://b/"}).ok());
  EXPECT_FALSE(ParseCommandLine({"--ops-port", "70000"}).ok());
}

}  // namespace
}  // namespace rayagg
