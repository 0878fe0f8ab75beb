#include "objstore/rules/store_url.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

TEST(StoreUrlTest, S3BucketAndPrefix) {
  auto url = ParseStoreUrl("s3://ray-history/team-a/prod/");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->kind, StoreUrl::Kind::kS3);
  EXPECT_EQ(url->bucket, "ray-history");
  EXPECT_EQ(url->prefix, "team-a/prod");
  url = ParseStoreUrl("S3://ray-history");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->prefix, "");
}

TEST(StoreUrlTest, DirPath) {
  auto url = ParseStoreUrl("dir:///var/lib/rayagg/store/");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->kind, StoreUrl::Kind::kDir);
  EXPECT_EQ(url->path, "/var/lib/rayagg/store");
  EXPECT_EQ(ParseStoreUrl("dir:///")->path, "/");
}

TEST(StoreUrlTest, Refusals) {
  for (std::string_view bad :
       {"s3://", "s3://ab", "s3://Upper", "s3://under_score", "s3://-lead", "s3://192.168.1.1",
        "s3://a..b", "s3://key:secret@bucket/p", "s3://bucket/p?x=1", "s3://bucket/a//b",
        "s3://bucket/a/../b", "dir://relative", "dir://", "dir:///a/../b", "http://x/y",
        "file:///x"}) {
    EXPECT_FALSE(ParseStoreUrl(bad).ok()) << bad;
  }
  // Secrets in a refused URL are not echoed.
  const auto status = ParseStoreUrl("s3://key:secret@bucket/p").status();
  EXPECT_NE(status.message().find("credentials"), std::string::npos);
  EXPECT_EQ(status.message().find("secret"), std::string::npos);
}

TEST(StoreUrlTest, BucketNames) {
  EXPECT_TRUE(IsValidBucketName("my.dotted.bucket"));
  EXPECT_TRUE(IsValidBucketName("abc"));
  EXPECT_FALSE(IsValidBucketName(std::string(64, 'a')));
  EXPECT_FALSE(IsValidBucketName("a.-b"));
  EXPECT_TRUE(IsStoreUrl("DIR:///x"));
  EXPECT_FALSE(IsStoreUrl("https://x"));
}

}  // namespace
}  // namespace rayagg
