// RAY_AUTH_MODE / RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH / ~/.ray/auth_token,
// through LoadConfig as the daemon runs it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "common/small_file.h"
#include "config/load_config.h"
#include "config_test_util.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

using test::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_config::Message;

absl::StatusOr<LoadedConfig> Load(std::map<std::string, std::string> vars) {
  return LoadConfig(CommandLine{}, Environment(std::move(vars)));
}

IngestAuthConfig AuthOf(std::map<std::string, std::string> vars) {
  absl::StatusOr<LoadedConfig> loaded = Load(std::move(vars));
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? loaded->config.ingest_auth : IngestAuthConfig{};
}

TEST(RayAuthTest, OffUnlessModeIsToken) {
  EXPECT_FALSE(AuthOf({}).token_required);
  EXPECT_FALSE(AuthOf({{"RAY_AUTH_MODE", "disabled"}, {"RAY_AUTH_TOKEN", "x"}}).token_required);
  EXPECT_FALSE(AuthOf({{"RAY_AUTH_MODE", ""}}).token_required);
}

TEST(RayAuthTest, TokenFromTheEnvironmentWins) {
  TempDir dir;
  const IngestAuthConfig auth = AuthOf({{"RAY_AUTH_MODE", "token"},
                                        {"RAY_AUTH_TOKEN", " env-token\n"},
                                        {"RAY_AUTH_TOKEN_PATH", dir.Write("t", "file-token")},
                                        {"HOME", dir.Path("")}});
  EXPECT_TRUE(auth.token_required);
  EXPECT_EQ(auth.token, "env-token");
}

TEST(RayAuthTest, TokenFromTokenPathThenFromHome) {
  TempDir dir;
  std::filesystem::create_directories(dir.Path(".ray"));
  dir.Write(".ray/auth_token", "home-token\n");
  const std::string path = dir.Write("custom", "custom-token\n");

  EXPECT_EQ(
      AuthOf({{"RAY_AUTH_MODE", "TOKEN"}, {"RAY_AUTH_TOKEN_PATH", path}, {"HOME", dir.Path("")}})
          .token,
      "custom-token");
  // An empty RAY_AUTH_TOKEN counts as unset, as in Ray.
  EXPECT_EQ(
      AuthOf({{"RAY_AUTH_MODE", "token"}, {"RAY_AUTH_TOKEN", ""}, {"HOME", dir.Path("")}}).token,
      "home-token");
}

TEST(RayAuthTest, MissingTokenStopsStartupWithoutLeakingAnything) {
  TempDir dir;
  absl::StatusOr<LoadedConfig> loaded =
      Load({{"RAY_AUTH_MODE", "token"}, {"RAY_AUTH_TOKEN_PATH", dir.Path("absent")}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(Message(loaded), HasSubstr("RAY_AUTH_MODE=token but no token"));
  EXPECT_THAT(Message(loaded), HasSubstr(dir.Path("absent")));

  loaded = Load({{"RAY_AUTH_MODE", "token"}, {"RAY_AUTH_TOKEN_PATH", dir.Write("blank", "\n")}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(Message(loaded), HasSubstr("is empty"));

  loaded = Load({{"RAY_AUTH_MODE", "token"}});  // no HOME either
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(Message(loaded), HasSubstr("HOME"));
}

// The token file is read up to a limit and only from a regular file: a huge
// file, a device that never ends or a FIFO nobody writes to is an error
// naming it instead of an endless read or wait.
TEST(RayAuthTest, TokenFileAboveTheLimitOrNotAFileIsRefused) {
  TempDir dir;
  const std::string huge = dir.Write("huge", std::string(kMaxSecretFileBytes + 1, 'a'));
  const std::pair<std::string, std::string> cases[] = {{huge, "larger than"},
                                                       {"/dev/zero", "not a regular file"},
                                                       {dir.Fifo("fifo"), "not a regular file"}};
  for (const auto& [path, why] : cases) {
    absl::StatusOr<LoadedConfig> loaded =
        Load({{"RAY_AUTH_MODE", "token"}, {"RAY_AUTH_TOKEN_PATH", path}});
    ASSERT_FALSE(loaded.ok()) << path;
    EXPECT_THAT(Message(loaded), HasSubstr(why)) << path;
    EXPECT_THAT(Message(loaded), HasSubstr(path));
    EXPECT_THAT(Message(loaded), HasSubstr("RAY_AUTH_TOKEN_PATH")) << path;
  }
}

TEST(RayAuthTest, UnknownModeRefusesToRunUnauthenticated) {
  absl::StatusOr<LoadedConfig> loaded =
      Load({{"RAY_AUTH_MODE", "k8s"}, {"RAY_AUTH_TOKEN", "secret-value"}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(Message(loaded), HasSubstr("RAY_AUTH_MODE: unsupported mode \"k8s\""));
  EXPECT_THAT(Message(loaded), Not(HasSubstr("secret-value")));
}

TEST(RayAuthTest, SummarySaysAuthIsOnButNotTheToken) {
  const IngestAuthConfig auth = AuthOf({{"RAY_AUTH_MODE", "token"}, {"RAY_AUTH_TOKEN", "tok-123"}});
  Config config;
  config.ingest_auth = auth;
  const std::string summary = DescribeConfig(config);
  EXPECT_THAT(summary, HasSubstr("Ray's auth token"));
  EXPECT_THAT(summary, Not(HasSubstr("tok-123")));
}

}  // namespace
}  // namespace rayagg
