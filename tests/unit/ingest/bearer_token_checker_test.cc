// BearerTokenChecker: what counts as carrying Ray's token.
#include "ingest/bearer_token_checker.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

BearerTokenChecker Requiring(std::string token) {
  return BearerTokenChecker(IngestAuthConfig{.token_required = true, .token = std::move(token)});
}

TEST(BearerTokenCheckerTest, NotRequiredAllowsEverything) {
  const BearerTokenChecker checker{IngestAuthConfig{}};
  EXPECT_FALSE(checker.required());
  EXPECT_TRUE(checker.Allows(std::nullopt));
  EXPECT_TRUE(checker.Allows("Bearer anything"));
}

TEST(BearerTokenCheckerTest, AcceptsOnlyTheExactToken) {
  const BearerTokenChecker checker = Requiring("abc123");
  EXPECT_TRUE(checker.required());
  EXPECT_TRUE(checker.Allows("Bearer abc123"));
  EXPECT_TRUE(checker.Allows("bearer abc123"));  // the scheme is case-insensitive
  EXPECT_FALSE(checker.Allows(std::nullopt));
  EXPECT_FALSE(checker.Allows(""));
  EXPECT_FALSE(checker.Allows("Bearer "));
  EXPECT_FALSE(checker.Allows("abc123"));
  EXPECT_FALSE(checker.Allows("Basic abc123"));
  EXPECT_FALSE(checker.Allows("Bearer abc1234"));
  EXPECT_FALSE(checker.Allows("Bearer abc12"));
  EXPECT_FALSE(checker.Allows("Bearer ABC123"));  // the token is not
  EXPECT_FALSE(checker.Allows("Bearer  abc123"));
}

}  // namespace
}  // namespace rayagg
