#include "spool/format.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "spool/crc32c.h"

namespace rayagg::spool {
namespace {

template <typename T>
void Put(char* out, T value) {
  static_assert(std::is_integral_v<T>);
  for (size_t i = 0; i < sizeof(T); ++i) {
    out[i] = static_cast<char>(static_cast<std::make_unsigned_t<T>>(value) >> (8 * i));
  }
}

template <typename T>
T Get(const char* in) {
  std::make_unsigned_t<T> value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<std::make_unsigned_t<T>>(static_cast<unsigned char>(in[i])) << (8 * i);
  }
  return static_cast<T>(value);
}

uint32_t SegmentHeaderCrc(const char* bytes) {
  return Crc32cExtend(Crc32cExtend(0, bytes, 12), bytes + 16, kSegmentHeaderBytes - 16);
}

constexpr std::string_view kSegmentSuffix = ".seg";
constexpr size_t kSegmentDigits = 20;

}  // namespace

std::string EncodeSegmentHeader(const SegmentHeader& header) {
  std::string bytes(kSegmentHeaderBytes, '\0');
  std::memcpy(bytes.data(), kSegmentMagic.data(), kSegmentMagic.size());
  Put<uint32_t>(bytes.data() + 8, header.version);
  Put<uint64_t>(bytes.data() + 16, header.number);
  Put<uint64_t>(bytes.data() + 24, header.sequence_floor);
  Put<uint64_t>(bytes.data() + 32, header.created_unix_ms);
  Put<uint32_t>(bytes.data() + 12, SegmentHeaderCrc(bytes.data()));
  return bytes;
}

HeaderState DecodeSegmentHeader(std::string_view bytes, SegmentHeader& header) {
  if (bytes.size() < kSegmentHeaderBytes || bytes.substr(0, 8) != kSegmentMagic) {
    return HeaderState::kCorrupt;
  }
  if (Get<uint32_t>(bytes.data() + 12) != SegmentHeaderCrc(bytes.data())) {
    return HeaderState::kCorrupt;
  }
  header.version = Get<uint32_t>(bytes.data() + 8);
  header.number = Get<uint64_t>(bytes.data() + 16);
  header.sequence_floor = Get<uint64_t>(bytes.data() + 24);
  header.created_unix_ms = Get<uint64_t>(bytes.data() + 32);
  return header.version == kFormatVersion ? HeaderState::kValid : HeaderState::kIncompatible;
}

void EncodeRecordHeader(uint32_t payload_crc, uint32_t length, uint64_t sequence,
                        int32_t event_type, uint8_t part, char* out) {
  Put<uint32_t>(out + 4, length);
  Put<uint64_t>(out + 8, sequence);
  Put<int32_t>(out + 16, event_type);
  out[20] = static_cast<char>(part);
  out[21] = static_cast<char>(kRecordMarker);
  out[22] = 0;
  out[23] = 0;
  Put<uint32_t>(out, Crc32cExtend(payload_crc, out + 4, kRecordHeaderBytes - 4));
}

bool ParseRecordHeader(std::string_view bytes, RecordHeader& header) {
  if (bytes.size() < kRecordHeaderBytes) return false;
  const char* in = bytes.data();
  if (static_cast<uint8_t>(in[21]) != kRecordMarker || in[22] != 0 || in[23] != 0) return false;
  header.crc = Get<uint32_t>(in);
  header.length = Get<uint32_t>(in + 4);
  header.sequence = Get<uint64_t>(in + 8);
  header.event_type = Get<int32_t>(in + 16);
  header.part = static_cast<uint8_t>(in[20]);
  return header.part <= kMaxPart && header.length <= kMaxRecordPayload;
}

bool RecordChecksumMatches(std::string_view header_bytes, std::string_view payload) {
  const uint32_t expected = Get<uint32_t>(header_bytes.data());
  const uint32_t payload_crc = Crc32cExtend(0, payload.data(), payload.size());
  return Crc32cExtend(payload_crc, header_bytes.data() + 4, kRecordHeaderBytes - 4) == expected;
}

std::string SegmentFileName(uint64_t number) {
  char digits[kSegmentDigits + 1];
  std::snprintf(digits, sizeof(digits), "%020llu", static_cast<unsigned long long>(number));
  return std::string(digits) + std::string(kSegmentSuffix);
}

std::optional<uint64_t> ParseSegmentFileName(std::string_view name) {
  if (name.size() != kSegmentDigits + kSegmentSuffix.size() ||
      name.substr(kSegmentDigits) != kSegmentSuffix) {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(0, kSegmentDigits);
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint64_t number = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return number;
}

}  // namespace rayagg::spool
