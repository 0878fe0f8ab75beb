#include "json/json_writer.h"

#include <google/protobuf/util/time_util.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace rayagg::json {
namespace {

std::string Quoted(std::string_view s) {
  std::string out;
  AppendQuoted(s, out);
  return out;
}
std::string Base64(std::string_view s) {
  std::string out;
  AppendBase64Quoted(s, out);
  return out;
}
std::string Double(double d) {
  std::string out;
  AppendDouble(d, out);
  return out;
}

TEST(JsonWriterTest, Escaping) {
  EXPECT_EQ(Quoted(""), R"("")");
  EXPECT_EQ(Quoted("plain"), R"("plain")");
  EXPECT_EQ(Quoted("\"\\/"), R"("\"\\/")");
  EXPECT_EQ(Quoted("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(Quoted(std::string_view("\0\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
  EXPECT_EQ(Quoted("é日本😀\u2028"), "\"é日本😀\u2028\"");
}

TEST(JsonWriterTest, Base64) {
  EXPECT_EQ(Base64(""), R"("")");
  EXPECT_EQ(Base64("1"), R"("MQ==")");
  EXPECT_EQ(Base64("12"), R"("MTI=")");
  EXPECT_EQ(Base64("123"), R"("MTIz")");
  EXPECT_EQ(Base64("\xfb\xff\xbf"), R"("+/+/")");
  EXPECT_EQ(Base64("value1"), R"("dmFsdWUx")");
}

TEST(JsonWriterTest, Doubles) {
  EXPECT_EQ(Double(1.0), "1");
  EXPECT_EQ(Double(0.5), "0.5");
  EXPECT_EQ(Double(-0.0), "-0");
  EXPECT_EQ(Double(0.1), "0.1");
  EXPECT_EQ(Double(std::nan("")), R"("NaN")");
  EXPECT_EQ(Double(std::numeric_limits<double>::infinity()), R"("Infinity")");
  EXPECT_EQ(Double(-std::numeric_limits<double>::infinity()), R"("-Infinity")");
  std::mt19937_64 rng(42);
  for (int i = 0; i < 100000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (!std::isfinite(d)) continue;
    EXPECT_EQ(std::strtod(Double(d).c_str(), nullptr), d);
  }
}

TEST(JsonWriterTest, TimestampsMatchProtobufTimeUtil) {
  using google::protobuf::util::TimeUtil;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> seconds_dist(TimeUtil::kTimestampMinSeconds,
                                                      TimeUtil::kTimestampMaxSeconds);
  for (int i = 0; i < 200000; ++i) {
    google::protobuf::Timestamp ts;
    ts.set_seconds(i < 4 ? (i % 2 ? TimeUtil::kTimestampMinSeconds : TimeUtil::kTimestampMaxSeconds)
                         : seconds_dist(rng));
    const int32_t nanos = static_cast<int32_t>(rng() % 1000000000);
    ts.set_nanos(i % 4 == 0   ? 0
                 : i % 4 == 1 ? nanos / 1000000 * 1000000
                 : i % 4 == 2 ? nanos / 1000 * 1000
                              : nanos);
    std::string out;
    ASSERT_TRUE(AppendTimestampQuoted(ts.seconds(), ts.nanos(), out));
    ASSERT_EQ(out, "\"" + TimeUtil::ToString(ts) + "\"") << ts.ShortDebugString();
  }
  std::string out;
  EXPECT_FALSE(AppendTimestampQuoted(TimeUtil::kTimestampMaxSeconds + 1, 0, out));
  EXPECT_FALSE(AppendTimestampQuoted(TimeUtil::kTimestampMinSeconds - 1, 0, out));
  EXPECT_FALSE(AppendTimestampQuoted(0, -1, out));
  EXPECT_FALSE(AppendTimestampQuoted(0, 1000000000, out));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace rayagg::json
