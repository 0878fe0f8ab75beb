// Every byte of a spool of 3 segments and 200+ records, and of its ledger,
// flipped in turn (one bit, a different bit at each offset), then
// recovered in-process: recovery always finishes, never returns a record
// that differs from what was written, counts what it lost, and loses at
// most the damaged record (with the coalesced parts of its entry, when it
// is an entry's first record). A damaged ledger falls back to its other
// slot or to the oldest event, never to a later position.
//
// The test runs under the sanitizers too, so it is built to do no more work
// than the property needs (issue 15 asks for at most 60 s there):
//   - payloads of 1 to 8 bytes: every record still has a payload to damage,
//     the files are half the size they were with 20-49 byte payloads (half
//     the flips), and a Record's payload fits std::string's inline buffer;
//   - a flipped ledger byte goes through Spool::Open, the part of recovery
//     that reads the ledger, only: scanning the segments does not read the
//     ledger, so with intact segments it would scan the same bytes into
//     the same records every time. Reading the records back from the
//     position the damaged ledger gave is checked once per position on a
//     spool recovered from the intact segments;
//   - the expected records are looked up by binary search in the order
//     they were written, not in tree containers built per flip.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "spool/spool.h"
#include "support/manual_clock.h"
#include "support/simulated_file_system.h"
#include "unit/spool/spool_test_util.h"

namespace rayagg::spool {
namespace {

using rayagg::test::SimulatedFileSystem;
using test::ReadAll;
using test::Record;
using test::TestStream;

constexpr const char* kDirectory = "/spool";

class NullListener final : public SpoolListener {
 public:
  void OnDurable(uint64_t) override {}
  void OnEvict(const SegmentInfo&) override {}
  void OnHealthChanged(SpoolHealth, const std::string&) override {}
  void OnProblem(const std::string&) override {}
};

struct Pristine {
  std::map<std::string, std::string> files;  // path -> bytes
  std::vector<Record> records;               // as written: by (sequence, part)
  uint64_t position = 0;                     // the ledger's
};

Pristine WriteSpool() {
  SimulatedFileSystem fs;
  rayagg::test::ManualClock clock;
  Pristine pristine;
  auto spool = Spool::Open(fs, clock,
                           SpoolOptions{.directory = kDirectory,
                                        .max_bytes = 1 << 20,
                                        .segment_bytes = 2000,
                                        .sync = SyncMode::kAlways},
                           "test");
  EXPECT_TRUE(spool.ok());
  (*spool)->Recover(nullptr);
  TestStream stream;
  NullListener listener;
  (*spool)->StartManual(stream, listener, 0);
  uint64_t sequence = (*spool)->first_sequence();
  for (int i = 0; i < 210; ++i) {
    Record record{.event_type = i % 3, .payload = std::string(1 + i % 8, char('A' + i % 26))};
    if (i % 5 == 4) {
      record.sequence = sequence - 1;  // a coalesced part of the entry before
      record.part = 1;
      record.event_type = pristine.records.back().event_type;  // parts share their entry's
    } else {
      record.sequence = sequence++;
    }
    pristine.records.push_back(record);
    (*spool)->Submit(stream.Add(record), [](absl::Status) {});
    if (i % 20 == 19) (*spool)->Pump();
  }
  pristine.position = pristine.records[60].sequence;
  (*spool)->UpdatePositions({{"sink", pristine.position}}, 0);
  (*spool)->Stop();
  for (const std::string& path : fs.Paths()) pristine.files[path] = fs.Contents(path);
  return pristine;
}

void Restore(SimulatedFileSystem& fs, const Pristine& pristine) {
  ASSERT_TRUE(fs.CreateDirectories(kDirectory).ok());
  for (const auto& [path, content] : pristine.files) fs.SetContents(path, content);
}

class SpoolBitFlipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pristine_ = WriteSpool();
    ASSERT_TRUE(std::is_sorted(pristine_.records.begin(), pristine_.records.end(), Before));
  }

  static bool Before(const Record& a, const Record& b) {
    return std::tie(a.sequence, a.part) < std::tie(b.sequence, b.part);
  }

  // What a sink reading from `from` found after recovery, checked against
  // what was written: no record invented, changed or read twice, at most
  // one entry lost. Returns the records lost.
  size_t Check(const std::vector<Record>& found, uint64_t from, const std::string& where) {
    const std::vector<Record>& records = pristine_.records;
    std::vector<char> seen(records.size(), 0);
    for (const Record& record : found) {
      const auto it = std::lower_bound(records.begin(), records.end(), record, Before);
      EXPECT_TRUE(it != records.end() && it->sequence == record.sequence && it->part == record.part)
          << "invented record, " << where;
      if (it == records.end() || it->sequence != record.sequence || it->part != record.part) {
        return records.size();
      }
      EXPECT_EQ(*it, record) << where;
      char& once = seen[static_cast<size_t>(it - records.begin())];
      EXPECT_EQ(once, 0) << "read twice, " << where;
      once = 1;
    }
    size_t lost = 0;
    uint64_t lost_entry = 0;
    size_t lost_entries = 0;
    for (size_t i = 0; i < records.size(); ++i) {
      if (records[i].sequence < from || seen[i] != 0) continue;
      ++lost;
      if (lost_entries == 0 || records[i].sequence != lost_entry) ++lost_entries;
      lost_entry = records[i].sequence;
    }
    // One damaged record: itself, or its entry with every part.
    EXPECT_LE(lost_entries, 1u) << where;
    EXPECT_LE(lost, 3u) << where;
    return lost;
  }

  Pristine pristine_;
  rayagg::test::ManualClock clock_;
};

TEST_F(SpoolBitFlipTest, EveryFlippedByteIsSurvived) {
  size_t segments = 0;
  for (const auto& [path, bytes] : pristine_.files) {
    if (path.ends_with(".seg")) ++segments;
  }
  ASSERT_EQ(segments, 3u);
  ASSERT_GE(pristine_.records.size(), 200u);

  // Reading back from a position a damaged ledger gave, once per position,
  // on the intact segments.
  std::map<uint64_t, bool> checked_positions;
  auto check_intact_from = [&](uint64_t from) {
    if (!checked_positions.emplace(from, true).second) return;
    SimulatedFileSystem fs;
    Restore(fs, pristine_);
    auto spool = Spool::Open(fs, clock_,
                             SpoolOptions{.directory = kDirectory, .max_bytes = 1 << 20}, "test");
    ASSERT_TRUE(spool.ok()) << spool.status();
    const RecoveryReport report = (*spool)->Recover(nullptr);
    EXPECT_TRUE(report.corrupt.empty());
    EXPECT_EQ(report.torn_bytes, 0u);
    EXPECT_EQ(Check(ReadAll(fs, (*spool)->segments(), from), from, "intact segments"), 0u)
        << "from " << from;
  };
  check_intact_from(pristine_.position);

  size_t flips = 0;
  size_t lost_somewhere = 0;
  for (const auto& [target, bytes] : pristine_.files) {
    if (target.ends_with("LOCK")) continue;
    const bool ledger = target.ends_with(kLedgerFileName);
    for (size_t offset = 0; offset < bytes.size(); ++offset) {
      const std::string where = target + "@" + std::to_string(offset);
      SimulatedFileSystem fs;
      Restore(fs, pristine_);
      std::string damaged = bytes;
      damaged[offset] = static_cast<char>(damaged[offset] ^ (1 << (offset % 8)));
      fs.SetContents(target, std::move(damaged));
      ++flips;

      auto spool = Spool::Open(fs, clock_,
                               SpoolOptions{.directory = kDirectory, .max_bytes = 1 << 20}, "test");
      ASSERT_TRUE(spool.ok()) << where << ": " << spool.status();
      uint64_t from = 0;
      if (!(*spool)->ledger().positions.empty()) from = (*spool)->ledger().positions[0].second;
      if (ledger) {
        // The other slot's position (the same one) or, both slots lost, the
        // oldest event: never one the sink has not reached.
        ASSERT_TRUE(from == pristine_.position || from == 0) << where << ": " << from;
        check_intact_from(from);
        continue;
      }
      ASSERT_EQ(from, pristine_.position) << where;
      const RecoveryReport report = (*spool)->Recover(nullptr);
      DiskReadResult totals;
      const size_t lost = Check(ReadAll(fs, (*spool)->segments(), from, &totals), from, where);
      if (HasFailure()) return;
      if (lost > 0) {
        ++lost_somewhere;
        // Counted: a damaged region (a sink counts its entries as `corrupt`)
        // or a tail cut as torn.
        EXPECT_TRUE(!report.corrupt.empty() || report.torn_bytes > 0) << where;
        ASSERT_FALSE(HasFailure());
      }
    }
  }
  EXPECT_GT(flips, 10000u);
  // Most flips land in a record; this checks the test damages anything.
  EXPECT_GT(lost_somewhere, 1000u);
  // One flip damages one slot at most; the other holds the same position.
  EXPECT_EQ(checked_positions.size(), 1u);
}

}  // namespace
}  // namespace rayagg::spool
