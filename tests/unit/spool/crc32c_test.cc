#include "spool/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace rayagg::spool {
namespace {

// RFC 3720 (iSCSI), appendix B.4, and the classic check value.
struct Vector {
  std::string input;
  uint32_t crc;
};

std::vector<Vector> KnownVectors() {
  std::string ascending(32, '\0');
  std::string descending(32, '\0');
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<char>(i);
    descending[i] = static_cast<char>(31 - i);
  }
  // An iSCSI SCSI Read (10) command PDU.
  const unsigned char read_pdu[48] = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
                                      0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
                                      0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                      0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  return {
      {"", 0x00000000},
      {"123456789", 0xE3069283},
      {std::string(32, '\0'), 0x8A9136AA},
      {std::string(32, '\xff'), 0x62A8AB43},
      {ascending, 0x46DD794E},
      {descending, 0x113FDB5C},
      {std::string(reinterpret_cast<const char*>(read_pdu), sizeof(read_pdu)), 0xD9963A56},
  };
}

TEST(Crc32cTest, PortableMatchesPublishedVectors) {
  for (const Vector& vector : KnownVectors()) {
    EXPECT_EQ(Crc32cExtendPortable(0, vector.input.data(), vector.input.size()), vector.crc)
        << "input of " << vector.input.size() << " bytes";
  }
}

TEST(Crc32cTest, HardwareMatchesPublishedVectors) {
  if (!Crc32cHardwareAvailable()) GTEST_SKIP() << "this CPU has no SSE4.2";
  for (const Vector& vector : KnownVectors()) {
    EXPECT_EQ(Crc32cExtendHardware(0, vector.input.data(), vector.input.size()), vector.crc)
        << "input of " << vector.input.size() << " bytes";
  }
}

TEST(Crc32cTest, DispatchedFunctionMatchesVectors) {
  for (const Vector& vector : KnownVectors()) EXPECT_EQ(Crc32c(vector.input), vector.crc);
}

TEST(Crc32cTest, BothAgreeOnEveryLengthAlignmentAndSplit) {
  std::mt19937_64 random(7);
  std::string data(600, '\0');
  for (char& c : data) c = static_cast<char>(random());
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t size = 0; size + offset <= 300; ++size) {
      const uint32_t portable = Crc32cExtendPortable(0, data.data() + offset, size);
      if (Crc32cHardwareAvailable()) {
        ASSERT_EQ(Crc32cExtendHardware(0, data.data() + offset, size), portable)
            << "offset " << offset << " size " << size;
      }
      // Extending in two steps equals one pass.
      const size_t split = size / 3;
      const uint32_t first = Crc32cExtend(0, data.data() + offset, split);
      ASSERT_EQ(Crc32cExtend(first, data.data() + offset + split, size - split), portable);
    }
  }
}

}  // namespace
}  // namespace rayagg::spool
