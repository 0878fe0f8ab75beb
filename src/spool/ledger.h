// The ledger: where each sink's released position stands, so a restart
// resumes every sink there (docs/SPOOL.md). It is small and rewritten after
// every release, without fsync: a crash of the process keeps what was
// written (the page cache survives), a power loss may bring back an older
// position, which only means more duplicates, never a loss.
//
// The file holds two slots of kLedgerSlotBytes; each write goes to the slot
// not holding the newest state, with a generation one higher and a
// checksum, so a write torn by a crash leaves the other slot intact:
//
//   0  magic "RAYAGGLG"    16 u64 generation        28 u32 sink count
//   8  u32 format version  24 u32 length of the     32 per sink: u16 name length,
//   12 u32 crc32c of 0..12,       sink list             name, u64 position
//      16..32 + sink list
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "spool/file_system.h"

namespace rayagg::spool {

inline constexpr size_t kLedgerSlotBytes = 8 * 1024;
inline constexpr std::string_view kLedgerFileName = "ledger";

struct LedgerState {
  uint64_t generation = 0;
  // Sink name -> its released position: every event with a smaller
  // sequence has been delivered (or dropped) by that sink.
  std::vector<std::pair<std::string, uint64_t>> positions;
};

enum class LedgerCondition {
  kEmpty,         // no ledger yet (missing or empty file)
  kValid,         // `state` holds the newest intact slot
  kCorrupt,       // neither slot is intact
  kIncompatible,  // an intact slot of another format version (`version`)
};

struct DecodedLedger {
  LedgerCondition condition = LedgerCondition::kEmpty;
  LedgerState state;
  uint32_t version = 0;
};

// Decodes a ledger file's bytes (pure; what recovery and the fuzzer use).
DecodedLedger DecodeLedger(std::string_view file_bytes);

// One slot's bytes; INVALID_ARGUMENT when the sinks do not fit a slot.
absl::StatusOr<std::string> EncodeLedgerSlot(const LedgerState& state);

// Reads the whole ledger file at `path` (empty if missing).
absl::StatusOr<DecodedLedger> ReadLedger(FileSystem& fs, const std::string& path);

// Rewrites the ledger in place, alternating slots.
class LedgerWriter {
 public:
  // `newest` is what the file holds now (generation 0 for a new file).
  static absl::StatusOr<std::unique_ptr<LedgerWriter>> Open(FileSystem& fs, const std::string& path,
                                                            uint64_t newest_generation);

  absl::Status Write(const std::vector<std::pair<std::string, uint64_t>>& positions);
  uint64_t generation() const { return generation_; }

 private:
  LedgerWriter(std::unique_ptr<File> file, uint64_t generation)
      : file_(std::move(file)), generation_(generation) {}

  std::unique_ptr<File> file_;
  uint64_t generation_;
};

}  // namespace rayagg::spool
