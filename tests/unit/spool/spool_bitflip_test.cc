// Every byte of a spool of 3 segments and 200+ records, and of its ledger,
// flipped in turn (one bit, a different bit at each offset), then
// recovered in-process: recovery always finishes, never returns a record
// that differs from what was written, and loses at most the damaged
// record (with the coalesced parts of its entry, when it is an entry's
// first record). A damaged ledger falls back to its other slot or to the
// oldest event, never to a later position.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
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
  std::vector<Record> records;               // as written, in stream order
  uint64_t position = 0;                     // the ledger's
};

Pristine WriteSpool() {
  SimulatedFileSystem fs;
  rayagg::test::ManualClock clock;
  Pristine pristine;
  auto spool = Spool::Open(fs, clock,
                           SpoolOptions{.directory = kDirectory,
                                        .max_bytes = 1 << 20,
                                        .segment_bytes = 4000,
                                        .sync = SyncMode::kAlways},
                           "test");
  EXPECT_TRUE(spool.ok());
  (*spool)->Recover(nullptr);
  TestStream stream;
  NullListener listener;
  (*spool)->StartManual(stream, listener, 0);
  uint64_t sequence = (*spool)->first_sequence();
  for (int i = 0; i < 210; ++i) {
    Record record{.event_type = i % 3, .payload = std::string(20 + i % 30, char('A' + i % 26))};
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

TEST(SpoolBitFlipTest, EveryFlippedByteIsSurvived) {
  const Pristine pristine = WriteSpool();
  size_t segments = 0;
  for (const auto& [path, bytes] : pristine.files) {
    if (path.ends_with(".seg")) ++segments;
  }
  ASSERT_EQ(segments, 3u);
  ASSERT_GE(pristine.records.size(), 200u);
  std::map<std::pair<uint64_t, uint8_t>, Record> by_key;
  for (const Record& record : pristine.records) by_key[{record.sequence, record.part}] = record;

  rayagg::test::ManualClock clock;
  size_t flips = 0;
  for (const auto& [target, bytes] : pristine.files) {
    if (target.ends_with("LOCK")) continue;
    for (size_t offset = 0; offset < bytes.size(); ++offset) {
      SimulatedFileSystem fs;
      ASSERT_TRUE(fs.CreateDirectories(kDirectory).ok());
      for (const auto& [path, content] : pristine.files) fs.SetContents(path, content);
      std::string damaged = bytes;
      damaged[offset] = static_cast<char>(damaged[offset] ^ (1 << (offset % 8)));
      fs.SetContents(target, damaged);
      ++flips;

      auto spool = Spool::Open(fs, clock,
                               SpoolOptions{.directory = kDirectory, .max_bytes = 1 << 20}, "test");
      ASSERT_TRUE(spool.ok()) << target << "@" << offset << ": " << spool.status();
      (*spool)->Recover(nullptr);
      uint64_t from = 0;
      if (!(*spool)->ledger().positions.empty()) from = (*spool)->ledger().positions[0].second;
      ASSERT_LE(from, pristine.position) << target << "@" << offset;
      const std::vector<Record> found = ReadAll(fs, (*spool)->segments(), from);

      std::set<std::pair<uint64_t, uint8_t>> seen;
      for (const Record& record : found) {
        const auto key = std::make_pair(record.sequence, record.part);
        ASSERT_TRUE(seen.insert(key).second) << target << "@" << offset;
        auto it = by_key.find(key);
        ASSERT_NE(it, by_key.end()) << "invented record, " << target << "@" << offset;
        ASSERT_EQ(it->second, record) << target << "@" << offset;
      }
      std::set<uint64_t> lost_entries;
      size_t lost = 0;
      for (const Record& record : pristine.records) {
        if (record.sequence < pristine.position || seen.contains({record.sequence, record.part})) {
          continue;
        }
        ++lost;
        lost_entries.insert(record.sequence);
      }
      // One damaged record: itself, or its entry with every part.
      ASSERT_LE(lost_entries.size(), 1u) << target << "@" << offset;
      ASSERT_LE(lost, 3u) << target << "@" << offset;
    }
  }
  EXPECT_GT(flips, 10000u);
}

}  // namespace
}  // namespace rayagg::spool
