// ReadTokenFile, the one reader of http_ingest.bearer_token_file and Ray's
// token file: trimmed, bounded, only a regular file, and its errors worded
// by the caller and never holding the content.
#include "config/token_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "common/small_file.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

using test::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr TokenFileRules kAnyWord{.unreadable = "unreadable-key: ", .named = "named-key: "};
constexpr TokenFileRules kOneWord{
    .unreadable = "unreadable-key: ", .named = "named-key: ", .one_word = true};

std::string MessageOf(const absl::StatusOr<std::string>& token) {
  return std::string(token.status().message());
}

TEST(TokenFileTest, TrimsBlanksAndLineBreaksAroundTheToken) {
  TempDir dir;
  for (const TokenFileRules& rules : {kAnyWord, kOneWord}) {
    const absl::StatusOr<std::string> token =
        ReadTokenFile(dir.Write("token", " \t canary-token-5e1\r\n\n"), rules);
    ASSERT_TRUE(token.ok()) << token.status();
    EXPECT_EQ(*token, "canary-token-5e1");
  }
  EXPECT_EQ(TrimToken(" \tx y\r\n"), "x y");
  EXPECT_EQ(TrimToken(" \n"), "");
}

TEST(TokenFileTest, AnEmptyFileIsInvalidAndNamed) {
  TempDir dir;
  const std::string path = dir.Write("blank", " \r\n\t");
  const absl::StatusOr<std::string> token = ReadTokenFile(path, kAnyWord);
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MessageOf(token), "named-key: " + path + " is empty");
}

// The caller's prefix goes before ReadSmallFile's reason, whose code is kept.
TEST(TokenFileTest, AnUnreadableFileKeepsTheCodeAndNamesThePath) {
  TempDir dir;
  const std::string huge = dir.Write("huge", std::string(kMaxSecretFileBytes + 1, 'c'));
  const struct {
    std::string path;
    absl::StatusCode code;
    std::string why;
  } cases[] = {{dir.Path("absent"), absl::StatusCode::kNotFound, ""},
               {huge, absl::StatusCode::kFailedPrecondition, "larger than"},
               {"/dev/zero", absl::StatusCode::kFailedPrecondition, "not a regular file"},
               {dir.Fifo("fifo"), absl::StatusCode::kFailedPrecondition, "not a regular file"}};
  for (const auto& [path, code, why] : cases) {
    const absl::StatusOr<std::string> token = ReadTokenFile(path, kAnyWord);
    ASSERT_FALSE(token.ok()) << path;
    EXPECT_EQ(token.status().code(), code) << path;
    EXPECT_THAT(MessageOf(token), StartsWith("unreadable-key: " + path)) << path;
    EXPECT_THAT(MessageOf(token), HasSubstr(why)) << path;
    EXPECT_THAT(MessageOf(token), Not(HasSubstr("ccc"))) << path;
  }
}

// one_word: a token for an Authorization header has nothing inside that
// ends or breaks the header value; without it, inner blanks are kept.
TEST(TokenFileTest, OneWordRefusesBlanksAndControlsInsideWithoutNamingThem) {
  TempDir dir;
  const std::string contents[] = {"canary one\n", "canary\tone", "canary\none", "canary\x01one",
                                  "canary\x7fone"};
  for (const std::string& content : contents) {
    const std::string path = dir.Write("token", content);
    const absl::StatusOr<std::string> refused = ReadTokenFile(path, kOneWord);
    ASSERT_FALSE(refused.ok()) << path;
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(
        MessageOf(refused),
        "named-key: " + path + ": the token contains a blank, line break or control character");

    const absl::StatusOr<std::string> kept = ReadTokenFile(path, kAnyWord);
    ASSERT_TRUE(kept.ok()) << kept.status();
    EXPECT_EQ(*kept, std::string(TrimToken(content)));
  }
}

}  // namespace
}  // namespace rayagg
