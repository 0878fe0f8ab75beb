#include "spool/recovery.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "common/text.h"
#include "spool/record_scanner.h"

namespace rayagg::spool {
namespace {

std::string Join(const std::string& directory, std::string_view name) {
  return strings::Cat(directory, "/", name);
}

// Moved-aside files are named "<6-digit counter>-<original name>".
std::optional<uint64_t> MovedAsideCounter(std::string_view name) {
  const size_t dash = name.find('-');
  uint64_t counter = 0;
  if (dash == std::string_view::npos) return std::nullopt;
  const auto [end, error] = std::from_chars(name.data(), name.data() + dash, counter);
  if (error != std::errc() || end != name.data() + dash) return std::nullopt;
  return counter;
}

}  // namespace

std::string MoveAside(FileSystem& fs, const std::string& directory, const std::string& name,
                      std::string_view reason) {
  const std::string aside = Join(directory, kMovedAsideDirectory);
  std::vector<std::pair<uint64_t, std::string>> kept;
  if (fs.CreateDirectories(aside).ok()) {
    if (absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(aside); names.ok()) {
      for (const std::string& existing : *names) {
        if (auto counter = MovedAsideCounter(existing)) kept.emplace_back(*counter, existing);
      }
    }
  }
  std::sort(kept.begin(), kept.end());
  const uint64_t counter = kept.empty() ? 1 : kept.back().first + 1;
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%06llu-", static_cast<unsigned long long>(counter));
  const std::string target = Join(aside, strings::Cat(prefix, name));
  const absl::Status moved = fs.Rename(Join(directory, name), target);
  std::string line;
  if (moved.ok()) {
    line = strings::Cat("moved ", name, " aside to ", target, ": ", reason);
    kept.emplace_back(counter, target.substr(aside.size() + 1));
  } else {
    // Not even renaming works: remove it, so it cannot fail the next start.
    const absl::Status removed = fs.Remove(Join(directory, name));
    line = strings::Cat(name, " ", reason, "; moving it aside failed (", moved.message(), ")",
                        removed.ok() ? ", removed it" : ", and removing it failed too");
  }
  while (kept.size() > kMovedAsideKept) {
    fs.Remove(Join(aside, kept.front().second)).IgnoreError();
    kept.erase(kept.begin());
  }
  return line;
}

absl::StatusOr<OpenedDirectory> OpenSpoolDirectory(FileSystem& fs, const std::string& directory,
                                                   std::string_view owner) {
  if (absl::Status created = fs.CreateDirectories(directory); !created.ok()) {
    return absl::Status(created.code(),
                        strings::Cat("spool.dir ", directory, ": ", created.message()));
  }
  OpenedDirectory opened;
  absl::StatusOr<std::unique_ptr<DirectoryLock>> lock =
      fs.Lock(Join(directory, kLockFileName), owner);
  if (!lock.ok()) {
    if (absl::IsUnavailable(lock.status())) {
      return absl::UnavailableError(
          strings::Cat("spool.dir ", directory, " is in use by another process (",
                       lock.status().message(), "): two daemons cannot share a spool"));
    }
    return absl::Status(lock.status().code(),
                        strings::Cat("spool.dir ", directory, ": ", lock.status().message()));
  }
  opened.lock = *std::move(lock);
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(directory);
  if (!names.ok()) {
    return absl::Status(names.status().code(),
                        strings::Cat("spool.dir ", directory, ": ", names.status().message()));
  }
  auto incompatible = [&](std::string_view file, uint32_t version) {
    return absl::FailedPreconditionError(strings::Cat(
        "spool.dir ", directory, " was written in spool format version ", version, " (", file,
        "); this build reads version ", kFormatVersion,
        " only. Run a build that reads it, or move the directory away to start with an empty "
        "spool"));
  };
  for (const std::string& name : *names) {
    const std::optional<uint64_t> number = ParseSegmentFileName(name);
    if (!number) continue;
    const std::string path = Join(directory, name);
    FoundSegment found;
    found.number = *number;
    absl::StatusOr<std::unique_ptr<File>> file = fs.Open(path, OpenMode::kRead);
    absl::StatusOr<uint64_t> size =
        file.ok() ? (*file)->Size() : absl::StatusOr<uint64_t>(file.status());
    std::string header_bytes(kSegmentHeaderBytes, '\0');
    absl::StatusOr<size_t> got = size.ok()
                                     ? (*file)->ReadAt(0, header_bytes.data(), header_bytes.size())
                                     : absl::StatusOr<size_t>(size.status());
    if (!got.ok()) {
      opened.problems.push_back(
          MoveAside(fs, directory, name, strings::Cat("unreadable: ", got.status().message())));
      ++opened.moved_aside_segments;
      opened.moved_aside.push_back(*number);
      continue;
    }
    found.file_bytes = *size;
    if (*got < kSegmentHeaderBytes) {
      // Created just before a crash, before its header was written: no records.
      if (fs.Remove(path).ok()) {
        opened.problems.push_back(
            strings::Cat("removed ", name, ": header incomplete (", *got, " bytes), no records"));
      }
      continue;
    }
    switch (DecodeSegmentHeader(header_bytes, found.header)) {
      case HeaderState::kValid:
        found.header_intact = found.header.number == *number;
        break;
      case HeaderState::kIncompatible:
        return incompatible(name, found.header.version);
      case HeaderState::kCorrupt:
        break;
    }
    if (!found.header_intact) {
      opened.problems.push_back(
          strings::Cat(name, ": header damaged; reading its records by their own checksums"));
    }
    opened.segments.push_back(found);
  }
  std::sort(opened.segments.begin(), opened.segments.end(),
            [](const FoundSegment& a, const FoundSegment& b) { return a.number < b.number; });

  const std::string ledger_path = Join(directory, kLedgerFileName);
  absl::StatusOr<DecodedLedger> ledger = ReadLedger(fs, ledger_path);
  if (!ledger.ok()) {
    opened.problems.push_back(
        MoveAside(fs, directory, std::string(kLedgerFileName),
                  strings::Cat("unreadable (", ledger.status().message(),
                               "); every sink starts at the oldest event on disk")));
  } else {
    switch (ledger->condition) {
      case LedgerCondition::kIncompatible:
        return incompatible(kLedgerFileName, ledger->version);
      case LedgerCondition::kCorrupt:
        opened.problems.push_back(
            MoveAside(fs, directory, std::string(kLedgerFileName),
                      "both slots damaged; every sink starts at the oldest event on disk"));
        break;
      case LedgerCondition::kValid:
        opened.ledger = std::move(ledger->state);
        break;
      case LedgerCondition::kEmpty:
        break;
    }
  }

  // An upper bound on every sequence on disk, from headers and sizes only:
  // a segment's records are at least a header each, and its entries start
  // at its floor. Ledger positions count too: segments may be gone.
  uint64_t bound = 0;
  for (const FoundSegment& found : opened.segments) {
    if (found.header_intact) bound = std::max(bound, found.header.sequence_floor);
    bound += found.file_bytes / kRecordHeaderBytes + 1;
    opened.next_segment_number = std::max(opened.next_segment_number, found.number + 1);
  }
  for (const auto& [name, position] : opened.ledger.positions) bound = std::max(bound, position);
  opened.next_sequence = bound + 1;
  return opened;
}

RecoveryReport RecoverSegments(FileSystem& fs, const std::string& directory,
                               const std::vector<FoundSegment>& found, SegmentSet& segments,
                               const RecordVisitor& visitor,
                               const std::function<bool()>& cancelled) {
  RecoveryReport report;
  std::vector<size_t> unresolved;  // corrupt reports waiting for the next entry
  for (const FoundSegment& segment : found) {
    if (cancelled && cancelled()) break;
    const std::string name = SegmentFileName(segment.number);
    const std::string path = Join(directory, name);
    absl::StatusOr<std::unique_ptr<File>> file = fs.Open(path, OpenMode::kRead);
    absl::StatusOr<uint64_t> size =
        file.ok() ? (*file)->Size() : absl::StatusOr<uint64_t>(file.status());
    if (!size.ok()) {
      report.problems.push_back(
          MoveAside(fs, directory, name, strings::Cat("unreadable: ", size.status().message())));
      ++report.moved_aside_segments;
      report.moved_aside.push_back(segment.number);
      continue;
    }
    ++report.segments;
    SegmentInfo info;
    info.number = segment.number;
    info.sequence_floor = segment.header_intact ? segment.header.sequence_floor : 0;
    info.created_unix_ms = segment.header_intact ? segment.header.created_unix_ms : 0;
    info.file_bytes = *size;
    info.readable_end = *size;
    info.sealed = true;
    segments.Add(std::move(info));
    RecordScanner scanner(**file, kSegmentHeaderBytes, *size);
    std::optional<uint64_t> previous_entry;  // in this segment
    ScannedRecord record;
    DamagedRegion damage;
    for (;;) {
      const RecordScanner::Step step = scanner.Next(record, damage);
      if (step == RecordScanner::Step::kEnd) break;
      if (step == RecordScanner::Step::kRecord) {
        ++report.records;
        segments.NoteRecord(segment.number, record.offset, record.header);
        if (visitor) visitor(record.header, record.payload);
        if (record.header.part == 0) {
          for (const size_t index : unresolved) {
            DamageReport& corrupt = report.corrupt[index];
            corrupt.next_entry = record.header.sequence;
            if (corrupt.segment == segment.number && previous_entry &&
                record.header.sequence > *previous_entry + 1) {
              corrupt.lost_entries = record.header.sequence - *previous_entry - 1;
            }
          }
          unresolved.clear();
          previous_entry = record.header.sequence;
        }
        continue;
      }
      if (!damage.torn) {
        unresolved.push_back(report.corrupt.size());
        DamageReport corrupt;
        corrupt.segment = segment.number;
        corrupt.offset = damage.offset;
        corrupt.bytes = damage.bytes;
        report.corrupt.push_back(corrupt);
      }
      if (damage.tail) {
        if (damage.torn) report.torn_bytes += damage.bytes;
        absl::StatusOr<std::unique_ptr<File>> writable = fs.Open(path, OpenMode::kReadWrite);
        const absl::Status cut =
            writable.ok() ? (*writable)->Truncate(damage.offset) : writable.status();
        if (!cut.ok()) {
          report.problems.push_back(strings::Cat(name, ": cannot cut its damaged tail at ",
                                                 damage.offset, " (", cut.message(),
                                                 "); reading stops there"));
        }
        segments.SetSize(segment.number, cut.ok() ? damage.offset : *size, damage.offset);
      }
    }
    report.bytes_scanned += scanner.position() - kSegmentHeaderBytes;
    // What was recovered is made durable now: an earlier run may have left
    // it in the page cache only (sync: never, or a crash before the fsync).
    if (absl::Status synced = (*file)->Sync(); !synced.ok() && scanner.status().ok()) {
      report.problems.push_back(
          strings::Cat(name, ": fsync after recovery failed: ", synced.message()));
    }
    if (!scanner.status().ok()) {
      // An I/O error: the disk cannot give this segment back. Keep nothing
      // of it, so no reader trips over the same error.
      segments.Remove(segment.number);
      ++report.moved_aside_segments;
      report.moved_aside.push_back(segment.number);
      report.problems.push_back(MoveAside(
          fs, directory, name,
          strings::Cat("unreadable at ", scanner.position(), ": ", scanner.status().message())));
    }
  }
  if (!found.empty()) {
    if (absl::Status synced = fs.SyncDirectory(directory); !synced.ok()) {
      report.problems.push_back(
          strings::Cat("fsync of ", directory, " failed: ", synced.message()));
    }
  }
  return report;
}

}  // namespace rayagg::spool
