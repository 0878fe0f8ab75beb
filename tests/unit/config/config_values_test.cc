// The small value parsers: durations, byte sizes, sink URLs, event type
// lists and Ray's env_integer / env_float / env_bool.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "config/event_type_list.h"
#include "config/ray_environment.h"
#include "config/units.h"
#include "config_test_util.h"
#include "sinks/rules/sink_url.h"

namespace rayagg {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_config::Message;

TEST(DurationTest, AcceptsEveryUnit) {
  EXPECT_EQ(*ParseDuration("100ms"), Duration(100));
  EXPECT_EQ(*ParseDuration("3s"), Duration(3000));
  EXPECT_EQ(*ParseDuration("1.5s"), Duration(1500));
  EXPECT_EQ(*ParseDuration("2m"), Duration(120'000));
  EXPECT_EQ(*ParseDuration("1h"), Duration(3'600'000));
  EXPECT_EQ(*ParseDuration("0.25h"), Duration(900'000));
  EXPECT_EQ(*ParseDuration("0s"), Duration(0));
  EXPECT_EQ(*ParseDuration(" 10 ms "), Duration(10));
  EXPECT_EQ(*ParseDuration(".5s"), Duration(500));
}

TEST(DurationTest, BareNumberAsksForUnit) {
  absl::StatusOr<Duration> result = ParseDuration("100");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(Message(result), HasSubstr("needs a unit"));
  EXPECT_THAT(Message(result), HasSubstr("\"100ms\""));
}

TEST(DurationTest, RejectsNonsense) {
  for (const char* text : {"", "ms", "-1s", "1.5.5s", "1 sec", "1S", "1d", "abc", "1e3ms", "5s5"}) {
    EXPECT_FALSE(ParseDuration(text).ok()) << text;
  }
}

TEST(DurationTest, RejectsFractionsOfMilliseconds) {
  absl::StatusOr<Duration> result = ParseDuration("1.5ms");
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(Message(result), HasSubstr("whole number of milliseconds"));
  EXPECT_FALSE(ParseDuration("0.0001s").ok());
}

TEST(DurationTest, RejectsOverlongAndOverflowingValues) {
  EXPECT_TRUE(ParseDuration("8760h").ok());
  EXPECT_FALSE(ParseDuration("8761h").ok());
  EXPECT_FALSE(ParseDuration("99999999999999999999999s").ok());
}

TEST(DurationTest, FromSeconds) {
  EXPECT_EQ(*DurationFromSeconds(0.1), Duration(100));
  EXPECT_EQ(*DurationFromSeconds(5.0), Duration(5000));
  EXPECT_EQ(*DurationFromSeconds(0.0004), Duration(0));
  EXPECT_FALSE(DurationFromSeconds(-0.1).ok());
  EXPECT_FALSE(DurationFromSeconds(NAN).ok());
  EXPECT_FALSE(DurationFromSeconds(INFINITY).ok());
  EXPECT_FALSE(DurationFromSeconds(1e12).ok());
}

TEST(DurationTest, Format) {
  EXPECT_EQ(FormatDuration(Duration(100)), "100ms");
  EXPECT_EQ(FormatDuration(Duration(1500)), "1500ms");
  EXPECT_EQ(FormatDuration(Duration(3000)), "3s");
  EXPECT_EQ(FormatDuration(Duration(300'000)), "5m");
  EXPECT_EQ(FormatDuration(Duration(7'200'000)), "2h");
  EXPECT_EQ(FormatDuration(Duration(0)), "0ms");
}

TEST(ByteSizeTest, AcceptsIntegersAndUnits) {
  EXPECT_EQ(*ParseByteSize("1048576"), 1048576u);
  EXPECT_EQ(*ParseByteSize("64KiB"), 64u * 1024);
  EXPECT_EQ(*ParseByteSize("10MiB"), 10u * 1024 * 1024);
  EXPECT_EQ(*ParseByteSize("2GiB"), 2ull * 1024 * 1024 * 1024);
  EXPECT_EQ(*ParseByteSize("1.5MiB"), 1536u * 1024);
  EXPECT_EQ(*ParseByteSize("5KB"), 5000u);
  EXPECT_EQ(*ParseByteSize("3MB"), 3'000'000u);
  EXPECT_EQ(*ParseByteSize("1GB"), 1'000'000'000u);
  EXPECT_EQ(*ParseByteSize("10 MiB"), 10u * 1024 * 1024);
}

TEST(ByteSizeTest, RejectsNonsense) {
  for (const char* text :
       {"", "abc", "-1", "1.5", "10mb", "10M", "10MiBs", "1TiB", "0.1B", "1.0000001KiB"}) {
    EXPECT_FALSE(ParseByteSize(text).ok()) << text;
  }
  EXPECT_FALSE(ParseByteSize("99999999999GiB").ok());
}

TEST(ByteSizeTest, Format) {
  EXPECT_EQ(FormatByteSize(20ull * 1024 * 1024), "20MiB");
  EXPECT_EQ(FormatByteSize(1024), "1KiB");
  EXPECT_EQ(FormatByteSize(1500), "1500B");
  EXPECT_EQ(FormatByteSize(3ull << 30), "3GiB");
}

TEST(SinkUrlTest, Http) {
  absl::StatusOr<SinkUrl> url = ParseSinkUrl("http://collector:8080/events?x=1");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->kind, SinkUrl::Kind::kHttp);
  EXPECT_EQ(url->http.host, "collector");
  EXPECT_EQ(url->http.port, 8080);
  EXPECT_EQ(url->http.target, "/events?x=1");

  url = ParseSinkUrl("http://127.0.0.1");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->http.port, 80);
  EXPECT_EQ(url->http.target, "/");

  url = ParseSinkUrl("HTTP://[::1]:9000?q");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->http.host, "::1");
  EXPECT_EQ(url->http.port, 9000);
  EXPECT_EQ(url->http.target, "/?q");
}

TEST(SinkUrlTest, File) {
  absl::StatusOr<SinkUrl> url = ParseSinkUrl("file:///dev/stdout");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->kind, SinkUrl::Kind::kFile);
  EXPECT_EQ(url->path, "/dev/stdout");
}

TEST(SinkUrlTest, Https) {
  absl::StatusOr<SinkUrl> url = ParseSinkUrl("HTTPS://collector/events");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->kind, SinkUrl::Kind::kHttp);
  EXPECT_EQ(url->http.scheme, "https");
  EXPECT_EQ(url->http.port, 443);
  EXPECT_THAT(Message(ParseSinkUrl("ftp://collector/")), HasSubstr("http://, https:// or file://"));
}

TEST(SinkUrlTest, Rejects) {
  EXPECT_THAT(Message(ParseSinkUrl("http:///events")), HasSubstr("needs a host"));
  EXPECT_THAT(Message(ParseSinkUrl("http://:80/")), HasSubstr("needs a host"));
  EXPECT_THAT(Message(ParseSinkUrl("file://")), HasSubstr("absolute path"));
  EXPECT_THAT(Message(ParseSinkUrl("file:///")), HasSubstr("absolute path"));
  EXPECT_THAT(Message(ParseSinkUrl("file://events.jsonl")), HasSubstr("absolute path"));
  EXPECT_THAT(Message(ParseSinkUrl("collector:8080")), HasSubstr("http://, https:// or file://"));
  EXPECT_THAT(Message(ParseSinkUrl("grpc://x")), HasSubstr("http://, https:// or file://"));
  EXPECT_THAT(Message(ParseSinkUrl("")), HasSubstr("must not be empty"));
  EXPECT_THAT(Message(ParseSinkUrl("http://host:0/")), HasSubstr("port"));
  EXPECT_THAT(Message(ParseSinkUrl("http://host:65536/")), HasSubstr("port"));
  EXPECT_THAT(Message(ParseSinkUrl("http://host:/")), HasSubstr("port"));
  EXPECT_THAT(Message(ParseSinkUrl("http://host/a b")), HasSubstr("space"));
  EXPECT_THAT(Message(ParseSinkUrl("http://ho st/")), HasSubstr("host"));
}

TEST(SinkUrlTest, CredentialsAreRefusedAndNotEchoed) {
  absl::StatusOr<SinkUrl> url = ParseSinkUrl("http://user:secret@collector/");
  ASSERT_FALSE(url.ok());
  EXPECT_THAT(Message(url), HasSubstr("user info"));
  EXPECT_THAT(Message(url), ::testing::Not(HasSubstr("secret")));
  EXPECT_EQ(RedactUrl("http://user:secret@collector:80/x@y"), "http://***@collector:80/x@y");
  EXPECT_EQ(RedactUrl("http://collector/x@y"), "http://collector/x@y");
}

TEST(EventTypeListTest, AllInAnyCaseWithBlanks) {
  EXPECT_TRUE(ParseRayEventTypeList("ALL").filter.accepts_all());
  EXPECT_TRUE(ParseRayEventTypeList(" all \n").filter.accepts_all());
  EXPECT_TRUE(ParseRayEventTypeList("All").filter.accepts_all());
  EXPECT_TRUE(IsAllEventTypes(" aLL "));
  EXPECT_FALSE(IsAllEventTypes("ALL,"));
}

TEST(EventTypeListTest, RaySplitting) {
  RayEventTypeList list = ParseRayEventTypeList(" TASK_DEFINITION_EVENT ,\nTASK_LIFECYCLE_EVENT,,");
  EXPECT_EQ(list.filter, EventTypeFilter::Of({1, 2}));
  EXPECT_TRUE(list.unknown_names.empty());
}

TEST(EventTypeListTest, UnknownAndWrongCaseNamesAreReported) {
  RayEventTypeList list =
      ParseRayEventTypeList("task_definition_event,NODE_DEFINITION_EVENT,ALL,FOO");
  EXPECT_EQ(list.filter, EventTypeFilter::Of({7}));
  EXPECT_THAT(list.unknown_names, ElementsAre("task_definition_event", "ALL", "FOO"));
}

TEST(EventTypeListTest, BlankMeansNothing) {
  EXPECT_TRUE(ParseRayEventTypeList("").filter.accepts_none());
  EXPECT_TRUE(ParseRayEventTypeList(" , \n").filter.accepts_none());
}

TEST(EventTypeListTest, Format) {
  EXPECT_EQ(FormatEventTypeFilter(EventTypeFilter::All()), "ALL");
  EXPECT_EQ(FormatEventTypeFilter(EventTypeFilter::None()), "none");
  EXPECT_EQ(FormatEventTypeFilter(EventTypeFilter::Of({2, 1})),
            "TASK_DEFINITION_EVENT,TASK_LIFECYCLE_EVENT");
}

TEST(RayEnvParsingTest, IntegerIsDigitsOnly) {
  EXPECT_EQ(ParseRayEnvInteger("5"), 5u);
  EXPECT_EQ(ParseRayEnvInteger("007"), 7u);
  for (const char* text :
       {"", "-1", " 5", "5 ", "+5", "1.5", "1e3", "0x10", "99999999999999999999999"}) {
    EXPECT_FALSE(ParseRayEnvInteger(text).has_value()) << text;
  }
}

TEST(RayEnvParsingTest, FloatLikePython) {
  EXPECT_EQ(ParseRayEnvFloat("0.5"), 0.5);
  EXPECT_EQ(ParseRayEnvFloat(" 2 "), 2.0);
  EXPECT_EQ(ParseRayEnvFloat("+1.5"), 1.5);
  EXPECT_EQ(ParseRayEnvFloat("-3"), -3.0);
  EXPECT_EQ(ParseRayEnvFloat("1e-2"), 0.01);
  EXPECT_EQ(ParseRayEnvFloat("1_000.5"), 1000.5);
  EXPECT_EQ(ParseRayEnvFloat(".5"), 0.5);
  EXPECT_TRUE(std::isinf(*ParseRayEnvFloat("inf")));
  EXPECT_TRUE(std::isnan(*ParseRayEnvFloat("nan")));
  EXPECT_TRUE(std::isinf(*ParseRayEnvFloat("1e999")));
  for (const char* text : {"", " ", "abc", "1,5", "1__0", "_1", "1_", "+-1", "0x10", "1.5s"}) {
    EXPECT_FALSE(ParseRayEnvFloat(text).has_value()) << text;
  }
}

TEST(RayEnvParsingTest, BoolLikeRay) {
  EXPECT_TRUE(ParseRayEnvBool("true"));
  EXPECT_TRUE(ParseRayEnvBool("TRUE"));
  EXPECT_TRUE(ParseRayEnvBool("True"));
  EXPECT_TRUE(ParseRayEnvBool("1"));
  for (const char* text : {"", "0", "false", "yes", "on", " true", "01"}) {
    EXPECT_FALSE(ParseRayEnvBool(text)) << text;
  }
}

}  // namespace
}  // namespace rayagg
