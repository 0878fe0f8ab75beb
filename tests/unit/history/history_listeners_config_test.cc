// ray-task-history's listener settings (history_config.h): the ops listener's flags and keys,
// http.allowed_hosts and its defaults, the access rule off loopback.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "history/history_config.h"
#include "support/temp_dir.h"

namespace rayagg::history {
namespace {

absl::StatusOr<HistoryConfig> Load(const std::vector<std::string>& flags,
                                   const std::string& yaml = "") {
  test::TempDir dir;
  std::vector<std::string> args = {"--store", "dir:///tmp/store", "--index-dir", "/tmp/index"};
  if (!yaml.empty()) {
    args.push_back("--config");
    args.push_back(dir.Write("history.yaml", yaml));
  }
  args.insert(args.end(), flags.begin(), flags.end());
  absl::StatusOr<HistoryCommandLine> cli = ParseHistoryCommandLine(args);
  if (!cli.ok()) return cli.status();
  return LoadHistoryConfig(*cli, Environment(std::map<std::string, std::string>{}));
}

TEST(HistoryConfigTest, OpsListenerDefaultsKeysAndFlags) {
  absl::StatusOr<HistoryConfig> defaults = Load({});
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->ops_address, "127.0.0.1");
  EXPECT_EQ(defaults->ops_port, 8091);
  absl::StatusOr<HistoryConfig> from_yaml = Load({}, "ops: {address: 127.0.0.2, port: 9000}\n");
  ASSERT_TRUE(from_yaml.ok()) << from_yaml.status();
  EXPECT_EQ(from_yaml->ops_address, "127.0.0.2");
  EXPECT_EQ(from_yaml->ops_port, 9000);
  absl::StatusOr<HistoryConfig> from_flags =
      Load({"--ops-address", "127.0.0.3", "--ops-port=0", "--ops-port-file", "/tmp/ops.port"},
           "ops: {port: 9000}\n");
  ASSERT_TRUE(from_flags.ok()) << from_flags.status();
  EXPECT_EQ(from_flags->ops_address, "127.0.0.3");
  EXPECT_EQ(from_flags->ops_port, 0);
  EXPECT_FALSE(ParseHistoryCommandLine({"--ops-port", "70000"}).ok());
  EXPECT_NE(HistoryUsageText().find("--ops-port"), std::string::npos);
}

TEST(HistoryConfigTest, AllowedHostsDefaultToLoopbackNamesAndTheBoundAddress) {
  absl::StatusOr<HistoryConfig> config = Load({"--http-address", "127.0.0.1"});
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(AllowedHostsFor(*config, "127.0.0.1"),
            (std::vector<std::string>{"localhost", "127.0.0.1", "[::1]", "127.0.0.1"}));
  EXPECT_EQ(AllowedHostsFor(*config, "10.1.2.3").back(), "10.1.2.3");
  EXPECT_EQ(AllowedHostsFor(*config, "::1").back(), "[::1]");
  EXPECT_EQ(AllowedHostsFor(*config, "0.0.0.0").size(), 3u);  // a wildcard names no host

  absl::StatusOr<HistoryConfig> listed =
      Load({}, "http: {allowed_hosts: [history.example.com, '[fe80::1]', '*']}\n");
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(AllowedHostsFor(*listed, "127.0.0.1"),
            (std::vector<std::string>{"history.example.com", "[fe80::1]", "*"}));
}

TEST(HistoryConfigTest, BadAllowedHostsAreNamedByIndex) {
  absl::StatusOr<HistoryConfig> bad = Load({}, "http: {allowed_hosts: [localhost, 'a b']}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("http.allowed_hosts[1]"), std::string::npos)
      << bad.status();
  absl::StatusOr<HistoryConfig> empty = Load({}, "http: {allowed_hosts: []}\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("http.allowed_hosts"), std::string::npos);
}

TEST(HistoryConfigTest, OffLoopbackATokenOrAnExplicitWaiverIsRequired) {
  for (const char* address : {"0.0.0.0", "::", "10.0.0.5"}) {
    absl::StatusOr<HistoryConfig> refused = Load({"--http-address", address});
    ASSERT_FALSE(refused.ok()) << address;
    EXPECT_NE(refused.status().message().find("http.bearer_token_file"), std::string::npos);
    EXPECT_NE(refused.status().message().find("--allow-unauthenticated"), std::string::npos);
  }
  for (const char* address : {"127.0.0.1", "127.1.2.3", "::1"}) {
    EXPECT_TRUE(Load({"--http-address", address}).ok()) << address;
  }
  EXPECT_TRUE(Load({"--http-address", "0.0.0.0", "--allow-unauthenticated"}).ok());
  EXPECT_TRUE(Load({"--http-address", "0.0.0.0"}, "http: {allow_unauthenticated: true}\n").ok());
  absl::StatusOr<HistoryConfig> with_token =
      Load({"--http-address", "0.0.0.0"}, "http: {bearer_token_file: /run/secrets/token}\n");
  ASSERT_TRUE(with_token.ok()) << with_token.status();
  EXPECT_EQ(with_token->bearer_token_file, "/run/secrets/token");
  // Named in the description, never read into it.
  EXPECT_NE(DescribeHistoryConfig(*with_token).find("bearer token from /run/secrets/token"),
            std::string::npos);
}

}  // namespace
}  // namespace rayagg::history
