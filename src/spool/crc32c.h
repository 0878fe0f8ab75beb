// CRC-32C (Castagnoli, polynomial 0x1EDC6F41 reflected as 0x82F63B78), the
// checksum of every spool record and ledger slot. Debian ships no library
// for it (its abseil predates absl/crc), so it is computed here: with the
// SSE4.2 crc32 instruction when the CPU has it (checked once at run time),
// else with a portable slice-by-8 table. Both produce the same values and
// are tested against published vectors (RFC 3720 appendix B.4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rayagg::spool {

// CRC-32C of `size` bytes at `data`, continuing from `crc` (the value
// returned for the bytes before them; 0 to start).
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t size);

inline uint32_t Crc32c(std::string_view bytes) {
  return Crc32cExtend(0, bytes.data(), bytes.size());
}

// The two implementations on their own, for tests and benchmarks.
uint32_t Crc32cExtendPortable(uint32_t crc, const void* data, size_t size);
// Only when Crc32cHardwareAvailable().
uint32_t Crc32cExtendHardware(uint32_t crc, const void* data, size_t size);
bool Crc32cHardwareAvailable();

}  // namespace rayagg::spool
