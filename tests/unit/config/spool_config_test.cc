// The `spool:` section and --spool-dir: every key, the sync forms, the
// bounds (max_bytes required when on, at least 4 x segment_bytes), and
// problems named by their keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config/command_line.h"
#include "config/load_config.h"
#include "config_test_util.h"

namespace rayagg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_config::Message;

TEST(SpoolConfigTest, OffByDefault) {
  absl::StatusOr<Config> config = ParseConfigYaml("");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->spool.enabled());
  EXPECT_EQ(config->spool.sync, SpoolConfig::Sync::kInterval);
  EXPECT_EQ(config->spool.sync_interval, Duration(100));
  EXPECT_EQ(config->spool.segment_bytes, 64u << 20);
  EXPECT_EQ(config->spool.on_write_error, SpoolConfig::OnWriteError::kMemory);
  EXPECT_THAT(DescribeConfig(*config), HasSubstr("spool off"));
}

TEST(SpoolConfigTest, ParsesEveryKey) {
  absl::StatusOr<Config> config = ParseConfigYaml(R"(
spool:
  dir: /var/lib/agg/spool
  max_bytes: 1GiB
  sync: 250ms
  segment_bytes: 16MiB
  on_write_error: refuse
)");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->spool.enabled());
  EXPECT_EQ(config->spool.dir, "/var/lib/agg/spool");
  EXPECT_EQ(config->spool.max_bytes, 1ull << 30);
  EXPECT_EQ(config->spool.sync, SpoolConfig::Sync::kInterval);
  EXPECT_EQ(config->spool.sync_interval, Duration(250));
  EXPECT_EQ(config->spool.segment_bytes, 16u << 20);
  EXPECT_EQ(config->spool.on_write_error, SpoolConfig::OnWriteError::kRefuse);
  const std::string described = DescribeConfig(*config);
  EXPECT_THAT(described, HasSubstr("spool /var/lib/agg/spool (max 1GiB"));
  EXPECT_THAT(described, HasSubstr("fsync every 250ms"));
  EXPECT_THAT(described, HasSubstr("refuse requests"));
}

TEST(SpoolConfigTest, SyncAlwaysAndNever) {
  absl::StatusOr<Config> always =
      ParseConfigYaml("spool:\n  dir: /s\n  max_bytes: 256MiB\n  sync: always\n");
  ASSERT_TRUE(always.ok()) << always.status();
  EXPECT_EQ(always->spool.sync, SpoolConfig::Sync::kAlways);
  absl::StatusOr<Config> never =
      ParseConfigYaml("spool:\n  dir: /s\n  max_bytes: 256MiB\n  sync: never\n");
  ASSERT_TRUE(never.ok()) << never.status();
  EXPECT_EQ(never->spool.sync, SpoolConfig::Sync::kNever);
}

TEST(SpoolConfigTest, BadValuesNameTheirKeys) {
  absl::StatusOr<Config> config = ParseConfigYaml(R"(
spool:
  dir: /s
  max_bytes: 1MiB
  sync: sometimes
  segment_bytes: 1KiB
  on_write_error: panic
  max_byte: 3
)");
  ASSERT_FALSE(config.ok());
  const std::string message = Message(config);
  EXPECT_THAT(message, HasSubstr("spool.sync: must be always, never or a duration"));
  EXPECT_THAT(message, HasSubstr("spool.segment_bytes"));
  EXPECT_THAT(message, HasSubstr("spool.on_write_error: must be one of memory, refuse"));
  EXPECT_THAT(message, HasSubstr("spool.max_byte: unknown key"));
}

TEST(SpoolConfigTest, ZeroIntervalIsRefused) {
  absl::StatusOr<Config> config =
      ParseConfigYaml("spool:\n  dir: /s\n  max_bytes: 256MiB\n  sync: 0ms\n");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(Message(config), HasSubstr("spool.sync"));
}

TEST(SpoolConfigTest, MaxBytesIsRequiredWhenOn) {
  absl::StatusOr<Config> config = ParseConfigYaml("spool:\n  dir: /s\n");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(Message(config), HasSubstr("spool.max_bytes: is required when spool.dir is set"));
}

TEST(SpoolConfigTest, MaxBytesMustHoldFourSegments) {
  absl::StatusOr<Config> small =
      ParseConfigYaml("spool:\n  dir: /s\n  max_bytes: 255MiB\n  segment_bytes: 64MiB\n");
  ASSERT_FALSE(small.ok());
  EXPECT_THAT(Message(small), HasSubstr("spool.max_bytes: must be at least 4 x "
                                        "spool.segment_bytes (64MiB), i.e. 256MiB; got 255MiB"));
  EXPECT_TRUE(
      ParseConfigYaml("spool:\n  dir: /s\n  max_bytes: 256MiB\n  segment_bytes: 64MiB\n").ok());
  EXPECT_TRUE(
      ParseConfigYaml("spool:\n  dir: /s\n  max_bytes: 256KiB\n  segment_bytes: 64KiB\n").ok());
}

TEST(SpoolConfigTest, OtherKeysWithoutDirAreKeptForTheFlag) {
  // A file may leave the directory to --spool-dir: only a spool that is on
  // is checked.
  absl::StatusOr<Config> config = ParseConfigYaml("spool:\n  sync: always\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->spool.enabled());
}

class SpoolLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/spool_load_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml";
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(SpoolLoadTest, FlagTurnsTheSpoolOn) {
  std::ofstream(path_) << "spool:\n  dir: /from/file\n  max_bytes: 1GiB\n";
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--config", path_, "--spool-dir", "/x"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(*cli, Environment({}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.spool.dir, "/x");
  EXPECT_EQ(loaded->config.spool.max_bytes, 1ull << 30);
}

TEST_F(SpoolLoadTest, FlagWithoutMaxBytesNamesTheKey) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--spool-dir", "/x"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(*cli, Environment({}));
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(Message(loaded.status()), HasSubstr("spool.max_bytes"));
  EXPECT_FALSE(ParseCommandLine({"--spool-dir"}).ok());
  EXPECT_THAT(UsageText(), HasSubstr("--spool-dir DIR"));
  EXPECT_THAT(UsageText(), Not(HasSubstr("--spool-dir N")));
}

}  // namespace
}  // namespace rayagg
