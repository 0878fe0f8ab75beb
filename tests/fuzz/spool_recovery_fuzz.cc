// Spool recovery (spool/recovery.h) on a directory of damaged files, in the
// in-memory file system of the spool's fault tests: the input describes a
// ledger and up to four segments. Checksums would stop mutation at the first
// record, so the harness writes well-formed files from the input (valid
// checksums) and then damages them as the input says: flipped bytes, cut
// tails, garbage appended, or a file made of the input's bytes alone.
// Properties:
//   - a ledger that decodes re-encodes to a slot that decodes the same;
//   - recovery is idempotent: a second recovery of what the first left sees
//     the same records and cuts no further tail.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "spool/crc32c.h"
#include "spool/format.h"
#include "spool/ledger.h"
#include "spool/recovery.h"
#include "spool/segment_set.h"
#include "support/simulated_file_system.h"

namespace {

using namespace rayagg::spool;

const std::string kDirectory = "/spool";

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "spool_recovery_fuzz: %s\n", what);
  std::abort();
}

// Flips bytes of `bytes`, cuts its tail or appends garbage, as `fuzz` says.
void Damage(FuzzedDataProvider& fuzz, std::string& bytes) {
  switch (fuzz.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      if (!bytes.empty()) {
        bytes[fuzz.ConsumeIntegralInRange<size_t>(0, bytes.size() - 1)] ^=
            static_cast<char>(fuzz.ConsumeIntegralInRange<int>(1, 255));
      }
      break;
    case 1:
      bytes.resize(fuzz.ConsumeIntegralInRange<size_t>(0, bytes.size()));
      break;
    case 2:
      bytes += fuzz.ConsumeRandomLengthString(64);
      break;
    default:
      break;  // intact
  }
}

std::string Segment(FuzzedDataProvider& fuzz, uint64_t number) {
  if (fuzz.ConsumeIntegralInRange<int>(0, 15) == 0) return fuzz.ConsumeRandomLengthString(256);
  SegmentHeader header;
  header.number = number;
  if (fuzz.ConsumeIntegralInRange<int>(0, 15) == 0)
    header.version = fuzz.ConsumeIntegral<uint32_t>();
  header.sequence_floor = fuzz.ConsumeIntegralInRange<uint64_t>(0, 64);
  header.created_unix_ms = fuzz.ConsumeIntegral<uint64_t>();
  std::string bytes = EncodeSegmentHeader(header);
  const int records = fuzz.ConsumeIntegralInRange<int>(0, 8);
  for (int i = 0; i < records; ++i) {
    const std::string payload = fuzz.ConsumeRandomLengthString(48);
    char record[kRecordHeaderBytes];
    EncodeRecordHeader(Crc32c(payload), static_cast<uint32_t>(payload.size()),
                       fuzz.ConsumeIntegralInRange<uint64_t>(0, 80),
                       fuzz.ConsumeIntegralInRange<int32_t>(-1, 20),
                       fuzz.ConsumeIntegralInRange<uint8_t>(0, kMaxPart + 2), record);
    std::string piece(record, kRecordHeaderBytes);
    piece += payload;
    Damage(fuzz, piece);
    bytes += piece;
  }
  Damage(fuzz, bytes);
  return bytes;
}

std::string Ledger(FuzzedDataProvider& fuzz) {
  if (fuzz.ConsumeBool()) return fuzz.ConsumeRandomLengthString(64);
  std::string bytes;
  for (int slot = 0; slot < 2; ++slot) {
    LedgerState state;
    state.generation = fuzz.ConsumeIntegralInRange<uint64_t>(0, 9);
    const int sinks = fuzz.ConsumeIntegralInRange<int>(0, 3);
    for (int i = 0; i < sinks; ++i) {
      state.positions.emplace_back(fuzz.ConsumeRandomLengthString(16),
                                   fuzz.ConsumeIntegralInRange<uint64_t>(0, 80));
    }
    absl::StatusOr<std::string> encoded = EncodeLedgerSlot(state);
    if (!encoded.ok()) continue;
    Damage(fuzz, *encoded);
    bytes += *encoded;
  }
  return bytes;
}

void CheckLedgerRoundTrip(const std::string& bytes) {
  const DecodedLedger decoded = DecodeLedger(bytes);
  if (decoded.condition != LedgerCondition::kValid) return;
  const absl::StatusOr<std::string> slot = EncodeLedgerSlot(decoded.state);
  if (!slot.ok()) Fail("a decoded ledger does not encode");
  const DecodedLedger again = DecodeLedger(*slot);
  if (again.condition != LedgerCondition::kValid ||
      again.state.generation != decoded.state.generation ||
      again.state.positions != decoded.state.positions) {
    Fail("a ledger re-encoded decodes differently");
  }
}

struct Recovered {
  RecoveryReport report;
  std::vector<std::tuple<uint64_t, uint8_t, int32_t, std::string>> records;
};

// Opens and recovers the directory; nullopt when it is refused.
std::optional<Recovered> Recover(rayagg::test::SimulatedFileSystem& fs) {
  absl::StatusOr<OpenedDirectory> opened = OpenSpoolDirectory(fs, kDirectory, "fuzz");
  if (!opened.ok()) return std::nullopt;
  Recovered recovered;
  SegmentSet segments(kDirectory);
  recovered.report =
      RecoverSegments(fs, kDirectory, opened->segments, segments,
                      [&](const RecordHeader& header, std::string_view payload) {
                        recovered.records.emplace_back(header.sequence, header.part,
                                                       header.event_type, std::string(payload));
                      });
  return recovered;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fuzz(data, size);
  rayagg::test::SimulatedFileSystem fs;
  if (!fs.CreateDirectories(kDirectory).ok()) Fail("no directory");
  const std::string ledger = Ledger(fuzz);
  CheckLedgerRoundTrip(ledger);
  fs.SetContents(kDirectory + "/" + std::string(kLedgerFileName), ledger);
  const int segments = fuzz.ConsumeIntegralInRange<int>(0, 4);
  for (int i = 0; i < segments; ++i) {
    const uint64_t number = fuzz.ConsumeIntegralInRange<uint64_t>(1, 6);
    fs.SetContents(kDirectory + "/" + SegmentFileName(number), Segment(fuzz, number));
  }

  const std::optional<Recovered> first = Recover(fs);
  if (!first) return 0;
  const std::optional<Recovered> second = Recover(fs);
  if (!second) Fail("a recovered directory is refused");
  if (second->records != first->records) Fail("a second recovery sees other records");
  if (second->report.torn_bytes != 0) Fail("a second recovery cuts a tail again");
  return 0;
}
