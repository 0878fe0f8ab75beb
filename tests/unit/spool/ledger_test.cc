#include "spool/ledger.h"

#include <gtest/gtest.h>

#include "spool/crc32c.h"
#include "support/simulated_file_system.h"

namespace rayagg::spool {
namespace {

using Positions = std::vector<std::pair<std::string, uint64_t>>;
using rayagg::test::SimulatedFileSystem;

class LedgerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(fs_.CreateDirectories("/spool").ok()); }
  DecodedLedger Read() {
    absl::StatusOr<DecodedLedger> ledger = ReadLedger(fs_, kPath);
    EXPECT_TRUE(ledger.ok()) << ledger.status();
    return *ledger;
  }
  static constexpr const char* kPath = "/spool/ledger";
  SimulatedFileSystem fs_;
};

TEST_F(LedgerTest, MissingLedgerIsEmpty) { EXPECT_EQ(Read().condition, LedgerCondition::kEmpty); }

TEST_F(LedgerTest, LastWriteWins) {
  auto writer = LedgerWriter::Open(fs_, kPath, 0);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write({{"a", 10}, {"b", 20}}).ok());
  ASSERT_TRUE((*writer)->Write({{"a", 15}, {"b", 20}}).ok());
  ASSERT_TRUE((*writer)->Write({{"a", 15}, {"b", 99}}).ok());
  const DecodedLedger ledger = Read();
  ASSERT_EQ(ledger.condition, LedgerCondition::kValid);
  EXPECT_EQ(ledger.state.generation, 3u);
  EXPECT_EQ(ledger.state.positions, (Positions{{"a", 15}, {"b", 99}}));
}

TEST_F(LedgerTest, TornWriteLeavesThePreviousState) {
  auto writer = LedgerWriter::Open(fs_, kPath, 0);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write({{"a", 10}}).ok());
  fs_.Inject({.op = SimulatedFileSystem::Op::kWriteAt, .torn = true});
  EXPECT_FALSE((*writer)->Write({{"a", 11}}).ok());
  const DecodedLedger ledger = Read();
  ASSERT_EQ(ledger.condition, LedgerCondition::kValid);
  EXPECT_EQ(ledger.state.positions, (Positions{{"a", 10}}));
}

TEST_F(LedgerTest, ReopenedWriterContinuesInTheOtherSlot) {
  {
    auto writer = LedgerWriter::Open(fs_, kPath, 0);
    ASSERT_TRUE((*writer)->Write({{"a", 1}}).ok());
    ASSERT_TRUE((*writer)->Write({{"a", 2}}).ok());
  }
  const DecodedLedger before = Read();
  auto writer = LedgerWriter::Open(fs_, kPath, before.state.generation);
  ASSERT_TRUE((*writer)->Write({{"a", 3}}).ok());
  // The newest slot of the old run survives a torn write of the new one.
  fs_.Inject({.op = SimulatedFileSystem::Op::kWriteAt, .torn = true});
  EXPECT_FALSE((*writer)->Write({{"a", 4}}).ok());
  EXPECT_EQ(Read().state.positions, (Positions{{"a", 3}}));
}

TEST_F(LedgerTest, BothSlotsDamagedIsCorrupt) {
  auto writer = LedgerWriter::Open(fs_, kPath, 0);
  ASSERT_TRUE((*writer)->Write({{"a", 1}}).ok());
  ASSERT_TRUE((*writer)->Write({{"a", 2}}).ok());
  std::string bytes = fs_.Contents(kPath);
  bytes[40] ^= 1;
  bytes[kLedgerSlotBytes + 40] ^= 1;
  EXPECT_EQ(DecodeLedger(bytes).condition, LedgerCondition::kCorrupt);
}

TEST_F(LedgerTest, OtherFormatVersionIsReportedAsIncompatible) {
  absl::StatusOr<std::string> slot =
      EncodeLedgerSlot(LedgerState{.generation = 1, .positions = {{"a", 1}}});
  ASSERT_TRUE(slot.ok());
  // An intact slot of version 2: the version changed and the checksum with it.
  std::string bytes = *slot;
  bytes[8] = 2;
  const uint32_t crc =
      Crc32cExtend(Crc32cExtend(0, bytes.data(), 12), bytes.data() + 16, bytes.size() - 16);
  for (int i = 0; i < 4; ++i) bytes[12 + i] = static_cast<char>(crc >> (8 * i));
  const DecodedLedger ledger = DecodeLedger(bytes);
  EXPECT_EQ(ledger.condition, LedgerCondition::kIncompatible);
  EXPECT_EQ(ledger.version, 2u);
}

TEST_F(LedgerTest, TooManySinksForASlotIsAnError) {
  Positions many;
  for (int i = 0; i < 200; ++i) many.emplace_back(std::string(200, 'x') + std::to_string(i), i);
  EXPECT_FALSE(EncodeLedgerSlot(LedgerState{.positions = many}).ok());
}

}  // namespace
}  // namespace rayagg::spool
