#include "spool/record_scanner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/simulated_file_system.h"
#include "unit/spool/spool_test_util.h"

namespace rayagg::spool {
namespace {

using test::EncodeRecord;
using test::Record;

struct Scan {
  std::vector<Record> records;
  std::vector<DamagedRegion> damage;
};

// Scans `bytes` (records without a segment header) with a small window, so
// records and resyncs cross window boundaries.
Scan ScanBytes(const std::string& bytes, size_t block = 64) {
  rayagg::test::SimulatedFileSystem fs;
  EXPECT_TRUE(fs.CreateDirectories("/d").ok());
  fs.SetContents("/d/f", bytes);
  auto file = fs.Open("/d/f", OpenMode::kRead);
  EXPECT_TRUE(file.ok());
  RecordScanner scanner(**file, 0, bytes.size(), block);
  Scan scan;
  ScannedRecord record;
  DamagedRegion damage;
  for (;;) {
    const auto step = scanner.Next(record, damage);
    if (step == RecordScanner::Step::kEnd) break;
    if (step == RecordScanner::Step::kRecord) {
      scan.records.push_back(Record{.sequence = record.header.sequence,
                                    .part = record.header.part,
                                    .event_type = record.header.event_type,
                                    .payload = std::string(record.payload)});
    } else {
      scan.damage.push_back(damage);
    }
  }
  EXPECT_TRUE(scanner.status().ok());
  EXPECT_EQ(scanner.position(), bytes.size());
  return scan;
}

std::vector<Record> SampleRecords(int count) {
  std::vector<Record> records;
  for (int i = 0; i < count; ++i) {
    records.push_back(
        Record{.sequence = static_cast<uint64_t>(100 + i),
               .part = 0,
               .event_type = i % 5,
               .payload = std::string(10 + (i * 37) % 90, static_cast<char>('a' + i % 26))});
  }
  return records;
}

std::string Join(const std::vector<Record>& records, std::vector<size_t>* offsets = nullptr) {
  std::string bytes;
  for (const Record& record : records) {
    if (offsets != nullptr) offsets->push_back(bytes.size());
    bytes += EncodeRecord(record);
  }
  return bytes;
}

TEST(RecordScannerTest, ReadsIntactRecordsAcrossWindowBoundaries) {
  const auto records = SampleRecords(40);
  const Scan scan = ScanBytes(Join(records), 50);
  EXPECT_EQ(scan.records, records);
  EXPECT_TRUE(scan.damage.empty());
}

TEST(RecordScannerTest, RecordLargerThanTheWindowIsRead) {
  std::vector<Record> records = SampleRecords(3);
  records[1].payload = std::string(5000, 'z');
  EXPECT_EQ(ScanBytes(Join(records), 64).records, records);
}

TEST(RecordScannerTest, FlippedPayloadByteSkipsThatRecordOnly) {
  const auto records = SampleRecords(10);
  std::vector<size_t> offsets;
  std::string bytes = Join(records, &offsets);
  bytes[offsets[4] + kRecordHeaderBytes + 3] ^= 0x10;
  const Scan scan = ScanBytes(bytes);
  std::vector<Record> expected = records;
  expected.erase(expected.begin() + 4);
  EXPECT_EQ(scan.records, expected);
  ASSERT_EQ(scan.damage.size(), 1u);
  EXPECT_EQ(scan.damage[0].offset, offsets[4]);
  EXPECT_EQ(scan.damage[0].bytes, offsets[5] - offsets[4]);
  EXPECT_FALSE(scan.damage[0].torn);
  EXPECT_FALSE(scan.damage[0].tail);
}

TEST(RecordScannerTest, CorruptLengthIsResynchronisedOnTheNextRecord) {
  const auto records = SampleRecords(10);
  std::vector<size_t> offsets;
  std::string bytes = Join(records, &offsets);
  bytes[offsets[2] + 5] ^= 0x7f;  // length's second byte: points far away
  const Scan scan = ScanBytes(bytes);
  std::vector<Record> expected = records;
  expected.erase(expected.begin() + 2);
  EXPECT_EQ(scan.records, expected);
  ASSERT_EQ(scan.damage.size(), 1u);
  EXPECT_EQ(scan.damage[0].offset + scan.damage[0].bytes, offsets[3]);
}

TEST(RecordScannerTest, RecordCutShortAtTheEndIsATornTail) {
  const auto records = SampleRecords(5);
  std::string bytes = Join(records);
  bytes.resize(bytes.size() - 7);
  const Scan scan = ScanBytes(bytes);
  EXPECT_EQ(scan.records, std::vector<Record>(records.begin(), records.end() - 1));
  ASSERT_EQ(scan.damage.size(), 1u);
  EXPECT_TRUE(scan.damage[0].torn);
  EXPECT_TRUE(scan.damage[0].tail);
}

TEST(RecordScannerTest, ZerosAfterTheLastRecordAreATornTail) {
  const auto records = SampleRecords(5);
  const Scan scan = ScanBytes(Join(records) + std::string(300, '\0'));
  EXPECT_EQ(scan.records, records);
  ASSERT_EQ(scan.damage.size(), 1u);
  EXPECT_TRUE(scan.damage[0].torn);
  EXPECT_EQ(scan.damage[0].bytes, 300u);
}

TEST(RecordScannerTest, WholeLastRecordWithABadChecksumIsACorruptTail) {
  const auto records = SampleRecords(5);
  std::string bytes = Join(records);
  bytes[bytes.size() - 1] ^= 1;
  const Scan scan = ScanBytes(bytes);
  ASSERT_EQ(scan.damage.size(), 1u);
  EXPECT_TRUE(scan.damage[0].tail);
  EXPECT_FALSE(scan.damage[0].torn);
}

TEST(RecordScannerTest, GarbageBetweenRecordsIsOneRegion) {
  const auto records = SampleRecords(6);
  std::vector<size_t> offsets;
  std::string bytes = Join(records, &offsets);
  std::string garbage(333, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 131 + 7);
  bytes.insert(offsets[3], garbage);
  const Scan scan = ScanBytes(bytes);
  EXPECT_EQ(scan.records, records);
  ASSERT_EQ(scan.damage.size(), 1u);
  EXPECT_EQ(scan.damage[0].bytes, garbage.size());
}

TEST(RecordScannerTest, ReadErrorEndsTheScanWithTheError) {
  rayagg::test::SimulatedFileSystem fs;
  ASSERT_TRUE(fs.CreateDirectories("/d").ok());
  const std::string bytes = Join(SampleRecords(20));
  fs.SetContents("/d/f", bytes);
  fs.Inject({.op = rayagg::test::SimulatedFileSystem::Op::kRead, .skip = 1, .times = -1});
  auto file = fs.Open("/d/f", OpenMode::kRead);
  ASSERT_TRUE(file.ok());
  RecordScanner scanner(**file, 0, bytes.size(), 64);
  ScannedRecord record;
  DamagedRegion damage;
  int records = 0;
  while (scanner.Next(record, damage) == RecordScanner::Step::kRecord) ++records;
  EXPECT_GT(records, 0);
  EXPECT_LT(records, 20);
  EXPECT_EQ(scanner.status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace rayagg::spool
