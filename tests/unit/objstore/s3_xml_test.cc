#include "objstore/s3_xml.h"

#include <gtest/gtest.h>

namespace rayagg::s3 {
namespace {

TEST(S3XmlTest, ErrorBodyOfRgw) {
  auto error = ParseErrorBody(
      R"(<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchBucket</Code><Message></Message>)"
      R"(<BucketName>nobucket</BucketName><RequestId>tx00-1</RequestId><HostId>h</HostId></Error>)");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code, "NoSuchBucket");
  EXPECT_EQ(error->request_id, "tx00-1");
  EXPECT_FALSE(ParseErrorBody(""));
  EXPECT_FALSE(ParseErrorBody("<ListBucketResult/>"));
  EXPECT_FALSE(ParseErrorBody("<Error><Code>unterminated"));
  EXPECT_FALSE(ParseErrorBody("<Error></Error>"));
}

TEST(S3XmlTest, ListPageWithEntitiesPrefixesAndToken) {
  auto page = ParseListObjectsV2(
      R"(<?xml version="1.0" encoding="UTF-8"?>)"
      R"(<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>)"
      R"(<Prefix>weird/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys>)"
      R"(<IsTruncated>true</IsTruncated><NextContinuationToken>tok+/=</NextContinuationToken>)"
      R"(<Contents><Key>weird/a b+c=d&amp;e@f~g!&apos;()*é:,.json</Key>)"
      R"(<LastModified>2026-12-03T10:04:05.250Z</LastModified><ETag>&quot;5905357e&quot;</ETag>)"
      R"(<Size>37</Size><StorageClass>STANDARD</StorageClass></Contents>)"
      R"(<CommonPrefixes><Prefix>weird/dir/</Prefix></CommonPrefixes></ListBucketResult>)");
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "weird/a b+c=d&e@f~g!'()*é:,.json");
  EXPECT_EQ(page->objects[0].etag, "5905357e");
  EXPECT_EQ(page->objects[0].size, 37u);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(
                page->objects[0].last_modified.time_since_epoch())
                .count(),
            1796292245250);
  EXPECT_EQ(page->common_prefixes, std::vector<std::string>{"weird/dir/"});
  EXPECT_EQ(page->next_continuation_token, "tok+/=");
}

TEST(S3XmlTest, KeysKeepTheirSpaces) {
  auto page = ParseListObjectsV2(
      "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key> lead and trail </Key>"
      "<Size>1</Size></Contents></ListBucketResult>");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->objects.at(0).key, " lead and trail ");
  EXPECT_TRUE(page->next_continuation_token.empty());
}

TEST(S3XmlTest, MalformedAnswersAreTransientErrors) {
  EXPECT_EQ(ParseListObjectsV2("<html>proxy error</html>").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_FALSE(
      ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>")
          .ok());
  EXPECT_FALSE(ParseUploadId("<InitiateMultipartUploadResult/>").ok());
  EXPECT_EQ(*ParseUploadId("<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
                           "<UploadId>2~357wawS_On0b</UploadId></InitiateMultipartUploadResult>"),
            "2~357wawS_On0b");
}

TEST(S3XmlTest, CompleteDocumentListsPartsInOrder) {
  EXPECT_EQ(CompleteMultipartUploadXml({"\"aa\"", "\"b&b\""}),
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"aa\"</ETag></Part>"
            "<Part><PartNumber>2</PartNumber><ETag>\"b&amp;b\"</ETag></Part>"
            "</CompleteMultipartUpload>");
}

TEST(S3XmlTest, Dates) {
  auto date = ParseHttpDate("Thu, 03 Dec 2026 10:04:05 GMT");
  ASSERT_TRUE(date);
  EXPECT_EQ(std::chrono::system_clock::to_time_t(*date), 1796292245);
  EXPECT_FALSE(ParseHttpDate("Thursday, 03-Dec-26 10:04:05 GMT"));
  EXPECT_FALSE(ParseHttpDate("Thu, 03 Foo 2026 10:04:05 GMT"));
  EXPECT_FALSE(ParseIso8601("2026-12-03 10:04:05Z"));
  EXPECT_EQ(std::chrono::system_clock::to_time_t(*ParseIso8601("2026-12-03T10:04:05Z")),
            1796292245);
}

// Found by tests/fuzz/s3_xml_fuzz: Boost's XML reader recurses once per
// nested element, and 50,000 levels overflowed the stack.
TEST(S3XmlTest, DeeplyNestedAnswersAreRefusedBeforeParsing) {
  std::string deep = "<Error><Code>SlowDown</Code>";
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  EXPECT_FALSE(ParseErrorBody(deep));
  EXPECT_FALSE(ParseListObjectsV2("<ListBucketResult>" + deep).ok());
  EXPECT_FALSE(ParseUploadId("<InitiateMultipartUploadResult>" + deep).ok());
  // Four levels, self-closing elements and a declaration still parse.
  const auto page = ParseListObjectsV2(
      "<?xml version=\"1.0\"?><ListBucketResult><Contents><Key>k</Key><Owner/></Contents>"
      "<CommonPrefixes><Prefix>p/</Prefix></CommonPrefixes></ListBucketResult>");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->common_prefixes, std::vector<std::string>{"p/"});
}

// Found by tests/fuzz/s3_xml_fuzz: a year past 2262 overflowed system_clock's
// nanoseconds (undefined behaviour) instead of being refused.
TEST(S3XmlTest, DatesBeyondTheClocksRangeAreRefused) {
  EXPECT_FALSE(ParseIso8601("3844-12-03T10:04:05.000Z"));
  EXPECT_FALSE(ParseHttpDate("Thu, 03 Dec 9999 10:04:05 GMT"));
  EXPECT_TRUE(ParseIso8601("2200-12-31T23:59:59Z"));
  const auto page = ParseListObjectsV2(
      "<ListBucketResult><Contents><Key>k</Key><LastModified>3844-12-03T10:04:05.000Z"
      "</LastModified></Contents></ListBucketResult>");
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "k");
}

}  // namespace
}  // namespace rayagg::s3
