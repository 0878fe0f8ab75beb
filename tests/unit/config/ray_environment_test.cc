// Ray's RAY_DASHBOARD_AGGREGATOR_AGENT_* variables (behaviour reference §3.1),
// through LoadConfig with no file and no flags.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "config/load_config.h"
#include "config_test_util.h"

namespace rayagg {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_config::Same;

constexpr char kPrefix[] = "RAY_DASHBOARD_AGGREGATOR_AGENT_";
constexpr char kAddr[] = "http://collector:12345/events";

std::map<std::string, std::string> Vars(std::map<std::string, std::string> short_names) {
  std::map<std::string, std::string> vars;
  for (auto& [name, value] : short_names) vars[kPrefix + name] = value;
  return vars;
}

LoadedConfig Load(std::map<std::string, std::string> short_names) {
  absl::StatusOr<LoadedConfig> loaded =
      LoadConfig(CommandLine{}, Environment(Vars(std::move(short_names))));
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? *std::move(loaded) : LoadedConfig{};
}

// The env sink after applying `extra` next to EVENTS_EXPORT_ADDR.
SinkConfig EnvSink(std::map<std::string, std::string> extra,
                   std::vector<std::string>* warnings = nullptr) {
  extra["EVENTS_EXPORT_ADDR"] = kAddr;
  LoadedConfig loaded = Load(std::move(extra));
  if (warnings != nullptr) *warnings = loaded.warnings;
  EXPECT_EQ(loaded.config.sinks.size(), 1u);
  return loaded.config.sinks.empty() ? SinkConfig{} : loaded.config.sinks[0];
}

SinkConfig DefaultEnvSink() {
  SinkConfig sink;
  sink.name = "ray-export";
  sink.url = kAddr;
  return sink;
}

TEST(RayEnvironmentTest, NothingSetGivesDefaultsAndANoSinkWarning) {
  LoadedConfig loaded = Load({});
  EXPECT_TRUE(Same(loaded.config, Config{}));
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_THAT(loaded.warnings[0], HasSubstr("no sinks are configured"));
}

TEST(RayEnvironmentTest, ExportAddrCreatesRaySink) {
  std::vector<std::string> warnings;
  SinkConfig sink = EnvSink({}, &warnings);
  EXPECT_TRUE(Same(sink, DefaultEnvSink()));
  EXPECT_EQ(sink.event_types, EventTypeFilter::RayDefault());
  EXPECT_THAT(warnings, IsEmpty());
}

TEST(RayEnvironmentTest, EmptyExportAddrCreatesNothing) {
  LoadedConfig loaded = Load({{"EVENTS_EXPORT_ADDR", ""}});
  EXPECT_THAT(loaded.config.sinks, IsEmpty());
}

TEST(RayEnvironmentTest, PublishSwitchFollowsEnvBool) {
  for (const char* on : {"true", "True", "TRUE", "1"}) {
    EXPECT_EQ(Load({{"EVENTS_EXPORT_ADDR", kAddr}, {"PUBLISH_EVENTS_TO_EXTERNAL_HTTP_SERVICE", on}})
                  .config.sinks.size(),
              1u)
        << on;
  }
  for (const char* off : {"false", "0", "no", "", "yes", "on"}) {
    LoadedConfig loaded =
        Load({{"EVENTS_EXPORT_ADDR", kAddr}, {"PUBLISH_EVENTS_TO_EXTERNAL_HTTP_SERVICE", off}});
    EXPECT_THAT(loaded.config.sinks, IsEmpty()) << off;
    EXPECT_THAT(loaded.warnings, Contains(HasSubstr("turns the export off"))) << off;
  }
}

TEST(RayEnvironmentTest, PublishSwitchOldSpelling) {
  EXPECT_THAT(
      Load({{"EVENTS_EXPORT_ADDR", kAddr}, {"PUBLISH_EVENTS_TO_EXTERNAL_HTTP_SVC", "false"}})
          .config.sinks,
      IsEmpty());
}

TEST(RayEnvironmentTest, UnusableExportAddrWarnsAndCreatesNothing) {
  LoadedConfig loaded = Load({{"EVENTS_EXPORT_ADDR", "ftp://collector/events"}});
  EXPECT_THAT(loaded.config.sinks, IsEmpty());
  EXPECT_THAT(loaded.warnings,
              Contains(AllOf(HasSubstr("EVENTS_EXPORT_ADDR"), HasSubstr("must start with http://"),
                             HasSubstr("NO sink"))));
}

TEST(RayEnvironmentTest, ExportAddrCredentialsAreNotEchoed) {
  LoadedConfig loaded = Load({{"EVENTS_EXPORT_ADDR", "http://u:secret@collector/"}});
  for (const std::string& warning : loaded.warnings)
    EXPECT_THAT(warning, ::testing::Not(HasSubstr("secret")));
}

TEST(RayEnvironmentTest, ExposableTypesAllThreeSpellings) {
  for (const char* name : {"EXPOSABLE_EVENT_TYPES", "PUBLISHER_EXPOSABLE_EVENT_TYPES",
                           "PUBLISHER_HTTP_ENDPOINT_EXPOSABLE_EVENT_TYPES"}) {
    EXPECT_EQ(EnvSink({{name, "TASK_PROFILE_EVENT"}}).event_types, EventTypeFilter::Of({4}))
        << name;
  }
}

TEST(RayEnvironmentTest, ExposableTypesCanonicalSpellingWins) {
  std::vector<std::string> warnings;
  SinkConfig sink =
      EnvSink({{"EXPOSABLE_EVENT_TYPES", "TASK_PROFILE_EVENT"},
               {"PUBLISHER_EXPOSABLE_EVENT_TYPES", "NODE_DEFINITION_EVENT"},
               {"PUBLISHER_HTTP_ENDPOINT_EXPOSABLE_EVENT_TYPES", "ACTOR_DEFINITION_EVENT"}},
              &warnings);
  EXPECT_EQ(sink.event_types, EventTypeFilter::Of({4}));
  EXPECT_THAT(warnings, Contains(HasSubstr("PUBLISHER_EXPOSABLE_EVENT_TYPES is ignored")));

  sink = EnvSink({{"PUBLISHER_EXPOSABLE_EVENT_TYPES", "NODE_DEFINITION_EVENT"},
                  {"PUBLISHER_HTTP_ENDPOINT_EXPOSABLE_EVENT_TYPES", "ACTOR_DEFINITION_EVENT"}});
  EXPECT_EQ(sink.event_types, EventTypeFilter::Of({7}));
}

TEST(RayEnvironmentTest, ExposableTypesSameValueTwiceIsQuiet) {
  // KubeRay sets both the canonical and the 2.53 name.
  std::vector<std::string> warnings;
  EnvSink(
      {{"EXPOSABLE_EVENT_TYPES", "ALL"}, {"PUBLISHER_HTTP_ENDPOINT_EXPOSABLE_EVENT_TYPES", "ALL"}},
      &warnings);
  EXPECT_THAT(warnings, IsEmpty());
}

TEST(RayEnvironmentTest, ExposableTypesAllWithBlanks) {
  EXPECT_TRUE(EnvSink({{"EXPOSABLE_EVENT_TYPES", "  all \n"}}).event_types.accepts_all());
  EXPECT_TRUE(EnvSink({{"EXPOSABLE_EVENT_TYPES", "ALL"}}).event_types.accepts_all());
}

TEST(RayEnvironmentTest, ExposableTypesBlankExportsNothing) {
  std::vector<std::string> warnings;
  SinkConfig sink = EnvSink({{"EXPOSABLE_EVENT_TYPES", "  "}}, &warnings);
  EXPECT_TRUE(sink.event_types.accepts_none());
  EXPECT_THAT(warnings, Contains(HasSubstr("sink \"ray-export\" exports nothing")));
  EXPECT_TRUE(EnvSink({{"EXPOSABLE_EVENT_TYPES", ""}}).event_types.accepts_none());
}

TEST(RayEnvironmentTest, ExposableTypesRaySplitting) {
  // G3's default value ends with a comma; items are stripped of blanks and newlines.
  SinkConfig sink =
      EnvSink({{"EXPOSABLE_EVENT_TYPES", "TASK_DEFINITION_EVENT,\n  TASK_LIFECYCLE_EVENT ,"}});
  EXPECT_EQ(sink.event_types, EventTypeFilter::Of({1, 2}));
}

TEST(RayEnvironmentTest, ExposableTypesUnknownNamesWarnAndAreIgnored) {
  std::vector<std::string> warnings;
  SinkConfig sink = EnvSink(
      {{"EXPOSABLE_EVENT_TYPES", "TASK_DEFINITION_EVENT,task_lifecycle_event,FOO"}}, &warnings);
  EXPECT_EQ(sink.event_types, EventTypeFilter::Of({1}));
  EXPECT_THAT(warnings, Contains(AllOf(HasSubstr("EXPOSABLE_EVENT_TYPES"),
                                       HasSubstr("task_lifecycle_event, FOO"))));
}

TEST(RayEnvironmentTest, BufferSize) {
  EXPECT_EQ(Load({{"MAX_EVENT_BUFFER_SIZE", "5000"}}).config.buffer.max_events, 5000u);
  LoadedConfig loaded = Load({{"MAX_EVENT_BUFFER_SIZE", "0"}});
  EXPECT_EQ(loaded.config.buffer.max_events, BufferConfig{}.max_events);
  EXPECT_THAT(loaded.warnings, Contains(AllOf(HasSubstr("MAX_EVENT_BUFFER_SIZE=\"0\" ignored"),
                                              HasSubstr("100000"))));
}

TEST(RayEnvironmentTest, IntegersFollowRayIsDigit) {
  // Ray's env_integer ignores anything that is not all digits.
  for (const char* value : {"-1", " 5", "5 ", "1.5", "1e3", "", "+5"}) {
    std::vector<std::string> warnings;
    SinkConfig sink = EnvSink({{"MAX_EVENT_SEND_BATCH_SIZE", value}}, &warnings);
    EXPECT_EQ(sink.batch.max_events, BatchConfig{}.max_events) << value;
    EXPECT_THAT(warnings,
                Contains(AllOf(HasSubstr("MAX_EVENT_SEND_BATCH_SIZE"), HasSubstr("digits"))))
        << value;
  }
  EXPECT_EQ(EnvSink({{"MAX_EVENT_SEND_BATCH_SIZE", "250"}}).batch.max_events, 250u);
}

TEST(RayEnvironmentTest, BatchSizeZeroIsAcceptedByRayButNotUsable) {
  std::vector<std::string> warnings;
  EXPECT_EQ(EnvSink({{"MAX_EVENT_SEND_BATCH_SIZE", "0"}}, &warnings).batch.max_events,
            BatchConfig{}.max_events);
  EXPECT_THAT(warnings, Contains(HasSubstr("cannot use")));
}

TEST(RayEnvironmentTest, SendIntervalBothSpellings) {
  EXPECT_EQ(EnvSink({{"PUBLISHER_MAX_BUFFER_SEND_INTERVAL_SECONDS", "0.5"}}).batch.flush_interval,
            Duration(500));
  EXPECT_EQ(EnvSink({{"MAX_BUFFER_SEND_INTERVAL_SECONDS", "2"}}).batch.flush_interval,
            Duration(2000));
  EXPECT_EQ(EnvSink({{"PUBLISHER_MAX_BUFFER_SEND_INTERVAL_SECONDS", "1"},
                     {"MAX_BUFFER_SEND_INTERVAL_SECONDS", "1"}})
                .batch.flush_interval,
            Duration(1000));
  EXPECT_EQ(EnvSink({{"PUBLISHER_MAX_BUFFER_SEND_INTERVAL_SECONDS", "0"}}).batch.flush_interval,
            Duration(0));
}

TEST(RayEnvironmentTest, BadFloatsWarnAndKeepDefaults) {
  for (const char* value : {"abc", "", "-1", "nan", "inf", "0.1s"}) {
    std::vector<std::string> warnings;
    SinkConfig sink = EnvSink({{"PUBLISHER_MAX_BUFFER_SEND_INTERVAL_SECONDS", value}}, &warnings);
    EXPECT_EQ(sink.batch.flush_interval, BatchConfig{}.flush_interval) << value;
    EXPECT_THAT(warnings, Contains(HasSubstr("PUBLISHER_MAX_BUFFER_SEND_INTERVAL_SECONDS")))
        << value;
  }
}

TEST(RayEnvironmentTest, PreserveProtoFieldName) {
  EXPECT_TRUE(EnvSink({{"PRESERVE_PROTO_FIELD_NAME", "True"}}).preserve_proto_field_names);
  EXPECT_TRUE(EnvSink({{"PRESERVE_PROTO_FIELD_NAME", "1"}}).preserve_proto_field_names);
  EXPECT_FALSE(EnvSink({{"PRESERVE_PROTO_FIELD_NAME", "yes"}}).preserve_proto_field_names);
}

TEST(RayEnvironmentTest, TimeoutIsAnInteger) {
  EXPECT_EQ(EnvSink({{"PUBLISHER_TIMEOUT_SECONDS", "10"}}).request_timeout, Duration(10'000));
  // Ray reads it with env_integer: "1.5" is ignored, not rounded.
  std::vector<std::string> warnings;
  EXPECT_EQ(EnvSink({{"PUBLISHER_TIMEOUT_SECONDS", "1.5"}}, &warnings).request_timeout,
            Duration(3000));
  EXPECT_THAT(warnings, Contains(HasSubstr("PUBLISHER_TIMEOUT_SECONDS=\"1.5\" ignored")));
  EXPECT_EQ(EnvSink({{"PUBLISHER_TIMEOUT_SECONDS", "0"}}).request_timeout, Duration(3000));
}

TEST(RayEnvironmentTest, MaxRetries) {
  EXPECT_EQ(EnvSink({{"PUBLISHER_MAX_RETRIES", "3"}}).retry.max_retries, 3);
  EXPECT_EQ(EnvSink({{"PUBLISHER_MAX_RETRIES", "0"}}).retry.max_retries, 0);
  // "-1" is not all digits: Ray ignores it and keeps its default, -1 (forever).
  std::vector<std::string> warnings;
  EXPECT_EQ(EnvSink({{"PUBLISHER_MAX_RETRIES", "-1"}}, &warnings).retry.max_retries, -1);
  EXPECT_THAT(warnings, Contains(HasSubstr("PUBLISHER_MAX_RETRIES=\"-1\" ignored")));
}

TEST(RayEnvironmentTest, BackoffAndJitter) {
  SinkConfig sink = EnvSink({{"PUBLISHER_INITIAL_BACKOFF_SECONDS", "0.05"},
                             {"PUBLISHER_MAX_BACKOFF_SECONDS", "30"},
                             {"PUBLISHER_JITTER_RATIO", "0.5"}});
  EXPECT_EQ(sink.retry.initial_backoff, Duration(50));
  EXPECT_EQ(sink.retry.max_backoff, Duration(30'000));
  EXPECT_EQ(sink.retry.jitter_ratio, 0.5);
}

TEST(RayEnvironmentTest, UnusableBackoffAndJitterKeepDefaults) {
  const RetryConfig defaults;
  for (auto [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"PUBLISHER_INITIAL_BACKOFF_SECONDS", "0"},
                                                        {"PUBLISHER_INITIAL_BACKOFF_SECONDS", "x"},
                                                        {"PUBLISHER_MAX_BACKOFF_SECONDS", "-5"},
                                                        {"PUBLISHER_JITTER_RATIO", "1.5"},
                                                        {"PUBLISHER_JITTER_RATIO", "-0.1"},
                                                        {"PUBLISHER_JITTER_RATIO", "nan"}}) {
    std::vector<std::string> warnings;
    SinkConfig sink = EnvSink({{name, value}}, &warnings);
    EXPECT_TRUE(testing_config::Same(sink.retry, defaults)) << name << "=" << value;
    EXPECT_THAT(warnings, Contains(HasSubstr(name))) << name << "=" << value;
  }
}

TEST(RayEnvironmentTest, InconsistentBackoffPairKeepsDefaults) {
  std::vector<std::string> warnings;
  // 10s initial with the 5s default maximum.
  SinkConfig sink = EnvSink({{"PUBLISHER_INITIAL_BACKOFF_SECONDS", "10"}}, &warnings);
  EXPECT_EQ(sink.retry.initial_backoff, Duration(10));
  EXPECT_EQ(sink.retry.max_backoff, Duration(5000));
  EXPECT_THAT(warnings, Contains(HasSubstr("below the initial backoff")));
}

TEST(RayEnvironmentTest, SinkVariablesWithoutSinkWarn) {
  LoadedConfig loaded =
      Load({{"MAX_EVENT_SEND_BATCH_SIZE", "5"}, {"EXPOSABLE_EVENT_TYPES", "ALL"}});
  EXPECT_THAT(loaded.config.sinks, IsEmpty());
  EXPECT_THAT(loaded.warnings,
              Contains(AllOf(HasSubstr("MAX_EVENT_SEND_BATCH_SIZE has no effect"))));
  EXPECT_THAT(loaded.warnings, Contains(AllOf(HasSubstr("EXPOSABLE_EVENT_TYPES has no effect"))));
}

}  // namespace
}  // namespace rayagg
