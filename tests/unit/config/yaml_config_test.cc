// ParseConfigYaml: the file format, its errors and its validation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/load_config.h"
#include "config_test_util.h"

namespace rayagg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_config::Message;
using testing_config::Same;

// The error text for `yaml`, which must not parse.
std::string ErrorOf(const std::string& yaml) {
  absl::StatusOr<Config> config = ParseConfigYaml(yaml);
  EXPECT_FALSE(config.ok()) << "parsed unexpectedly:\n" << yaml;
  if (config.ok()) return "";
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  return Message(config);
}

Config Parse(const std::string& yaml) {
  absl::StatusOr<Config> config = ParseConfigYaml(yaml);
  EXPECT_TRUE(config.ok()) << config.status() << "\n" << yaml;
  return config.ok() ? *config : Config{};
}

TEST(YamlConfigTest, EmptyAndCommentOnlyFilesGiveDefaults) {
  for (const char* yaml : {"", "\n\n", "# nothing here\n  # at all\n", "---\n", "{}"}) {
    absl::StatusOr<Config> config = ParseConfigYaml(yaml);
    ASSERT_TRUE(config.ok()) << config.status();
    EXPECT_TRUE(Same(*config, Config{})) << "for: " << yaml;
  }
}

TEST(YamlConfigTest, EmptySectionsGiveDefaults) {
  Config config = Parse("grpc:\nbuffer:\nsinks:\nlog:\nshutdown:\n");
  EXPECT_TRUE(Same(config, Config{}));
}

TEST(YamlConfigTest, EverySectionAndKey) {
  Config config = Parse(R"(
grpc:
  address: 0.0.0.0
  port: 9001
  max_receive_message_bytes: 64MiB
buffer:
  max_events: 5000
  max_bytes: 1GiB
  coalesce: false
  dedup_window_events: 0
sinks:
  - name: vector
    url: http://vector:8686/ray
    event_types: [TASK_DEFINITION_EVENT, TASK_LIFECYCLE_EVENT]
    preserve_proto_field_names: true
    batch:
      max_events: 250
      max_bytes: 2MiB
      flush_interval: 1.5s
    request_timeout: 10s
    retry:
      initial_backoff: 50ms
      max_backoff: 2m
      jitter_ratio: 0.25
      max_retries: 7
  - url: file:///var/log/ray-events.jsonl
log:
  level: debug
shutdown:
  drain_timeout: 30s
)");
  EXPECT_EQ(config.grpc.address, "0.0.0.0");
  EXPECT_EQ(config.grpc.port, 9001);
  EXPECT_EQ(config.grpc.max_receive_message_bytes, 64u << 20);
  EXPECT_EQ(config.buffer.max_events, 5000u);
  EXPECT_EQ(config.buffer.max_bytes, 1ull << 30);
  EXPECT_FALSE(config.buffer.coalesce);
  EXPECT_EQ(config.buffer.dedup_window_events, 0u);
  ASSERT_EQ(config.sinks.size(), 2u);
  const SinkConfig& vector = config.sinks[0];
  EXPECT_EQ(vector.name, "vector");
  EXPECT_EQ(vector.url, "http://vector:8686/ray");
  EXPECT_EQ(vector.event_types, EventTypeFilter::Of({1, 2}));
  EXPECT_TRUE(vector.preserve_proto_field_names);
  EXPECT_EQ(vector.batch.max_events, 250u);
  EXPECT_EQ(vector.batch.max_bytes, 2u << 20);
  EXPECT_EQ(vector.batch.flush_interval, Duration(1500));
  EXPECT_EQ(vector.request_timeout, Duration(10'000));
  EXPECT_EQ(vector.retry.initial_backoff, Duration(50));
  EXPECT_EQ(vector.retry.max_backoff, Duration(120'000));
  EXPECT_EQ(vector.retry.jitter_ratio, 0.25);
  EXPECT_EQ(vector.retry.max_retries, 7);

  SinkConfig expected_file;
  expected_file.name = "sink-1";
  expected_file.url = "file:///var/log/ray-events.jsonl";
  EXPECT_TRUE(Same(config.sinks[1], expected_file));

  EXPECT_EQ(config.log.level, "debug");
  EXPECT_EQ(config.shutdown.drain_timeout, Duration(30'000));
}

TEST(YamlConfigTest, JsonWorks) {
  Config config = Parse(R"({"grpc": {"port": 0}, "buffer": {"max_bytes": 4096},
    "sinks": [{"url": "http://c/", "event_types": ["ALL"], "batch": {"flush_interval": "1s"}}],
    "log": {"level": "warn"}})");
  EXPECT_EQ(config.grpc.port, 0);
  EXPECT_EQ(config.buffer.max_bytes, 4096u);
  ASSERT_EQ(config.sinks.size(), 1u);
  EXPECT_TRUE(config.sinks[0].event_types.accepts_all());
  EXPECT_EQ(config.sinks[0].batch.flush_interval, Duration(1000));
  EXPECT_EQ(config.log.level, "warn");
}

TEST(YamlConfigTest, UnknownTopLevelKey) {
  const std::string error = ErrorOf("grpc:\n  port: 1\nsinkz: []\n");
  EXPECT_THAT(error, HasSubstr("sinkz: unknown key"));
  EXPECT_THAT(error, HasSubstr("line 3"));
  EXPECT_THAT(error, HasSubstr("grpc, buffer, sinks, log, shutdown"));
}

TEST(YamlConfigTest, UnknownNestedKey) {
  EXPECT_THAT(ErrorOf("buffer:\n  max_event: 5\n"), HasSubstr("buffer.max_event: unknown key"));
}

TEST(YamlConfigTest, UnknownKeyInsideSinkListItem) {
  const std::string error = ErrorOf(R"(
sinks:
  - url: http://a/
  - url: http://b/
    batch:
      max_evnts: 5
)");
  EXPECT_THAT(error, HasSubstr("sinks[1].batch.max_evnts: unknown key"));
  EXPECT_THAT(error, HasSubstr("line 6"));
  EXPECT_THAT(error, HasSubstr("max_events, max_bytes, flush_interval"));
}

TEST(YamlConfigTest, UnknownKeyDirectlyInSink) {
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    uri: http://b/\n"),
              HasSubstr("sinks[0].uri: unknown key"));
}

TEST(YamlConfigTest, DuplicateKey) {
  EXPECT_THAT(ErrorOf("grpc:\n  port: 1\n  port: 2\n"), HasSubstr("grpc.port: duplicate key"));
}

TEST(YamlConfigTest, TypeErrorsNameThePath) {
  EXPECT_THAT(ErrorOf("buffer:\n  max_events: abc\n"),
              HasSubstr("buffer.max_events: must be an integer >= 1, got \"abc\""));
  EXPECT_THAT(ErrorOf("buffer:\n  max_events: [1]\n"),
              HasSubstr("buffer.max_events: must be an integer >= 1, got a list"));
  EXPECT_THAT(ErrorOf("buffer:\n  max_events: -5\n"),
              HasSubstr("buffer.max_events: must be an integer >= 1"));
  EXPECT_THAT(ErrorOf("buffer:\n  max_events: 1.5\n"), HasSubstr("buffer.max_events"));
  EXPECT_THAT(ErrorOf("grpc: 5\n"), HasSubstr("grpc: must be a map"));
  EXPECT_THAT(ErrorOf("grpc:\n  address: {a: 1}\n"),
              HasSubstr("grpc.address: must be a string, got a map"));
  EXPECT_THAT(ErrorOf("grpc:\n  address:\n"),
              HasSubstr("grpc.address: must be a string, got nothing (line 2)"));
  EXPECT_THAT(ErrorOf("sinks:\n  url: http://a/\n"), HasSubstr("sinks: must be a list of sinks"));
  EXPECT_THAT(ErrorOf("sinks:\n  - http://a/\n"), HasSubstr("sinks[0]: must be a map"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    preserve_proto_field_names: yes\n"),
              HasSubstr("sinks[0].preserve_proto_field_names: must be true or false, got \"yes\""));
  EXPECT_THAT(ErrorOf("- a\n- b\n"), HasSubstr("(top level): must be a map"));
}

TEST(YamlConfigTest, QuotedNumbersAndBooleansAreAccepted) {
  Config config = Parse(
      "buffer:\n  max_events: \"42\"\nsinks:\n  - url: http://a/\n    preserve_proto_field_names: "
      "True\n");
  EXPECT_EQ(config.buffer.max_events, 42u);
  EXPECT_TRUE(config.sinks[0].preserve_proto_field_names);
}

TEST(YamlConfigTest, Ranges) {
  EXPECT_THAT(ErrorOf("buffer:\n  max_events: 0\n"),
              HasSubstr("buffer.max_events: must be an integer >= 1, got \"0\""));
  EXPECT_THAT(ErrorOf("buffer:\n  dedup_window_events: 100000001\n"),
              HasSubstr("buffer.dedup_window_events"));
  EXPECT_THAT(ErrorOf("buffer:\n  coalesce: maybe\n"), HasSubstr("buffer.coalesce"));
  EXPECT_THAT(ErrorOf("buffer:\n  max_bytes: 1000\n"),
              HasSubstr("buffer.max_bytes: must be at least 1KiB"));
  EXPECT_THAT(ErrorOf("grpc:\n  port: 65536\n"),
              HasSubstr("grpc.port: must be an integer from 0 to 65535"));
  EXPECT_THAT(ErrorOf("grpc:\n  max_receive_message_bytes: 2GiB\n"),
              HasSubstr("grpc.max_receive_message_bytes: must be from 1KiB to 2147483647 bytes"));
  EXPECT_THAT(ErrorOf("grpc:\n  max_receive_message_bytes: 1023\n"),
              HasSubstr("grpc.max_receive_message_bytes"));
  EXPECT_TRUE(ParseConfigYaml("grpc:\n  max_receive_message_bytes: 2147483647\n").ok());
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    batch: {max_events: 0}\n"),
              HasSubstr("sinks[0].batch.max_events: must be an integer >= 1"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    batch: {max_bytes: 1KB}\n"),
              HasSubstr("sinks[0].batch.max_bytes: must be at least 1KiB"));
  EXPECT_TRUE(ParseConfigYaml("sinks:\n  - url: http://a/\n    batch: {max_bytes: 1KiB}\n").ok());
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    retry: {jitter_ratio: 1.5}\n"),
              HasSubstr("sinks[0].retry.jitter_ratio: must be a number from 0 to 1"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    retry: {jitter_ratio: -0.1}\n"),
              HasSubstr("sinks[0].retry.jitter_ratio"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    retry: {initial_backoff: 0s}\n"),
              HasSubstr("sinks[0].retry.initial_backoff: must be at least 1ms"));
  EXPECT_THAT(
      ErrorOf("sinks:\n  - url: http://a/\n    retry: {initial_backoff: 2s, max_backoff: 1s}\n"),
      HasSubstr("sinks[0].retry.max_backoff: must be at least retry.initial_backoff (2s)"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    retry: {max_backoff: 5ms}\n"),
              HasSubstr("sinks[0].retry.max_backoff"));  // below the default initial 10ms
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    retry: {max_retries: -2}\n"),
              HasSubstr("sinks[0].retry.max_retries: must be an integer >= -1"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    request_timeout: 0ms\n"),
              HasSubstr("sinks[0].request_timeout: must be at least 1ms"));
}

TEST(YamlConfigTest, ZeroIsFineWhereItMeansImmediately) {
  Config config = Parse(
      "sinks:\n  - url: http://a/\n    batch: {flush_interval: 0ms}\n    retry: {max_retries: 0}\n"
      "shutdown: {drain_timeout: 0s}\ngrpc: {port: 0}\n");
  EXPECT_EQ(config.sinks[0].batch.flush_interval, Duration(0));
  EXPECT_EQ(config.sinks[0].retry.max_retries, 0);
  EXPECT_EQ(config.shutdown.drain_timeout, Duration(0));
  EXPECT_EQ(config.grpc.port, 0);
}

TEST(YamlConfigTest, DurationsNeedUnits) {
  const std::string error = ErrorOf("sinks:\n  - url: http://a/\n    request_timeout: 3\n");
  EXPECT_THAT(error, HasSubstr("sinks[0].request_timeout: a duration needs a unit"));
  EXPECT_THAT(ErrorOf("shutdown:\n  drain_timeout: 5 seconds\n"),
              HasSubstr("shutdown.drain_timeout"));
  EXPECT_THAT(ErrorOf("shutdown:\n  drain_timeout: [5s]\n"),
              HasSubstr("shutdown.drain_timeout: must be a duration"));
}

TEST(YamlConfigTest, SizesAsIntegersOrUnits) {
  EXPECT_EQ(Parse("buffer:\n  max_bytes: 2048\n").buffer.max_bytes, 2048u);
  EXPECT_EQ(Parse("buffer:\n  max_bytes: 128MiB\n").buffer.max_bytes, 128u << 20);
  EXPECT_EQ(Parse("buffer:\n  max_bytes: \"5 MB\"\n").buffer.max_bytes, 5'000'000u);
  EXPECT_THAT(ErrorOf("buffer:\n  max_bytes: 12 parsecs\n"),
              HasSubstr("buffer.max_bytes: must be a byte size"));
}

TEST(YamlConfigTest, EventTypes) {
  EXPECT_TRUE(Parse("sinks:\n  - url: http://a/\n    event_types: [ALL]\n")
                  .sinks[0]
                  .event_types.accepts_all());
  EXPECT_TRUE(Parse("sinks:\n  - url: http://a/\n    event_types: [all]\n")
                  .sinks[0]
                  .event_types.accepts_all());
  EXPECT_TRUE(Parse("sinks:\n  - url: http://a/\n    event_types: []\n")
                  .sinks[0]
                  .event_types.accepts_none());
  EXPECT_EQ(Parse("sinks:\n  - url: http://a/\n    event_types:\n      - TASK_PROFILE_EVENT\n      "
                  "- PLATFORM_EVENT\n")
                .sinks[0]
                .event_types,
            EventTypeFilter::Of({4, 15}));
  // Without event_types a sink gets Ray's default exposable list.
  EXPECT_EQ(Parse("sinks:\n  - url: http://a/\n").sinks[0].event_types,
            EventTypeFilter::RayDefault());
}

TEST(YamlConfigTest, UnknownEventTypeNamesThePath) {
  const std::string error = ErrorOf(
      "sinks:\n  - url: http://a/\n    event_types: [TASK_DEFINITION_EVENT, BOGUS_EVENT]\n");
  EXPECT_THAT(error, HasSubstr("sinks[0].event_types[1]: unknown event type \"BOGUS_EVENT\""));
  EXPECT_THAT(error, Not(HasSubstr("TASK_LIFECYCLE_EVENT")));  // no list of every valid name
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    event_types: [task_definition_event]\n"),
              HasSubstr("case-sensitive: TASK_DEFINITION_EVENT"));
}

TEST(YamlConfigTest, AllMustStandAlone) {
  EXPECT_THAT(
      ErrorOf("sinks:\n  - url: http://a/\n    event_types: [ALL, TASK_DEFINITION_EVENT]\n"),
      HasSubstr("sinks[0].event_types[0]: ALL must be the only item"));
}

TEST(YamlConfigTest, EventTypesMustBeAList) {
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    event_types: ALL\n"),
              HasSubstr("sinks[0].event_types: must be a list of event type names"));
}

TEST(YamlConfigTest, SinkNames) {
  Config config = Parse(
      "sinks:\n  - url: http://a/\n  - url: http://b/\n    name: second\n  - url: http://c/\n");
  EXPECT_EQ(config.sinks[0].name, "sink-0");
  EXPECT_EQ(config.sinks[1].name, "second");
  EXPECT_EQ(config.sinks[2].name, "sink-2");
  EXPECT_TRUE(ParseConfigYaml("sinks:\n  - {url: http://a/, name: A_b.c-9}\n").ok());

  EXPECT_THAT(ErrorOf("sinks:\n  - {url: http://a/, name: x}\n  - {url: http://b/, name: x}\n"),
              HasSubstr("sinks[1].name: duplicate sink name \"x\" (also used by sinks[0])"));
  EXPECT_THAT(ErrorOf("sinks:\n  - {url: http://a/}\n  - {url: http://b/, name: sink-0}\n"),
              HasSubstr("sinks[1].name: duplicate sink name"));
  EXPECT_THAT(ErrorOf("sinks:\n  - {url: http://a/, name: \"my sink\"}\n"),
              HasSubstr("sinks[0].name: must be letters, digits"));
  EXPECT_THAT(ErrorOf("sinks:\n  - {url: http://a/, name: \"\"}\n"), HasSubstr("sinks[0].name"));
  EXPECT_THAT(ErrorOf("sinks:\n  - {url: http://a/, name: ray-export}\n"),
              HasSubstr("sinks[0].name: \"ray-export\" is reserved"));
}

TEST(YamlConfigTest, SinkUrls) {
  EXPECT_THAT(ErrorOf("sinks:\n  - name: a\n"), HasSubstr("sinks[0].url: is required"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: ftp://collector/\n"),
              HasSubstr("sinks[0].url: URL must start with http://, https:// or file://"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http:///path\n"),
              HasSubstr("sinks[0].url: http URL needs a host"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: file://relative.jsonl\n"),
              HasSubstr("sinks[0].url: file URL needs an absolute path"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: ftp://x/\n"),
              HasSubstr("sinks[0].url: URL must start with http://, https:// or file://"));
}

TEST(YamlConfigTest, LogLevels) {
  for (const char* level : {"trace", "debug", "info", "warn", "error", "critical", "off"}) {
    EXPECT_EQ(Parse(std::string("log:\n  level: ") + level + "\n").log.level, level);
  }
  EXPECT_EQ(Parse("log:\n  level: WARN\n").log.level, "warn");
  EXPECT_THAT(ErrorOf("log:\n  level: verbose\n"),
              HasSubstr("log.level: must be one of trace, debug, info, warn, error, critical, off; "
                        "got \"verbose\""));
}

TEST(YamlConfigTest, EveryProblemIsReportedOnItsOwnLine) {
  const std::string error =
      ErrorOf("grpc:\n  port: x\nbuffer:\n  max_events: 0\nlog:\n  levle: info\n");
  EXPECT_THAT(error, HasSubstr("grpc.port:"));
  EXPECT_THAT(error, HasSubstr("\nbuffer.max_events:"));
  EXPECT_THAT(error, HasSubstr("\nlog.levle: unknown key"));
}

TEST(YamlConfigTest, OneProblemPerKey) {
  // A url of the wrong type is not also reported as missing.
  const std::string error = ErrorOf("sinks:\n  - url: [http://a/]\n");
  EXPECT_THAT(error, HasSubstr("sinks[0].url: must be a string"));
  EXPECT_THAT(error, Not(HasSubstr("is required")));
}

TEST(YamlConfigTest, NothingIsReportedBelowABrokenKey) {
  const std::string error =
      ErrorOf("sinks:\n  - http://a/\n  - {url: http://b/, name: 'bad name'}\n");
  EXPECT_THAT(error, HasSubstr("sinks[0]: must be a map"));
  EXPECT_THAT(error, Not(HasSubstr("sinks[0].url")));
  EXPECT_THAT(error, HasSubstr("sinks[1].name: must be letters"));
}

TEST(YamlConfigTest, InvalidYamlReportsLine) {
  const std::string error = ErrorOf("grpc:\n  port: [1, 2\n");
  EXPECT_THAT(error, HasSubstr("invalid YAML at line"));
}

TEST(YamlConfigTest, DeliveryPolicyKeys) {
  Config config = Parse(
      "sinks:\n  - url: http://a/\n    retry_policy: ray_compat\n    max_in_flight: 4\n"
      "    max_events_per_second: 5000\n    when_full: block\n"
      "    retry: {max_elapsed: 10m, max_retry_after: 30s, jitter_ratio: 0.2}\n");
  const SinkConfig& sink = config.sinks[0];
  EXPECT_EQ(sink.retry_policy, RetryPolicy::kRayCompat);
  EXPECT_EQ(sink.max_in_flight, 4u);
  EXPECT_EQ(sink.max_events_per_second, 5000u);
  EXPECT_EQ(sink.when_full, WhenFull::kBlock);
  EXPECT_EQ(sink.retry.max_elapsed, Duration(600'000));
  EXPECT_EQ(sink.retry.max_retry_after, Duration(30'000));
  EXPECT_EQ(sink.retry.jitter_ratio, 0.2);
  // Defaults: Ray's policy off, one batch in flight, no rate cap, drop_oldest, full jitter.
  const SinkConfig defaults = Parse("sinks:\n  - url: http://a/\n").sinks[0];
  EXPECT_EQ(defaults.retry_policy, RetryPolicy::kDefault);
  EXPECT_EQ(defaults.max_in_flight, 1u);
  EXPECT_EQ(defaults.max_events_per_second, 0u);
  EXPECT_EQ(defaults.when_full, WhenFull::kDropOldest);
  EXPECT_FALSE(defaults.retry.jitter_ratio.has_value());
  EXPECT_EQ(defaults.retry.max_elapsed, Duration(0));
}

TEST(YamlConfigTest, DeliveryPolicyErrorsNameTheKey) {
  EXPECT_THAT(
      ErrorOf("sinks:\n  - url: http://a/\n    retry_policy: vector\n"),
      HasSubstr("sinks[0].retry_policy: must be one of default, ray_compat; got \"vector\""));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    when_full: drop_newest\n"),
              HasSubstr("sinks[0].when_full: must be one of drop_oldest, block"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    max_in_flight: 0\n"),
              HasSubstr("sinks[0].max_in_flight"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    max_in_flight: 65\n"),
              HasSubstr("sinks[0].max_in_flight"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://a/\n    retry: {max_elapsed: 5}\n"),
              HasSubstr("sinks[0].retry.max_elapsed"));
}

}  // namespace
}  // namespace rayagg

namespace rayagg {
namespace {

TEST(YamlConfigTest, HttpIngestSection) {
  Config config = Parse(R"(
http_ingest:
  enabled: true
  address: 0.0.0.0
  port: 18084
  path: /ray/events
  max_body_bytes: 64MiB
)");
  EXPECT_TRUE(config.http_ingest.enabled);
  EXPECT_EQ(config.http_ingest.address, "0.0.0.0");
  EXPECT_EQ(config.http_ingest.port, 18084);
  EXPECT_EQ(config.http_ingest.path, "/ray/events");
  EXPECT_EQ(config.http_ingest.max_body_bytes, 64u << 20);

  const Config defaults = Parse("http_ingest:\n");
  EXPECT_FALSE(defaults.http_ingest.enabled);
  EXPECT_EQ(defaults.http_ingest.port, 8084);
  EXPECT_EQ(defaults.http_ingest.path, "/v1/events");
  EXPECT_EQ(defaults.http_ingest.max_body_bytes, 20u << 20);
}

TEST(YamlConfigTest, HttpIngestErrorsNameTheKey) {
  EXPECT_THAT(ErrorOf("http_ingest: {path: v1/events}\n"), HasSubstr("http_ingest.path"));
  EXPECT_THAT(ErrorOf("http_ingest: {path: \"/v1?x=1\"}\n"), HasSubstr("http_ingest.path"));
  EXPECT_THAT(ErrorOf("http_ingest: {max_body_bytes: 10}\n"),
              HasSubstr("http_ingest.max_body_bytes"));
  EXPECT_THAT(ErrorOf("http_ingest: {port: 70000}\n"), HasSubstr("http_ingest.port"));
  EXPECT_THAT(ErrorOf("http_ingest: {address: \"\"}\n"), HasSubstr("http_ingest.address"));
  EXPECT_THAT(ErrorOf("http_ingest: {enabled: maybe}\n"), HasSubstr("http_ingest.enabled"));
  EXPECT_THAT(ErrorOf("http_ingest: {prot: 1}\n"), HasSubstr("http_ingest.prot"));
}

TEST(YamlConfigTest, ListenerLimits) {
  Config config = Parse(R"(
http_ingest:
  limits:
    max_connections: 2000
    max_header_bytes: 8KiB
    max_header_fields: 50
    max_requests_per_connection: 0
    idle_timeout: 5s
    read_timeout: 2s
ops:
  limits: {max_connections: 4, read_timeout: 1s}
)");
  const HttpListenerLimits& http = config.http_ingest.limits;
  EXPECT_EQ(http.max_connections, 2000u);
  EXPECT_EQ(http.max_header_bytes, 8u * 1024);
  EXPECT_EQ(http.max_header_fields, 50u);
  EXPECT_EQ(http.max_requests_per_connection, 0u);
  EXPECT_EQ(http.idle_timeout, Duration(5000));
  EXPECT_EQ(http.read_timeout, Duration(2000));
  EXPECT_EQ(config.ops.limits.max_connections, 4u);
  EXPECT_EQ(config.ops.limits.read_timeout, Duration(1000));
  EXPECT_EQ(config.ops.limits.idle_timeout, Duration(30'000));  // default kept

  const Config defaults = Parse("");
  EXPECT_EQ(defaults.http_ingest.limits.max_connections, 256u);
  EXPECT_EQ(defaults.http_ingest.limits.read_timeout, Duration(10'000));
  EXPECT_EQ(defaults.ops.limits.max_connections, 32u);
  EXPECT_EQ(defaults.ops.limits.read_timeout, Duration(5'000));
}

TEST(YamlConfigTest, GrpcLimits) {
  Config config = Parse(R"(
grpc:
  max_concurrent_streams: 10
  memory_limit_bytes: 64MiB
  handshake_timeout: 2s
  keepalive_min_interval: 1m
)");
  EXPECT_EQ(config.grpc.max_concurrent_streams, 10u);
  EXPECT_EQ(config.grpc.memory_limit_bytes, 64u << 20);
  EXPECT_EQ(config.grpc.handshake_timeout, Duration(2000));
  EXPECT_EQ(config.grpc.keepalive_min_interval, Duration(60'000));
  EXPECT_THAT(ErrorOf("grpc: {max_concurrent_streams: 0}\n"),
              HasSubstr("grpc.max_concurrent_streams"));
  EXPECT_THAT(ErrorOf("grpc: {memory_limit_bytes: 1KiB}\n"), HasSubstr("grpc.memory_limit_bytes"));
  EXPECT_THAT(ErrorOf("grpc: {handshake_timeout: 0ms}\n"), HasSubstr("grpc.handshake_timeout"));
  EXPECT_THAT(ErrorOf("grpc: {keepalive_min_interval: 5}\n"),
              HasSubstr("grpc.keepalive_min_interval"));
}

TEST(YamlConfigTest, ListenerLimitErrorsNameTheKey) {
  EXPECT_THAT(ErrorOf("http_ingest: {limits: {max_connections: 0}}\n"),
              HasSubstr("http_ingest.limits.max_connections"));
  EXPECT_THAT(ErrorOf("ops: {limits: {max_connections: 100000}}\n"),
              HasSubstr("ops.limits.max_connections"));
  EXPECT_THAT(ErrorOf("http_ingest: {limits: {max_header_bytes: 100}}\n"),
              HasSubstr("http_ingest.limits.max_header_bytes"));
  EXPECT_THAT(ErrorOf("http_ingest: {limits: {max_header_fields: 0}}\n"),
              HasSubstr("http_ingest.limits.max_header_fields"));
  EXPECT_THAT(ErrorOf("ops: {limits: {idle_timeout: 0ms}}\n"),
              HasSubstr("ops.limits.idle_timeout"));
  EXPECT_THAT(ErrorOf("http_ingest: {limits: {read_timeout: 3}}\n"),
              HasSubstr("http_ingest.limits.read_timeout"));
  EXPECT_THAT(ErrorOf("http_ingest: {limits: {max_conections: 3}}\n"),
              HasSubstr("http_ingest.limits.max_conections"));
}

}  // namespace
}  // namespace rayagg
