// The worked examples of the S3 API reference ("Signature Calculations for
// the Authorization Header: Transferring Payload in a Single Chunk"), plus
// the canonicalization rules one by one.
#include "objstore/sigv4.h"

#include <gtest/gtest.h>

namespace rayagg::sigv4 {
namespace {

using std::chrono::system_clock;

const Credentials kDocsCredentials{"AKIAIOSFODNN7EXAMPLE",
                                   "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
// 20130524T000000Z
const system_clock::time_point kDocsTime = system_clock::from_time_t(1369353600);
constexpr std::string_view kHost = "examplebucket.s3.amazonaws.com";

std::string SignatureOf(const Signed& signed_request) {
  const std::string& authorization = signed_request.headers.back().second;
  return authorization.substr(authorization.find("Signature=") + 10);
}

std::string SignedHeadersOf(const Signed& signed_request) {
  const std::string& authorization = signed_request.headers.back().second;
  const size_t begin = authorization.find("SignedHeaders=") + 14;
  return authorization.substr(begin, authorization.find(',', begin) - begin);
}

TEST(SigV4DocsTest, GetObject) {
  Request request{.method = "GET",
                  .encoded_path = "/test.txt",
                  .headers = {{"Host", std::string(kHost)}, {"Range", "bytes=0-9"}},
                  .payload_sha256_hex = std::string(kEmptySha256)};
  const Signed result = Sign(request, kDocsCredentials, "us-east-1", "s3", kDocsTime);
  EXPECT_EQ(result.canonical_request,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            "\nx-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(result.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(SignatureOf(result),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(result.headers.back().second,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4DocsTest, PutObject) {
  const std::string body = "Welcome to Amazon S3.";
  EXPECT_EQ(Sha256Hex(body), "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  Request request{.method = "PUT",
                  .encoded_path = "/" + UriEncodePath("test$file.text"),
                  .headers = {{"Host", std::string(kHost)},
                              {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                              {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
                  .payload_sha256_hex = Sha256Hex(body)};
  EXPECT_EQ(request.encoded_path, "/test%24file.text");
  const Signed result = Sign(request, kDocsCredentials, "us-east-1", "s3", kDocsTime);
  EXPECT_EQ(SignedHeadersOf(result),
            "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class");
  EXPECT_EQ(SignatureOf(result),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4DocsTest, GetBucketLifecycle) {
  Request request{.method = "GET",
                  .encoded_path = "/",
                  .query = {{"lifecycle", ""}},
                  .headers = {{"Host", std::string(kHost)}},
                  .payload_sha256_hex = std::string(kEmptySha256)};
  const Signed result = Sign(request, kDocsCredentials, "us-east-1", "s3", kDocsTime);
  EXPECT_EQ(SignatureOf(result),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4DocsTest, ListObjectsSortsTheQuery) {
  Request request{.method = "GET",
                  .encoded_path = "/",
                  .query = {{"prefix", "J"}, {"max-keys", "2"}},
                  .headers = {{"Host", std::string(kHost)}},
                  .payload_sha256_hex = std::string(kEmptySha256)};
  const Signed result = Sign(request, kDocsCredentials, "us-east-1", "s3", kDocsTime);
  EXPECT_EQ(SignatureOf(result),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4Test, UriEncodingKeepsOnlyUnreservedCharacters) {
  EXPECT_EQ(UriEncode("AZaz09-_.~", false), "AZaz09-_.~");
  EXPECT_EQ(UriEncode("a b+c=d&e@f!'()*:,$/", false),
            "a%20b%2Bc%3Dd%26e%40f%21%27%28%29%2A%3A%2C%24%2F");
  EXPECT_EQ(UriEncodePath("dir/a b+c.json"), "dir/a%20b%2Bc.json");
  EXPECT_EQ(UriEncodePath("caf\xc3\xa9"), "caf%C3%A9");  // UTF-8 bytes, uppercase hex
  EXPECT_EQ(UriEncodePath("a//b/./c"), "a//b/./c");      // S3: no normalization
  EXPECT_EQ(UriEncodePath("%41"), "%2541");              // encoded exactly once
}

TEST(SigV4Test, CanonicalQueryEncodesAndSorts) {
  EXPECT_EQ(CanonicalQuery({{"uploadId", "2~a b+c"}, {"partNumber", "3"}}),
            "partNumber=3&uploadId=2~a%20b%2Bc");
  EXPECT_EQ(CanonicalQuery({{"uploads", ""}}), "uploads=");
  // Sorted by the encoded name: '_' < '{', but '{' is sent as "%7B", which
  // sorts before '_'.
  EXPECT_EQ(CanonicalQuery({{"a_", "1"}, {"a{", "2"}}), "a%7B=2&a_=1");
  EXPECT_EQ(CanonicalQuery({{"k", "b"}, {"k", "a"}}), "k=a&k=b");
  EXPECT_EQ(CanonicalQuery({}), "");
}

TEST(SigV4Test, CanonicalHeadersTrimLowerSortAndJoin) {
  const auto [block, names] = CanonicalHeaders({{"X-Amz-Meta-B", "  two   words \t here "},
                                                {"Host", "h"},
                                                {"x-amz-meta-a", "1"},
                                                {"X-AMZ-META-A", "2"}});
  EXPECT_EQ(block, "host:h\nx-amz-meta-a:1,2\nx-amz-meta-b:two words here\n");
  EXPECT_EQ(names, "host;x-amz-meta-a;x-amz-meta-b");
}

TEST(SigV4Test, SessionTokenIsSentAndSigned) {
  Credentials credentials = kDocsCredentials;
  credentials.session_token = "FQoGZXIvYXdzEJr//token";
  Request request{.method = "GET",
                  .encoded_path = "/",
                  .headers = {{"host", "h"}},
                  .payload_sha256_hex = std::string(kEmptySha256)};
  const Signed result = Sign(request, credentials, "cn-hangzhou", "s3", kDocsTime);
  EXPECT_EQ(SignedHeadersOf(result), "host;x-amz-content-sha256;x-amz-date;x-amz-security-token");
  bool sent = false;
  for (const auto& [name, value] : result.headers) {
    if (name == "x-amz-security-token") sent = value == credentials.session_token;
  }
  EXPECT_TRUE(sent);
  EXPECT_NE(result.headers.back().second.find("/20130524/cn-hangzhou/s3/aws4_request"),
            std::string::npos);
  // The secret never appears in anything that is sent or printable.
  for (const auto& [name, value] : result.headers) {
    EXPECT_EQ(value.find(credentials.secret_access_key), std::string::npos);
  }
  EXPECT_EQ(result.canonical_request.find(credentials.secret_access_key), std::string::npos);
}

TEST(SigV4Test, PayloadHashHeaderIsAlwaysSent) {
  // RGW tolerates a missing x-amz-content-sha256 (treats it as unsigned);
  // AWS and OSS do not. The signer must always add it.
  Request request{.method = "PUT",
                  .encoded_path = "/b/k",
                  .headers = {{"host", "h"}},
                  .payload_sha256_hex = Sha256Hex("body")};
  const Signed result = Sign(request, kDocsCredentials, "us-east-1", "s3", kDocsTime);
  ASSERT_GE(result.headers.size(), 3u);
  EXPECT_EQ(result.headers[1].first, "x-amz-content-sha256");
  EXPECT_EQ(result.headers[1].second, Sha256Hex("body"));
  EXPECT_EQ(result.headers[0],
            (std::pair<std::string, std::string>{"x-amz-date", "20130524T000000Z"}));
}

TEST(SigV4Test, AmzDate) {
  EXPECT_EQ(AmzDate(kDocsTime), "20130524T000000Z");
  EXPECT_EQ(AmzDate(system_clock::from_time_t(1796292245) + std::chrono::milliseconds(999)),
            "20261203T100405Z");
}

}  // namespace
}  // namespace rayagg::sigv4
