// LoadConfig: the file, precedence (defaults < file < environment < flags),
// warnings, and DescribeConfig.
#include "config/load_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/small_file.h"
#include "config_test_util.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_config::Message;
using testing_config::Same;

class LoadConfigTest : public ::testing::Test {
 protected:
  // Writes `text` to a fresh file and returns its path.
  std::string WriteFile(const std::string& text) {
    const std::string path = dir_ + "/config-" + std::to_string(files_++) + ".yaml";
    std::ofstream(path) << text;
    return path;
  }

  static CommandLine WithFile(const std::string& path) {
    CommandLine cli;
    cli.config_path = path;
    return cli;
  }

  static Environment Env(std::map<std::string, std::string> vars = {}) {
    return Environment(std::move(vars));
  }

  void SetUp() override {
    dir_ = ::testing::TempDir() + "/load_config_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  int files_ = 0;
};

TEST_F(LoadConfigTest, NoFileMeansDefaults) {
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(CommandLine{}, Env());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(Same(loaded->config, Config{}));
}

TEST_F(LoadConfigTest, MissingFileNamesThePath) {
  const std::string path = dir_ + "/nope.yaml";
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(WithFile(path), Env());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(loaded), HasSubstr(path));
  EXPECT_THAT(Message(loaded), HasSubstr("No such file"));
}

TEST_F(LoadConfigTest, DirectoryIsNotAFile) {
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(WithFile(dir_), Env());
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(Message(loaded), HasSubstr(dir_));
}

// --config is read up to a limit, and only from a regular file: a path
// naming a huge file, a device that never ends (/dev/zero, whose stat() size
// is 0) or a FIFO nobody writes to is an error naming it, not an endless
// read or wait.
TEST_F(LoadConfigTest, ConfigFileReadsAreBounded) {
  const std::string huge = WriteFile("# " + std::string(kMaxConfigFileBytes, 'x') + "\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(WithFile(huge), Env());
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(Message(loaded), HasSubstr("config file " + huge));
  EXPECT_THAT(Message(loaded), HasSubstr("larger than"));
  test::TempDir fifo_dir;
  for (const std::string& path : {std::string("/dev/zero"), fifo_dir.Fifo("config.yaml")}) {
    loaded = LoadConfig(WithFile(path), Env());
    ASSERT_FALSE(loaded.ok()) << path;
    EXPECT_THAT(Message(loaded), HasSubstr("config file " + path)) << path;
    EXPECT_THAT(Message(loaded), HasSubstr("not a regular file")) << path;
  }
  // Just under the limit: a comment and one key still load.
  const std::string large = WriteFile("# " + std::string(kMaxConfigFileBytes - 40, 'x') +
                                      "\nbuffer: {max_events: 5000}\n");
  loaded = LoadConfig(WithFile(large), Env());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.buffer.max_events, 5000u);
}

TEST_F(LoadConfigTest, FileErrorsArePrefixedWithThePath) {
  const std::string path = WriteFile("buffer:\n  max_events: abc\nlog:\n  levle: x\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(WithFile(path), Env());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(loaded),
              HasSubstr(path + ": buffer.max_events: must be an integer >= 1, got \"abc\""));
  EXPECT_THAT(Message(loaded), HasSubstr("\n" + path + ": log.levle: unknown key"));
}

TEST_F(LoadConfigTest, EmptyFileIsValid) {
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(WithFile(WriteFile("# all defaults\n")), Env());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(Same(loaded->config, Config{}));
}

TEST_F(LoadConfigTest, PrecedenceFileThenEnvironmentThenFlags) {
  const std::string path = WriteFile(R"(
grpc: {address: 10.0.0.1, port: 1111}
buffer: {max_events: 10}
log: {level: error}
sinks:
  - {name: file-sink, url: "http://file-collector/"}
)");
  CommandLine cli = WithFile(path);
  const Environment env =
      Env({{"RAY_DASHBOARD_AGGREGATOR_AGENT_MAX_EVENT_BUFFER_SIZE", "20"},
           {"RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR", "http://env-collector/"}});

  // File alone.
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(cli, Env());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.buffer.max_events, 10u);
  EXPECT_EQ(loaded->config.grpc.port, 1111);

  // The environment beats the file; its sink comes after the file's.
  loaded = LoadConfig(cli, env);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.buffer.max_events, 20u);
  ASSERT_EQ(loaded->config.sinks.size(), 2u);
  EXPECT_EQ(loaded->config.sinks[0].name, "file-sink");
  EXPECT_EQ(loaded->config.sinks[1].name, "ray-export");
  EXPECT_EQ(loaded->config.sinks[1].url, "http://env-collector/");

  // Flags beat both.
  cli.grpc_address = "0.0.0.0";
  cli.grpc_port = 0;
  cli.log_level = "DEBUG";
  loaded = LoadConfig(cli, env);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.grpc.address, "0.0.0.0");
  EXPECT_EQ(loaded->config.grpc.port, 0);
  EXPECT_EQ(loaded->config.log.level, "debug");
  EXPECT_EQ(loaded->config.buffer.max_events, 20u);
}

TEST_F(LoadConfigTest, EnvironmentSinkVariablesLeaveFileSinksAlone) {
  const std::string path = WriteFile("sinks:\n  - url: http://mine/\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(
      WithFile(path), Env({{"RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR", "http://ray/"},
                           {"RAY_DASHBOARD_AGGREGATOR_AGENT_MAX_EVENT_SEND_BATCH_SIZE", "7"},
                           {"RAY_DASHBOARD_AGGREGATOR_AGENT_EXPOSABLE_EVENT_TYPES", "ALL"}}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->config.sinks.size(), 2u);
  EXPECT_EQ(loaded->config.sinks[0].batch.max_events, BatchConfig{}.max_events);
  EXPECT_EQ(loaded->config.sinks[0].event_types, EventTypeFilter::RayDefault());
  EXPECT_EQ(loaded->config.sinks[1].batch.max_events, 7u);
  EXPECT_TRUE(loaded->config.sinks[1].event_types.accepts_all());
}

TEST_F(LoadConfigTest, EnvironmentProblemsAreWarningsNotErrors) {
  const std::string path = WriteFile("sinks:\n  - url: http://mine/\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(
      WithFile(path), Env({{"RAY_DASHBOARD_AGGREGATOR_AGENT_MAX_EVENT_BUFFER_SIZE", "lots"}}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->warnings, Contains(HasSubstr("MAX_EVENT_BUFFER_SIZE=\"lots\" ignored")));
}

TEST_F(LoadConfigTest, BadLogLevelFlagIsNamed) {
  CommandLine cli;
  cli.log_level = "loud";
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(cli, Env());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(loaded), HasSubstr("--log-level: must be one of"));
}

TEST_F(LoadConfigTest, EmptyEventTypeListWarns) {
  const std::string path =
      WriteFile("sinks:\n  - {name: quiet, url: http://a/, event_types: []}\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(WithFile(path), Env());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->warnings, Contains(HasSubstr("sink \"quiet\" exports nothing")));
}

TEST_F(LoadConfigTest, ConfiguredSinksMeanNoWarnings) {
  const std::string path = WriteFile("sinks:\n  - url: http://a/\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(WithFile(path), Env());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->warnings, IsEmpty());
}

TEST_F(LoadConfigTest, ProcessEnvironmentIsReadable) {
  // PATH is set in every test environment; this only checks the snapshot works.
  EXPECT_TRUE(Environment::FromProcess().Get("PATH").has_value());
  EXPECT_FALSE(Environment::FromProcess().Get("RAYAGG_SURELY_NOT_SET_1234").has_value());
}

TEST_F(LoadConfigTest, MapEnvironmentDistinguishesEmptyFromUnset) {
  Environment env({{"EMPTY", ""}, {"SET", "x"}});
  EXPECT_EQ(env.Get("EMPTY"), "");
  EXPECT_EQ(env.Get("SET"), "x");
  EXPECT_EQ(env.Get("UNSET"), std::nullopt);
}

TEST(DescribeConfigTest, SummarisesEverySection) {
  absl::StatusOr<Config> config = ParseConfigYaml(R"(
grpc: {address: "::", port: 9000}
sinks:
  - {name: console, url: "file:///dev/stdout", event_types: [ALL]}
  - {name: vector, url: "http://vector:8686/ray", retry: {max_retries: 3}, preserve_proto_field_names: true}
shutdown: {drain_timeout: 30s}
)");
  ASSERT_TRUE(config.ok()) << config.status();
  const std::string text = DescribeConfig(*config);
  EXPECT_THAT(text, HasSubstr("gRPC listener [::]:9000 (max message 20MiB)"));
  EXPECT_THAT(text, HasSubstr("buffer 100000 events / 256MiB"));
  EXPECT_THAT(text, HasSubstr("log level info"));
  EXPECT_THAT(text, HasSubstr("drain timeout 30s"));
  EXPECT_THAT(text, HasSubstr("2 sinks"));
  EXPECT_THAT(text, HasSubstr("sink \"console\" -> file:///dev/stdout"));
  EXPECT_THAT(text, HasSubstr("event types ALL"));
  EXPECT_THAT(text, HasSubstr("sink \"vector\" -> http://vector:8686/ray"));
  EXPECT_THAT(text, HasSubstr("TASK_DEFINITION_EVENT,TASK_LIFECYCLE_EVENT"));
  EXPECT_THAT(text, HasSubstr("retry up to 3 times"));
  EXPECT_THAT(text, HasSubstr("retry forever"));
  EXPECT_THAT(text, HasSubstr("snake_case keys"));
  EXPECT_THAT(text, HasSubstr("batches of <= 1000 events / 10MiB after 100ms"));
}

// Every listener's limits are shown, as configured (defaults here differ
// per listener: ops keeps fewer connections and a shorter read timeout).
TEST(DescribeConfigTest, ShowsEveryListenersLimits) {
  absl::StatusOr<Config> config = ParseConfigYaml(R"(
grpc: {max_concurrent_streams: 7, memory_limit_bytes: 64MiB, handshake_timeout: 3s,
       keepalive_min_interval: 45s}
http_ingest:
  enabled: true
  limits: {max_connections: 300, max_header_bytes: 8KiB, max_header_fields: 50,
           max_requests_per_connection: 0, idle_timeout: 20s, read_timeout: 4s}
ops: {enabled: true}
)");
  ASSERT_TRUE(config.ok()) << config.status();
  const std::string text = DescribeConfig(*config);
  EXPECT_THAT(text, HasSubstr("gRPC limits: 7 concurrent streams per connection, memory 64MiB, "
                              "handshake timeout 3s, client pings >= 45s apart"));
  EXPECT_THAT(text, HasSubstr("HTTP ingest limits: 300 connections, header <= 8KiB in 50 fields, "
                              "unlimited requests per connection, idle timeout 20s, read timeout "
                              "4s"));
  EXPECT_THAT(text, HasSubstr("ops limits: 32 connections, header <= 16KiB in 100 fields, 1000 "
                              "requests per connection, idle timeout 30s, read timeout 5s"));
  // Listeners that are off have no limits line.
  EXPECT_THAT(DescribeConfig(Config{}), Not(HasSubstr("HTTP ingest limits")));
  EXPECT_THAT(DescribeConfig(Config{}), Not(HasSubstr("ops limits")));
}

TEST(DescribeConfigTest, NoSinks) { EXPECT_THAT(DescribeConfig(Config{}), HasSubstr("no sinks")); }

TEST(DescribeConfigTest, NeverShowsCredentials) {
  Config config;
  SinkConfig sink;
  sink.name = "x";
  sink.url = "http://user:hunter2@collector/";  // refused by validation, but never printed
  config.sinks.push_back(sink);
  EXPECT_THAT(DescribeConfig(config), Not(HasSubstr("hunter2")));
}

}  // namespace
}  // namespace rayagg

namespace rayagg {
namespace {

TEST(LoadConfigHttpIngestTest, HttpPortFlagEnablesIngest) {
  const Environment env(std::map<std::string, std::string>{});
  CommandLine cli;
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(cli, env);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(loaded->config.http_ingest.enabled);

  cli.http_port = 0;
  cli.http_address = "::1";
  cli.http_port_file = "/tmp/http-port";
  loaded = LoadConfig(cli, env);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->config.http_ingest.enabled);
  EXPECT_EQ(loaded->config.http_ingest.port, 0);
  EXPECT_EQ(loaded->config.http_ingest.address, "::1");
  EXPECT_THAT(DescribeConfig(loaded->config), HasSubstr("HTTP JSON ingest [::1]:0/v1/events"));
}

TEST(LoadConfigHttpIngestTest, PortFileWithoutIngestIsAnError) {
  CommandLine cli;
  cli.http_port_file = "/tmp/http-port";
  absl::StatusOr<LoadedConfig> loaded =
      LoadConfig(cli, Environment(std::map<std::string, std::string>{}));
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(Message(loaded), HasSubstr("--http-port-file"));
}

}  // namespace
}  // namespace rayagg

namespace rayagg {
namespace {

TEST(LoadConfigHttpIngestTest, ExportAddressPointingAtOurOwnIngestIsAnError) {
  CommandLine cli;
  cli.http_port = 8084;
  const Environment env(std::map<std::string, std::string>{
      {"RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR", "http://127.0.0.1:8084/v1/events"}});
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(cli, env);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(Message(loaded), HasSubstr("events would loop"));

  // Another port or path is a legitimate chain of aggregators.
  cli.http_port = 8094;
  EXPECT_TRUE(LoadConfig(cli, env).ok());
}

}  // namespace
}  // namespace rayagg

namespace rayagg {
namespace {

TEST(LoadConfigHttpIngestTest, ForwardingToAnotherAggregatorOnTheSamePortIsFine) {
  CommandLine cli;
  cli.http_port = 8084;
  cli.http_address = "0.0.0.0";
  const Environment env(
      std::map<std::string, std::string>{{"RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR",
                                          "http://central-aggregator:8084/v1/events"}});
  EXPECT_TRUE(LoadConfig(cli, env).ok());
}

}  // namespace
}  // namespace rayagg

namespace rayagg {
namespace {

class HttpIngestTokenTest : public LoadConfigTest {};

// http_ingest.bearer_token_file is read at load; problems name the key and
// the file, never the token; the summary says whether HTTP ingest is
// authenticated, never with what.
TEST_F(HttpIngestTokenTest, TokenFileIsReadAtLoad) {
  const std::string token_path = WriteFile("  canary-token-91c2\n");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(
      WithFile(WriteFile("http_ingest: {enabled: true, bearer_token_file: " + token_path + "}\n")),
      Env());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.http_ingest.bearer_token, "canary-token-91c2");
  const std::string summary = DescribeConfig(loaded->config);
  EXPECT_THAT(summary, HasSubstr("bearer token from " + token_path));
  EXPECT_THAT(summary, Not(HasSubstr("canary-token")));

  loaded = LoadConfig(WithFile(WriteFile("http_ingest: {enabled: true}\n")), Env());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.http_ingest.bearer_token, "");
  EXPECT_THAT(DescribeConfig(loaded->config), HasSubstr("unauthenticated"));
}

// A FIFO nobody writes to among them: refused at once, not waited on.
TEST_F(HttpIngestTokenTest, BadTokenFilesNameTheKeyNotTheContent) {
  const std::string inner_blank = WriteFile("canary one\n");
  test::TempDir fifo_dir;
  for (const std::string& path :
       {dir_ + "/absent", WriteFile(" \n"), inner_blank, std::string("/dev/zero"),
        WriteFile(std::string(kMaxSecretFileBytes + 1, 'c')), fifo_dir.Fifo("token")}) {
    absl::StatusOr<LoadedConfig> loaded =
        LoadConfig(WithFile(WriteFile("http_ingest: {bearer_token_file: " + path + "}\n")), Env());
    ASSERT_FALSE(loaded.ok()) << path;
    EXPECT_THAT(Message(loaded), HasSubstr("http_ingest.bearer_token_file")) << path;
    EXPECT_THAT(Message(loaded), HasSubstr(path));
    EXPECT_THAT(Message(loaded), Not(HasSubstr("canary")));
  }
}

// Ray's token mode never turns on a check for HTTP ingest (Ray's HTTP
// publisher sends no Authorization header).
TEST_F(HttpIngestTokenTest, RaysAuthModeLeavesHttpIngestOpen) {
  absl::StatusOr<LoadedConfig> loaded =
      LoadConfig(WithFile(WriteFile("http_ingest: {enabled: true}\n")),
                 Env({{"RAY_AUTH_MODE", "token"}, {"RAY_AUTH_TOKEN", "ray-token"}}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->config.ingest_auth.token_required);
  EXPECT_EQ(loaded->config.http_ingest.bearer_token, "");
}

}  // namespace
}  // namespace rayagg
