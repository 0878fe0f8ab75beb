// The task index's SQLite schema and its version (docs/HISTORY.md "The
// index"). Opening an index whose version is older than this binary's either
// migrates it in place (from kOldestMigratedVersion on) or, for anything
// older, replaces it with an empty index that the indexer fills again from
// the store; a newer version is refused (never downgrade an index in place).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

// 2: objects_by_writer (migrated from 1 in place); 3: objects.seq_void;
// 4: tasks and attempts (tasks.latest and tasks.attempts, summary.unit) and
// an index per sortable column; 5: the search (search_texts.h); 6: the
// superseded attempts' index, tasks_superseded (migrated from 5 in place).
inline constexpr int64_t kIndexSchemaVersion = 6;
// Versions 1..4 are rebuilt, not migrated: the columns 4 added are derived
// from every attempt of every task (which one is the latest, and each
// task's contribution to the summaries in the tasks unit), and the search's
// texts of 5 from every task's record, so every task must be folded again
// from the store.
inline constexpr int64_t kOldestMigratedVersion = 5;

struct OpenedIndex {
  std::unique_ptr<SqliteDb> db;
  // The version found on disk before opening (0: a new file).
  int64_t found_version = 0;
  // True when the file was older than kOldestMigratedVersion and was
  // replaced by an empty index: everything must be re-read from the store.
  bool rebuilt = false;
  bool migrated = false;
};

// Opens or creates `directory`/index.sqlite for writing (WAL, synchronous
// NORMAL), creating or migrating the schema as described above.
// Both kinds of connection read up to `mmap_bytes` of the file through a
// memory map (`index.mmap_bytes`; SQLite caps it at 2 GiB; 0: none): a query
// that looks up thousands of rows, or a batch that updates sixteen indexes,
// then reads the OS page cache in place, shared by every connection, instead
// of copying each page into its own cache (docs/PERFORMANCE.md). Mapped
// pages count in the process's RSS; they are the OS cache's, not the heap's.
inline constexpr uint64_t kDefaultMmapBytes = 2ull << 30;
absl::StatusOr<OpenedIndex> OpenIndexForWriting(const std::string& directory, uint64_t cache_bytes,
                                                uint64_t mmap_bytes = kDefaultMmapBytes);

// A read-only connection for queries (after OpenIndexForWriting created it).
absl::StatusOr<std::unique_ptr<SqliteDb>> OpenIndexForReading(
    const std::string& directory, uint64_t cache_bytes, uint64_t mmap_bytes = kDefaultMmapBytes);

std::string IndexPath(const std::string& directory);

// The schema version of the index file in `directory`, read on a read-only
// connection without changing anything (0: a file without one).
absl::StatusOr<int64_t> ReadIndexVersion(const std::string& directory);

}  // namespace rayagg::history
