// The spool's on-disk format (docs/SPOOL.md), version 1. All integers are
// little-endian.
//
// A segment file `<number>.seg` (20 decimal digits) starts with a 32-byte
// header, then records back to back:
//
//   segment header                 record
//   0  magic "RAYAGGSG"            0  u32 crc32c: payload, then bytes 4..24
//   8  u32 format version          4  u32 payload length
//   12 u32 crc32c of 0..12, 16..40 8  u64 sequence of the entry
//   16 u64 segment number          16 i32 event type
//   24 u64 sequence floor          20 u8  part: 0 = the entry's first event,
//   32 u64 created, Unix ms               k = the k-th event coalesced into it
//                                  21 u8  marker 0xA5
//                                  22 u16 zero
//                                  24 payload (a serialized RayEvent)
//
// Every entry's first record has a sequence above every earlier entry's in
// the same run, and not below its segment's floor. A coalesced event is
// stored as a part record carrying its entry's sequence (with the entry's
// type), so a sink's released position covers it (docs/COALESCING.md).
// (sequence, part) identifies a record: a copy written again after a failed
// fsync (docs/SPOOL.md) is recognised and skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rayagg::spool {

inline constexpr uint32_t kFormatVersion = 1;
inline constexpr std::string_view kSegmentMagic = "RAYAGGSG";
inline constexpr size_t kSegmentHeaderBytes = 40;
inline constexpr size_t kRecordHeaderBytes = 24;
inline constexpr uint8_t kRecordMarker = 0xA5;
// Entries hold at most this many events (EventLog::kMaxPartsPerEntry).
inline constexpr uint8_t kMaxPart = 63;
// Larger than any event the daemon accepts (gRPC's limit is 20 MiB by
// default); a length above it can only be corruption.
inline constexpr uint32_t kMaxRecordPayload = 1u << 30;

struct SegmentHeader {
  uint32_t version = kFormatVersion;
  uint64_t number = 0;
  // Every entry first recorded in this segment has a sequence >= this.
  uint64_t sequence_floor = 0;
  // When it was created: how old the events a sink has not sent are.
  uint64_t created_unix_ms = 0;
};

// The header's bytes.
std::string EncodeSegmentHeader(const SegmentHeader& header);

enum class HeaderState {
  kValid,
  kIncompatible,  // intact, but another format version: `header.version` says which
  kCorrupt,       // wrong magic or checksum, or too short
};
// Decodes the first kSegmentHeaderBytes of `bytes`.
HeaderState DecodeSegmentHeader(std::string_view bytes, SegmentHeader& header);

struct RecordHeader {
  uint32_t crc = 0;
  uint32_t length = 0;
  uint64_t sequence = 0;
  int32_t event_type = 0;
  uint8_t part = 0;
};

// Writes a record header for `payload` into `out` (kRecordHeaderBytes), with
// the checksum. `payload_crc` is Crc32c(payload), computed by the caller,
// possibly on another thread.
void EncodeRecordHeader(uint32_t payload_crc, uint32_t length, uint64_t sequence,
                        int32_t event_type, uint8_t part, char* out);
// Parses the fixed fields of a record header (no checksum check); false when
// they cannot be a record (marker, reserved bytes, part, length limit).
bool ParseRecordHeader(std::string_view bytes, RecordHeader& header);
// Whether `payload` and the header's bytes match its checksum.
bool RecordChecksumMatches(std::string_view header_bytes, std::string_view payload);

// "00000000000000000042.seg" for segment 42.
std::string SegmentFileName(uint64_t number);
// The number in a segment file name; nullopt for other names.
std::optional<uint64_t> ParseSegmentFileName(std::string_view name);

}  // namespace rayagg::spool
