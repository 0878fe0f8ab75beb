// Opening a spool directory and recovering what an earlier run left in it
// (docs/SPOOL.md, "Recovery"). Two steps, so the daemon can serve while the
// second one runs:
//
// 1. OpenSpoolDirectory (synchronous, reads only file headers): takes the
//    lock (a second daemon on the directory is refused), lists the
//    segments, refuses a directory of another format version, reads the
//    ledger and works out where this run's sequences and segment numbers
//    start (above everything on disk, without reading the records).
// 2. RecoverSegments (reads every record): checks each checksum, notes the
//    intact records in a SegmentSet, truncates torn tails, reports corrupt
//    regions, and moves aside segments it cannot read.
//
// Damage never stops either step: only a lock held by another process, a
// directory that cannot be created or listed, and another format version
// are errors. Both run on any FileSystem (the fuzzers use an in-memory one).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "spool/file_system.h"
#include "spool/format.h"
#include "spool/ledger.h"
#include "spool/segment_set.h"

namespace rayagg::spool {

inline constexpr std::string_view kLockFileName = "LOCK";
inline constexpr std::string_view kMovedAsideDirectory = "moved-aside";
// Moved-aside files kept (the newest); older ones are deleted so repeated
// damage cannot fill the disk.
inline constexpr size_t kMovedAsideKept = 8;

struct FoundSegment {
  uint64_t number = 0;
  uint64_t file_bytes = 0;
  bool header_intact = false;
  SegmentHeader header = {};
};

struct OpenedDirectory {
  std::unique_ptr<DirectoryLock> lock;
  std::vector<FoundSegment> segments;  // oldest first
  LedgerState ledger;                  // empty when there was none (or it was moved aside)
  uint64_t next_segment_number = 1;
  // Above every sequence a record on disk can carry.
  uint64_t next_sequence = 0;
  // Logged by the caller: what was moved aside and why.
  std::vector<std::string> problems;
  // Segments moved aside because the disk would not read their header.
  uint64_t moved_aside_segments = 0;
  std::vector<uint64_t> moved_aside;  // their numbers
};

// `owner` is written into the lock file (e.g. "pid 12").
absl::StatusOr<OpenedDirectory> OpenSpoolDirectory(FileSystem& fs, const std::string& directory,
                                                   std::string_view owner);

struct DamageReport {
  uint64_t segment = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  // The first intact entry after the region, if any: the region lies
  // before it, so it is lost for every sink whose position is not past it.
  std::optional<uint64_t> next_entry = std::nullopt;
  // Entries lost, as far as the sequences around the region tell (>= 1).
  uint64_t lost_entries = 1;
};

struct RecoveryReport {
  uint64_t segments = 0;
  uint64_t records = 0;
  uint64_t bytes_scanned = 0;
  uint64_t torn_bytes = 0;  // cut from tails
  std::vector<DamageReport> corrupt;
  std::vector<std::string> problems;  // logged by the caller
  // Segments moved aside because the disk would not read them: their
  // events are lost, and how many is unknown (the bytes that say it are
  // what could not be read). SegmentSet::NoteMovedAside marks where they
  // stood, so each sink reading past counts the loss.
  uint64_t moved_aside_segments = 0;
  std::vector<uint64_t> moved_aside;  // their numbers
};

// Sees every intact record, in order (for rebuilding the dedup window).
using RecordVisitor = std::function<void(const RecordHeader& header, std::string_view payload)>;

// Scans every segment of `opened` into `segments` (which must be empty).
// `cancelled` is checked between segments (the daemon stopping).
RecoveryReport RecoverSegments(FileSystem& fs, const std::string& directory,
                               const std::vector<FoundSegment>& found, SegmentSet& segments,
                               const RecordVisitor& visitor,
                               const std::function<bool()>& cancelled = {});

// Moves `name` of `directory` into its moved-aside folder, keeping only the
// newest kMovedAsideKept there. Returns a line saying what happened.
std::string MoveAside(FileSystem& fs, const std::string& directory, const std::string& name,
                      std::string_view reason);

}  // namespace rayagg::spool
