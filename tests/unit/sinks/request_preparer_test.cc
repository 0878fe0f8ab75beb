// RequestPreparer and BearerTokenFile: static headers, the bearer token read
// from a file and re-read when it changes, gzip bodies.
#include "sinks/request_preparer.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "common/small_file.h"
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

TEST(RequestPreparerTest, TokenFileProblemsFailWithoutTheContent) {
  TempDir dir;
  BearerTokenFile missing(dir.Path("absent"));
  EXPECT_EQ(missing.Current().status().code(), absl::StatusCode::kUnavailable);

  BearerTokenFile empty(dir.Write("empty", " \n"));
  EXPECT_FALSE(empty.Current().ok());

  BearerTokenFile two_lines(dir.Write("two-lines", "secret-one\nsecret-two\n"));
  absl::StatusOr<std::string> token = two_lines.Current();
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(std::string(token.status().message()).find("secret"), std::string::npos)
      << token.status();
}

// A file over the limit, a device (/dev/zero, whose stat() size is 0) and a
// FIFO nobody writes to fail at once naming the file, never the content.
TEST(RequestPreparerTest, TokenFileReadsAreBounded) {
  TempDir dir;
  const std::string huge = dir.Write("huge", "canary" + std::string(kMaxSecretFileBytes, 'h'));
  const std::pair<std::string, std::string> cases[] = {{huge, "larger than"},
                                                       {"/dev/zero", "not a regular file"},
                                                       {dir.Fifo("fifo"), "not a regular file"}};
  for (const auto& [path, why] : cases) {
    BearerTokenFile file(path);
    absl::StatusOr<std::string> token = file.Current();
    ASSERT_FALSE(token.ok()) << path;
    EXPECT_EQ(token.status().code(), absl::StatusCode::kFailedPrecondition) << token.status();
    const std::string message(token.status().message());
    EXPECT_NE(message.find("bearer_token_file " + path), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
    EXPECT_EQ(message.find("canary"), std::string::npos) << message;
  }
  // Exactly the limit is a token.
  BearerTokenFile at_limit(dir.Write("limit", std::string(kMaxSecretFileBytes, 't')));
  absl::StatusOr<std::string> token = at_limit.Current();
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->size(), kMaxSecretFileBytes);
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
