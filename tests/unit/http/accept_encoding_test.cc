// When the server may gzip an answer: Accept-Encoding as browsers, curl and
// odd clients send it.
#include "http/accept_encoding.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

TEST(AcceptsGzipTest, ListedGzipWithAPositiveWeight) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("gzip, deflate, br"));
  EXPECT_TRUE(AcceptsGzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("x-gzip"));
  EXPECT_TRUE(AcceptsGzip(" deflate ,gzip ; q=0.001"));
}

TEST(AcceptsGzipTest, AbsentRefusedOrMalformedMeansIdentity) {
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("deflate, br"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0.0, *;q=1"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=abc"));
  EXPECT_FALSE(AcceptsGzip("gzipx"));
}

TEST(AcceptsGzipTest, WildcardCountsWhenGzipIsNotListed) {
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_TRUE(AcceptsGzip("br, *;q=0.1"));
  EXPECT_FALSE(AcceptsGzip("*;q=0"));
}

}  // namespace
}  // namespace rayagg
