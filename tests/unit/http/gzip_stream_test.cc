// GzipStreamEncoder: one gzip member written piece by piece (the HTTP
// server's streamed answers) reads back whole, and every flushed prefix
// decodes to the pieces added so far.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>

#include "http/gzip.h"
#include "support/gunzip.h"

namespace rayagg {
namespace {

// What a prefix of a gzip member decodes to, without requiring its end.
std::string InflatePrefix(const std::string& gzip) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out(gzip.size() * 20 + 1024, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gzip.data()));
  stream.avail_in = static_cast<uInt>(gzip.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  inflate(&stream, Z_SYNC_FLUSH);
  out.resize(out.size() - stream.avail_out);
  inflateEnd(&stream);
  return out;
}

TEST(GzipStreamEncoderTest, PiecesMakeOneMemberAndEachFlushDecodes) {
  GzipStreamEncoder encoder;
  std::string whole, gzip;
  std::mt19937 random(7);
  for (int piece = 0; piece < 50; ++piece) {
    std::string text;
    for (int line = 0; line < 200; ++line) {
      text +=
          "task-" + std::to_string(random() % 1000) + ",FINISHED,f" + std::to_string(piece) + "\n";
    }
    whole += text;
    ASSERT_TRUE(encoder.Add(text, false, gzip).ok());
    EXPECT_EQ(InflatePrefix(gzip), whole);  // flushed: the reader sees it now
  }
  ASSERT_TRUE(encoder.Add("", false, gzip).ok());  // nothing to flush
  ASSERT_TRUE(encoder.Add("last", true, gzip).ok());
  whole += "last";
  EXPECT_EQ(test::Gunzip(gzip), whole);
  EXPECT_LT(gzip.size(), whole.size() / 3);
  EXPECT_FALSE(encoder.Add("more", false, gzip).ok());  // finished
}

TEST(GzipStreamEncoderTest, LargeIncompressiblePiecesAndAnEmptyMember) {
  std::string noise(1 << 20, '\0');
  std::mt19937 random(3);
  for (char& c : noise) c = static_cast<char>(random());
  GzipStreamEncoder encoder;
  std::string gzip;
  ASSERT_TRUE(encoder.Add(noise, false, gzip).ok());
  ASSERT_TRUE(encoder.Add(noise, true, gzip).ok());
  EXPECT_EQ(test::Gunzip(gzip), noise + noise);

  GzipStreamEncoder empty;
  std::string nothing;
  ASSERT_TRUE(empty.Add("", true, nothing).ok());
  EXPECT_EQ(test::Gunzip(nothing), "");
}

}  // namespace
}  // namespace rayagg
