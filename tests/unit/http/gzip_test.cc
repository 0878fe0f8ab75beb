// GzipCompress produces standard gzip that zlib's own inflate reads back.
#include "http/gzip.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "support/gunzip.h"

namespace rayagg {
namespace {

TEST(GzipTest, RoundTripsJson) {
  std::string json = "[";
  for (int i = 0; i < 2000; ++i) {
    json += R"({"eventId":"id-)" + std::to_string(i) + R"(","eventType":"TASK_LIFECYCLE_EVENT"},)";
  }
  json.back() = ']';
  std::string gzip;
  ASSERT_TRUE(GzipCompress(json, gzip).ok());
  // gzip magic bytes, then a much smaller body: the JSON is repetitive.
  ASSERT_GE(gzip.size(), 18u);
  EXPECT_EQ(static_cast<unsigned char>(gzip[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gzip[1]), 0x8b);
  EXPECT_LT(gzip.size(), json.size() / 4);
  EXPECT_EQ(test::Gunzip(gzip), json);
}

TEST(GzipTest, RoundTripsEmptyAndIncompressibleInput) {
  std::string gzip;
  ASSERT_TRUE(GzipCompress("", gzip).ok());
  EXPECT_EQ(test::Gunzip(gzip), "");

  // Random bytes grow a little; the output buffer must grow with them.
  std::mt19937 random(42);
  std::string noise(300'000, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  ASSERT_TRUE(GzipCompress(noise, gzip).ok());
  EXPECT_EQ(test::Gunzip(gzip), noise);
}

TEST(GzipTest, ReusesTheOutputString) {
  std::string gzip = "previous content that must not leak into the next body";
  ASSERT_TRUE(GzipCompress("[1]", gzip).ok());
  EXPECT_EQ(test::Gunzip(gzip), "[1]");
}

TEST(GzipTest, CompressesPartsAsTheirConcatenation) {
  // Pieces of every kind: empty ones (first, between, last), a large one
  // whose output outgrows the first guess, and small ones.
  std::mt19937 random(7);
  std::string noise(200'000, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  const std::vector<std::string> pieces = {"", "{\"a\":1}\n", "", noise, "{\"b\":2}\n", ""};
  std::vector<std::string_view> parts(pieces.begin(), pieces.end());
  std::string whole;
  for (const std::string& piece : pieces) whole += piece;
  std::string gzip;
  ASSERT_TRUE(GzipCompress(std::span<const std::string_view>(parts), gzip).ok());
  EXPECT_EQ(test::Gunzip(gzip), whole);

  ASSERT_TRUE(GzipCompress(std::span<const std::string_view>(), gzip).ok());
  EXPECT_EQ(test::Gunzip(gzip), "");
}

}  // namespace
}  // namespace rayagg
