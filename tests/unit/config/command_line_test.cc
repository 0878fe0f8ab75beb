#include "config/command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace rayagg {
namespace {

using ::testing::HasSubstr;
using testing_config::Message;

TEST(CommandLineTest, NoArgumentsGiveEmptyCommandLine) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({});
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_FALSE(cli->config_path.has_value());
  EXPECT_FALSE(cli->grpc_address.has_value());
  EXPECT_FALSE(cli->grpc_port.has_value());
  EXPECT_FALSE(cli->port_file.has_value());
  EXPECT_FALSE(cli->log_level.has_value());
  EXPECT_FALSE(cli->check_config);
  EXPECT_FALSE(cli->show_version);
  EXPECT_FALSE(cli->show_help);
}

TEST(CommandLineTest, SeparateValueSyntax) {
  absl::StatusOr<CommandLine> cli =
      ParseCommandLine({"--config", "/etc/agg.yaml", "--grpc-address", "0.0.0.0", "--grpc-port",
                        "9000", "--port-file", "/tmp/port", "--log-level", "debug"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_EQ(cli->config_path, "/etc/agg.yaml");
  EXPECT_EQ(cli->grpc_address, "0.0.0.0");
  EXPECT_EQ(cli->grpc_port, 9000);
  EXPECT_EQ(cli->port_file, "/tmp/port");
  EXPECT_EQ(cli->log_level, "debug");
}

TEST(CommandLineTest, EqualsSyntax) {
  absl::StatusOr<CommandLine> cli =
      ParseCommandLine({"--config=/etc/a=b.yaml", "--grpc-port=0", "--log-level=warn"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_EQ(cli->config_path, "/etc/a=b.yaml");  // only the first '=' splits
  EXPECT_EQ(cli->grpc_port, 0);
  EXPECT_EQ(cli->log_level, "warn");
}

TEST(CommandLineTest, Switches) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--check-config", "--version", "--help"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_TRUE(cli->check_config);
  EXPECT_TRUE(cli->show_version);
  EXPECT_TRUE(cli->show_help);
}

TEST(CommandLineTest, LastRepeatedFlagWins) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--grpc-port", "1", "--grpc-port=2"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_EQ(cli->grpc_port, 2);
}

TEST(CommandLineTest, UnknownFlagIsNamed) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--grpc-prot", "1"});
  ASSERT_FALSE(cli.ok());
  EXPECT_EQ(cli.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(cli), HasSubstr("unknown flag --grpc-prot"));
}

TEST(CommandLineTest, UnknownFlagWithValueIsNamedWithoutValue) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--bogus=1"});
  ASSERT_FALSE(cli.ok());
  EXPECT_THAT(Message(cli), HasSubstr("unknown flag --bogus "));
}

TEST(CommandLineTest, MissingValueAtEnd) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--config"});
  ASSERT_FALSE(cli.ok());
  EXPECT_EQ(cli.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(cli), HasSubstr("--config needs a value"));
}

TEST(CommandLineTest, MissingValueBeforeNextFlag) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--config", "--check-config"});
  ASSERT_FALSE(cli.ok());
  EXPECT_THAT(Message(cli), HasSubstr("--config needs a value"));
}

TEST(CommandLineTest, EmptyValueIsRejected) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--log-level="});
  ASSERT_FALSE(cli.ok());
  EXPECT_THAT(Message(cli), HasSubstr("--log-level"));
}

TEST(CommandLineTest, BadPorts) {
  for (const char* port : {"65536", "-1", "80x", "http", "1.5", " 80"}) {
    absl::StatusOr<CommandLine> cli = ParseCommandLine({"--grpc-port", port});
    ASSERT_FALSE(cli.ok()) << port;
    EXPECT_EQ(cli.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(cli), HasSubstr("--grpc-port")) << port;
  }
}

TEST(CommandLineTest, HighestPortIsAccepted) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--grpc-port=65535"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_EQ(cli->grpc_port, 65535);
}

TEST(CommandLineTest, SwitchRejectsValue) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine({"--check-config=true"});
  ASSERT_FALSE(cli.ok());
  EXPECT_THAT(Message(cli), HasSubstr("--check-config takes no value"));
}

TEST(CommandLineTest, PositionalArgumentIsRejected) {
  for (const char* arg : {"config.yaml", "-h", "--"}) {
    absl::StatusOr<CommandLine> cli = ParseCommandLine({arg});
    ASSERT_FALSE(cli.ok()) << arg;
    EXPECT_THAT(Message(cli), HasSubstr("unexpected argument")) << arg;
  }
}

TEST(CommandLineTest, UsageListsEveryFlag) {
  const std::string usage = UsageText();
  for (const char* flag :
       {"--config PATH", "--grpc-address ADDR", "--grpc-port N", "--port-file PATH",
        "--log-level LEVEL", "--check-config", "--version", "--help"}) {
    EXPECT_THAT(usage, HasSubstr(flag));
  }
  EXPECT_THAT(usage, HasSubstr("0 = the OS picks"));
  EXPECT_THAT(usage, HasSubstr("plain decimal"));
}

}  // namespace
}  // namespace rayagg

namespace rayagg {
namespace {

TEST(CommandLineTest, HttpIngestFlags) {
  absl::StatusOr<CommandLine> cli = ParseCommandLine(
      {"--http-port", "0", "--http-address=0.0.0.0", "--http-port-file", "/tmp/http-port"});
  ASSERT_TRUE(cli.ok()) << cli.status();
  EXPECT_EQ(cli->http_port, 0);
  EXPECT_EQ(cli->http_address, "0.0.0.0");
  EXPECT_EQ(cli->http_port_file, "/tmp/http-port");
  EXPECT_FALSE(cli->grpc_port.has_value());

  absl::StatusOr<CommandLine> bad = ParseCommandLine({"--http-port", "65536"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--http-port"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace rayagg
