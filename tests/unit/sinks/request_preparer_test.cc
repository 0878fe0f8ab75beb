// RequestPreparer: static headers, the bearer token read from a file and
// re-read when it changes, gzip bodies. What the token file may hold and its
// errors are SecretFile's (tests/unit/common/secret_file_test.cc).
#include "sinks/request_preparer.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "support/gunzip.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

using test::TempDir;

std::optional<std::string> HeaderValue(const HttpHeaders& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return std::nullopt;
}

TEST(RequestPreparerTest, PlainBodyWithStaticHeaders) {
  SinkConfig config;
  config.headers = {{"X-Tenant", "team-a"}, {"X-Api-Key", "s3cret"}};
  RequestPreparer preparer(config);
  const std::string body = "[1,2]";
  absl::StatusOr<PreparedRequest> prepared = preparer.Prepare(body);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_EQ(prepared->body(), "[1,2]");
  // Sent from the batch's own bytes: a batch body is hundreds of KiB.
  EXPECT_EQ(prepared->body().data(), body.data());
  EXPECT_EQ(prepared->headers, (HttpHeaders{{"X-Tenant", "team-a"}, {"X-Api-Key", "s3cret"}}));
}

TEST(RequestPreparerTest, GzipCompressesAndSaysSo) {
  SinkConfig config;
  config.compression = Compression::kGzip;
  RequestPreparer preparer(config);
  absl::StatusOr<PreparedRequest> prepared = preparer.Prepare("[{\"a\":1}]");
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_EQ(HeaderValue(prepared->headers, "Content-Encoding"), "gzip");
  EXPECT_EQ(test::Gunzip(prepared->body()), "[{\"a\":1}]");
}

TEST(RequestPreparerTest, BearerTokenIsReadTrimmedAndReReadWhenRotated) {
  TempDir dir;
  SinkConfig config;
  config.bearer_token_file = dir.Write("token", "first-token\n");
  RequestPreparer preparer(config);

  absl::StatusOr<PreparedRequest> prepared = preparer.Prepare("[]");
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_EQ(HeaderValue(prepared->headers, "Authorization"), "Bearer first-token");

  dir.Replace("token", "  second-token-longer \n");
  prepared = preparer.Prepare("[]");
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_EQ(HeaderValue(prepared->headers, "Authorization"), "Bearer second-token-longer");
}

TEST(RequestPreparerTest, RemovedTokenFileFailsTheAttemptAndRecovers) {
  TempDir dir;
  SinkConfig config;
  config.bearer_token_file = dir.Write("token", "t1");
  RequestPreparer preparer(config);
  ASSERT_TRUE(preparer.Prepare("[]").ok());

  std::filesystem::remove(config.bearer_token_file);
  EXPECT_FALSE(preparer.Prepare("[]").ok());  // no stale token is sent

  dir.Write("token", "t2");
  absl::StatusOr<PreparedRequest> prepared = preparer.Prepare("[]");
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_EQ(HeaderValue(prepared->headers, "Authorization"), "Bearer t2");
}

}  // namespace
}  // namespace rayagg
