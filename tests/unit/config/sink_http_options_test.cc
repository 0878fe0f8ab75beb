// sinks[i].headers, bearer_token_file, compression and tls: parsing,
// validation errors that name the key, and a startup summary without secrets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/load_config.h"
#include "config_test_util.h"

namespace rayagg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_config::Message;

std::string ErrorOf(const std::string& yaml) {
  absl::StatusOr<Config> config = ParseConfigYaml(yaml);
  EXPECT_FALSE(config.ok()) << "parsed unexpectedly:\n" << yaml;
  return config.ok() ? "" : Message(config);
}

Config Parse(const std::string& yaml) {
  absl::StatusOr<Config> config = ParseConfigYaml(yaml);
  EXPECT_TRUE(config.ok()) << config.status() << "\n" << yaml;
  return config.ok() ? *config : Config{};
}

TEST(SinkHttpOptionsTest, ParsesEveryKey) {
  const Config config = Parse(R"(
sinks:
  - url: http://collector.example:8080/ray
    headers:
      X-Tenant: team-a
      X-Api-Key: s3cret-value
    bearer_token_file: /var/run/secrets/token
    compression: gzip
)");
  ASSERT_EQ(config.sinks.size(), 1u);
  const SinkConfig& sink = config.sinks[0];
  EXPECT_EQ(sink.headers, (std::vector<std::pair<std::string, std::string>>{
                              {"X-Tenant", "team-a"}, {"X-Api-Key", "s3cret-value"}}));
  EXPECT_EQ(sink.bearer_token_file, "/var/run/secrets/token");
  EXPECT_EQ(sink.compression, Compression::kGzip);
}

TEST(SinkHttpOptionsTest, ParsesTlsKeys) {
  const Config config = Parse(R"(
sinks:
  - url: https://collector.example:8443/ray
    tls:
      ca_file: /etc/ca.pem
      cert_file: /etc/client.pem
      key_file: /etc/client.key
      server_name: collector.internal
      insecure_skip_verify: true
)");
  ASSERT_EQ(config.sinks.size(), 1u);
  const TlsConfig& tls = config.sinks[0].tls;
  EXPECT_EQ(tls.ca_file, "/etc/ca.pem");
  EXPECT_EQ(tls.cert_file, "/etc/client.pem");
  EXPECT_EQ(tls.key_file, "/etc/client.key");
  EXPECT_EQ(tls.server_name, "collector.internal");
  EXPECT_TRUE(tls.insecure_skip_verify);
  EXPECT_THAT(DescribeConfig(config), HasSubstr("TLS verification OFF"));
}

TEST(SinkHttpOptionsTest, DefaultsAreNoHeadersNoCompressionVerifiedTls) {
  const Config config = Parse("sinks:\n  - url: http://127.0.0.1:1/x\n");
  const SinkConfig& sink = config.sinks.at(0);
  EXPECT_TRUE(sink.headers.empty());
  EXPECT_TRUE(sink.bearer_token_file.empty());
  EXPECT_EQ(sink.compression, Compression::kNone);
  EXPECT_FALSE(sink.tls.insecure_skip_verify);
}

TEST(SinkHttpOptionsTest, BadValuesNameTheirKey) {
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://h/x\n    compression: brotli\n"),
              HasSubstr("sinks[0].compression: must be none or gzip"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://h/x\n    headers: [a, b]\n"),
              HasSubstr("sinks[0].headers: must be a map"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://h/x\n    headers:\n      \"Bad Name\": v\n"),
              HasSubstr("sinks[0].headers.Bad Name: is not a valid HTTP header name"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://h/x\n    headers:\n      Content-Length: 5\n"),
              HasSubstr("sinks[0].headers.Content-Length: is always derived"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://h/x\n    headers:\n      Content-Encoding: br\n"),
              HasSubstr("sinks[0].headers.Content-Encoding: is set by `compression`"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://h/x\n    bearer_token_file: /t\n"
                      "    headers:\n      authorization: Basic x\n"),
              HasSubstr("sinks[0].headers.authorization: conflicts with bearer_token_file"));
  EXPECT_THAT(
      ErrorOf("sinks:\n  - url: http://h/x\n    headers:\n      X-A: \"1\"\n      x-a: \"2\"\n"),
      HasSubstr("sinks[0].headers.x-a: duplicate header"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://h/x\n    tls:\n      verify: false\n"),
              HasSubstr("sinks[0].tls.verify: unknown key"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: https://h/x\n    tls:\n      cert_file: /c.pem\n"),
              HasSubstr("sinks[0].tls.key_file: tls.cert_file and tls.key_file must be given"));
}

TEST(SinkHttpOptionsTest, HeaderValueWithLineBreakIsRejectedWithoutQuotingIt) {
  const std::string error =
      ErrorOf("sinks:\n  - url: http://h/x\n    headers:\n      X-Key: \"abc\\r\\nInjected: 1\"\n");
  EXPECT_THAT(error, HasSubstr("sinks[0].headers.X-Key: value must not contain CR, LF or NUL"));
  EXPECT_THAT(error, Not(HasSubstr("abc")));
}

TEST(SinkHttpOptionsTest, OptionsNeedTheRightScheme) {
  EXPECT_THAT(ErrorOf("sinks:\n  - url: file:///tmp/x\n    compression: gzip\n"),
              HasSubstr("sinks[0].compression: only for http(s):// sinks"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: file:///tmp/x\n    headers:\n      X-A: b\n"),
              HasSubstr("sinks[0].headers: only for http(s):// sinks"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: file:///tmp/x\n    bearer_token_file: /t\n"),
              HasSubstr("sinks[0].bearer_token_file: only for http(s):// sinks"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://h/x\n    tls:\n      ca_file: /ca.pem\n"),
              HasSubstr("sinks[0].tls: only for https:// sinks"));
}

TEST(SinkHttpOptionsTest, SummaryShowsHeaderNamesButNoSecrets) {
  const Config config = Parse(R"(
sinks:
  - name: secured
    url: http://collector:8080/ray
    headers:
      X-Api-Key: s3cret-value
    bearer_token_file: /var/run/secrets/token
    compression: gzip
)");
  const std::string summary = DescribeConfig(config);
  EXPECT_THAT(summary, HasSubstr("X-Api-Key"));
  EXPECT_THAT(summary, HasSubstr("bearer token from /var/run/secrets/token"));
  EXPECT_THAT(summary, HasSubstr("gzip"));
  EXPECT_THAT(summary, Not(HasSubstr("s3cret-value")));
}

}  // namespace
}  // namespace rayagg
