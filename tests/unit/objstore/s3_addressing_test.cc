#include "objstore/s3_addressing.h"

#include <gtest/gtest.h>

namespace rayagg::s3 {
namespace {

absl::StatusOr<Addressing> Resolve(std::string url, S3Config config) {
  auto parsed = ParseStoreUrl(url);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return ResolveAddressing(*parsed, config);
}

TEST(S3AddressingTest, AwsDefaultIsVirtualHostedHttps) {
  S3Config config;
  config.region = "eu-west-1";
  auto a = Resolve("s3://ray-history/team", config);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->endpoint.https);
  EXPECT_EQ(a->endpoint.host_header, "ray-history.s3.eu-west-1.amazonaws.com");
  EXPECT_EQ(a->endpoint.connect_host, "ray-history.s3.eu-west-1.amazonaws.com");
  EXPECT_EQ(a->endpoint.connect_port, 443);
  EXPECT_EQ(a->endpoint.tls_name, "ray-history.s3.eu-west-1.amazonaws.com");
  EXPECT_EQ(a->FullKey("cluster-history/x"), "team/cluster-history/x");
  EXPECT_EQ(a->ObjectPath("team/a b+c"), "/team/a%20b%2Bc");
  EXPECT_EQ(a->BucketPath(), "/");
}

TEST(S3AddressingTest, AlibabaOss) {
  S3Config config;
  config.region = "cn-hangzhou";
  config.endpoint = "https://s3.oss-cn-hangzhou-internal.aliyuncs.com";
  auto a = Resolve("s3://ray-events", config);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->endpoint.host_header, "ray-events.s3.oss-cn-hangzhou-internal.aliyuncs.com");
  EXPECT_EQ(a->FullKey("k"), "k");
}

TEST(S3AddressingTest, PathStyleOnAnIpWithPort) {
  S3Config config;
  config.endpoint = "http://10.0.0.5:7480";
  config.addressing = S3Config::Addressing::kPath;
  auto a = Resolve("s3://bucket/p", config);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_FALSE(a->endpoint.https);
  EXPECT_EQ(a->endpoint.host_header, "10.0.0.5:7480");
  EXPECT_EQ(a->endpoint.connect_host, "10.0.0.5");
  EXPECT_EQ(a->endpoint.connect_port, 7480);
  EXPECT_EQ(a->ObjectPath("p/k"), "/bucket/p/k");
  EXPECT_EQ(a->BucketPath(), "/bucket");
}

TEST(S3AddressingTest, ConnectAddressKeepsTheHostHeader) {
  S3Config config;
  config.endpoint = "https://s3.localhost:8443";
  config.connect_address = "127.0.0.1:39523";
  auto a = Resolve("s3://events", config);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->endpoint.host_header, "events.s3.localhost:8443");
  EXPECT_EQ(a->endpoint.tls_name, "events.s3.localhost");
  EXPECT_EQ(a->endpoint.connect_host, "127.0.0.1");
  EXPECT_EQ(a->endpoint.connect_port, 39523);
  config.connect_address = "[::1]:9000";
  a = Resolve("s3://events", config);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->endpoint.connect_host, "::1");
}

TEST(S3AddressingTest, ConfigErrorsNameTheKey) {
  S3Config config;
  config.endpoint = "https://10.0.0.5";
  EXPECT_NE(Resolve("s3://bucket", config).status().message().find("s3.addressing: path"),
            std::string::npos);
  config = S3Config{};
  auto dotted = Resolve("s3://my.dotted.bucket", config);
  EXPECT_FALSE(dotted.ok());
  EXPECT_NE(dotted.status().message().find("dots"), std::string::npos);
  config.addressing = S3Config::Addressing::kPath;
  EXPECT_TRUE(Resolve("s3://my.dotted.bucket", config).ok());
  config = S3Config{};
  config.endpoint = "http://s3.example.com";
  EXPECT_TRUE(Resolve("s3://my.dotted.bucket", config).ok());  // no certificate to match
  config.endpoint = "ftp://x";
  EXPECT_NE(Resolve("s3://bucket", config).status().message().find("s3.endpoint"),
            std::string::npos);
  config.endpoint = "https://s3.example.com/base";
  EXPECT_NE(Resolve("s3://bucket", config).status().message().find("s3.endpoint"),
            std::string::npos);
  config = S3Config{};
  config.region = "US East";
  EXPECT_NE(Resolve("s3://bucket", config).status().message().find("s3.region"), std::string::npos);
  config = S3Config{};
  for (std::string bad : {"127.0.0.1", "host:", ":80", "host:99999", "[::1]80"}) {
    config.connect_address = bad;
    EXPECT_NE(Resolve("s3://bucket", config).status().message().find("s3.connect_address"),
              std::string::npos)
        << bad;
  }
}

}  // namespace
}  // namespace rayagg::s3
