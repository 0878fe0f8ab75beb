#include "history/index/index_schema.h"

#include <array>
#include <filesystem>

#include "common/text.h"
#include "history/index/search_texts.h"

namespace rayagg::history {
namespace {

// Times and durations are -1 when unknown (never NULL), so that a cursor
// over a sorted column compares plain integers and stays on its index.
//
// tasks: one row per attempt. `latest` is 1 on the row of the highest
// attempt number the index holds for the task id (the row the tasks unit
// counts), `attempts` is that number + 1 on every row of the task. Each
// sortable column has an index tasks_by_<column> on (session_id, column,
// start_ns), whose implicit last column is the row id: a keyset page ordered
// by (column, start_ns, id) is one seek, at page 1 as at page 5,000.
// Function, node and exception are sorted by their names id (first-seen
// order: rows of one value together, not alphabetical).
//
// summary: per session and unit (0 = attempts: every row counts; 1 =
// tasks: only latest rows count), dimension (SummaryDim), value, job, task
// type and state: a count and three duration distributions.
constexpr std::string_view kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE names(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
INSERT INTO names(id, text) VALUES (0, '');
CREATE TABLE sessions(
  id INTEGER PRIMARY KEY,
  cluster TEXT NOT NULL,
  kind TEXT NOT NULL, namespace TEXT NOT NULL, owner TEXT NOT NULL, cluster_name TEXT NOT NULL,
  name TEXT NOT NULL,
  has_marker INTEGER NOT NULL DEFAULT 0,
  first_event_ns INTEGER NOT NULL DEFAULT -1,
  last_event_ns INTEGER NOT NULL DEFAULT -1,
  last_new_object_ms INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'live',
  gone_since_ms INTEGER NOT NULL DEFAULT 0,
  objects INTEGER NOT NULL DEFAULT 0,
  object_bytes INTEGER NOT NULL DEFAULT 0,
  events INTEGER NOT NULL DEFAULT 0,
  ignored_events INTEGER NOT NULL DEFAULT 0,
  bad_lines INTEGER NOT NULL DEFAULT 0,
  bad_objects INTEGER NOT NULL DEFAULT 0,
  dropped_task_attempts INTEGER NOT NULL DEFAULT 0,
  removed_reason TEXT NOT NULL DEFAULT '',
  removed_ms INTEGER NOT NULL DEFAULT 0,
  removed_detail TEXT NOT NULL DEFAULT '',
  retrying_objects TEXT NOT NULL DEFAULT '',
  skipped_prefixes INTEGER NOT NULL DEFAULT 0,
  UNIQUE(cluster, name));
CREATE TABLE prefixes(
  session_id INTEGER NOT NULL, prefix TEXT NOT NULL, last_key TEXT NOT NULL,
  PRIMARY KEY(session_id, prefix)) WITHOUT ROWID;
CREATE TABLE objects(
  session_id INTEGER NOT NULL, key TEXT NOT NULL,
  size INTEGER NOT NULL, events INTEGER NOT NULL, bad_lines INTEGER NOT NULL,
  error TEXT NOT NULL, writer TEXT NOT NULL, seq_first INTEGER NOT NULL,
  seq_last INTEGER NOT NULL, writer_drops INTEGER NOT NULL, manifest_events INTEGER NOT NULL,
  seq_void TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(session_id, key)) WITHOUT ROWID;
CREATE INDEX objects_by_writer ON objects(writer, seq_first);
CREATE TABLE tasks(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL,
  task_id BLOB NOT NULL,
  attempt INTEGER NOT NULL,
  latest INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  state INTEGER NOT NULL,
  raw_state INTEGER NOT NULL,
  type INTEGER NOT NULL,
  func_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  job_id TEXT NOT NULL,
  node_id INTEGER NOT NULL,
  worker_id BLOB NOT NULL,
  worker_pid INTEGER NOT NULL,
  actor_id BLOB NOT NULL,
  error_type INTEGER NOT NULL,
  exception_id INTEGER NOT NULL,
  error_text_id INTEGER,
  creation_ns INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  pending_ns INTEGER NOT NULL,
  running_ns INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,
  record BLOB NOT NULL);
CREATE UNIQUE INDEX tasks_by_key ON tasks(session_id, task_id, attempt);
CREATE INDEX tasks_by_start ON tasks(session_id, start_ns);
CREATE INDEX tasks_by_state ON tasks(session_id, state, start_ns);
CREATE INDEX tasks_by_job ON tasks(session_id, job_id, start_ns);
CREATE INDEX tasks_by_func ON tasks(session_id, func_id, start_ns);
CREATE INDEX tasks_by_end ON tasks(session_id, end_ns, start_ns);
CREATE INDEX tasks_by_creation ON tasks(session_id, creation_ns, start_ns);
CREATE INDEX tasks_by_pending ON tasks(session_id, pending_ns, start_ns);
CREATE INDEX tasks_by_running ON tasks(session_id, running_ns, start_ns);
CREATE INDEX tasks_by_total ON tasks(session_id, total_ns, start_ns);
CREATE INDEX tasks_by_attempt ON tasks(session_id, attempt, start_ns);
CREATE INDEX tasks_by_error_type ON tasks(session_id, error_type, start_ns);
CREATE INDEX tasks_by_name ON tasks(session_id, name, start_ns);
CREATE INDEX tasks_by_node ON tasks(session_id, node_id, start_ns);
CREATE INDEX tasks_by_exception ON tasks(session_id, exception_id, start_ns);
-- The attempts a later one superseded (a few percent of the rows): a count
-- in the tasks unit is the attempts' count, read from a covering index,
-- less the superseded attempts among them (task_list.cc); it covers the
-- search's count parts (function, error text).
CREATE INDEX tasks_superseded ON tasks(session_id, func_id, error_text_id) WHERE latest = 0;
CREATE TABLE actors(
  session_id INTEGER NOT NULL, actor_id TEXT NOT NULL, state INTEGER NOT NULL,
  class_name TEXT NOT NULL, name TEXT NOT NULL, job_id TEXT NOT NULL, record BLOB NOT NULL,
  PRIMARY KEY(session_id, actor_id)) WITHOUT ROWID;
CREATE TABLE jobs(
  session_id INTEGER NOT NULL, job_id TEXT NOT NULL, finished_ns INTEGER NOT NULL,
  record BLOB NOT NULL, PRIMARY KEY(session_id, job_id)) WITHOUT ROWID;
CREATE TABLE nodes(
  session_id INTEGER NOT NULL, node_id TEXT NOT NULL, dead_ns INTEGER NOT NULL,
  record BLOB NOT NULL, PRIMARY KEY(session_id, node_id)) WITHOUT ROWID;
CREATE TABLE workers(
  session_id INTEGER NOT NULL, worker_id TEXT NOT NULL, record BLOB NOT NULL,
  PRIMARY KEY(session_id, worker_id)) WITHOUT ROWID;
CREATE TABLE summary(
  session_id INTEGER NOT NULL, unit INTEGER NOT NULL, dim INTEGER NOT NULL, value TEXT NOT NULL,
  job_id TEXT NOT NULL, task_type INTEGER NOT NULL, state INTEGER NOT NULL,
  count INTEGER NOT NULL, stats BLOB NOT NULL,
  PRIMARY KEY(session_id, unit, dim, value, job_id, task_type, state)) WITHOUT ROWID;
)sql";

// Migrations: kMigrations[v - kOldestMigratedVersion] takes version v to
// v + 1, inside one transaction.
constexpr std::array<std::string_view, 1> kMigrations = {
    // 5 -> 6: the superseded attempts' index (kSchema).
    "CREATE INDEX tasks_superseded ON tasks(session_id, func_id, error_text_id) WHERE latest = 0;",
};
static_assert(static_cast<int64_t>(kMigrations.size()) ==
              kIndexSchemaVersion - kOldestMigratedVersion);

// 16 KiB pages, for a new file (SQLite keeps an existing file's page size,
// and cannot change it once in WAL mode, so the pragma comes first): SQLite
// writes each WAL frame, and copies it at checkpoint, with two system calls
// whatever the page size, so a quarter of the pages makes commits and
// checkpoints much cheaper (docs/PERFORMANCE.md, "Task history").
constexpr int kPageSize = 16384;

absl::Status Configure(SqliteDb& db, uint64_t cache_bytes, uint64_t mmap_bytes) {
  return db.Exec(strings::Cat(
      "PRAGMA page_size=", kPageSize, "; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
      "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-", std::max<uint64_t>(cache_bytes / 1024, 1024),
      "; PRAGMA mmap_size=", mmap_bytes, ";"));
}

absl::StatusOr<int64_t> UserVersion(SqliteDb& db) {
  absl::StatusOr<SqliteStatement> statement = db.Prepare("PRAGMA user_version");
  if (!statement.ok()) return statement.status();
  absl::StatusOr<bool> row = statement->Step();
  if (!row.ok()) return row.status();
  return *row ? statement->Int(0) : 0;
}

absl::StatusOr<bool> HasTables(SqliteDb& db) {
  absl::StatusOr<SqliteStatement> statement =
      db.Prepare("SELECT count(*) FROM sqlite_master WHERE type='table'");
  if (!statement.ok()) return statement.status();
  absl::StatusOr<bool> row = statement->Step();
  if (!row.ok()) return row.status();
  return *row && statement->Int(0) > 0;
}

}  // namespace

std::string IndexPath(const std::string& directory) {
  return (std::filesystem::path(directory) / "index.sqlite").string();
}

absl::StatusOr<int64_t> ReadIndexVersion(const std::string& directory) {
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(IndexPath(directory), true);
  if (!db.ok()) return db.status();
  return UserVersion(**db);
}

absl::StatusOr<OpenedIndex> OpenIndexForWriting(const std::string& directory, uint64_t cache_bytes,
                                                uint64_t mmap_bytes) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    return absl::UnavailableError(
        strings::Cat("cannot create index directory ", directory, ": ", error.message()));
  }
  const std::string path = IndexPath(directory);
  OpenedIndex opened;
  for (int round = 0; round < 2; ++round) {
    absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path, false);
    if (!db.ok()) return db.status();
    if (absl::Status configured = Configure(**db, cache_bytes, mmap_bytes); !configured.ok()) {
      return configured;
    }
    absl::StatusOr<int64_t> version = UserVersion(**db);
    absl::StatusOr<bool> has_tables = HasTables(**db);
    if (!version.ok()) return version.status();
    if (!has_tables.ok()) return has_tables.status();
    if (round == 0) opened.found_version = *version;
    if (*version == kIndexSchemaVersion) {
      opened.db = std::move(*db);
      return opened;
    }
    if (*version > kIndexSchemaVersion) {
      return absl::FailedPreconditionError(strings::Cat(
          "index ", path, " has schema version ", *version, ", newer than this binary's ",
          kIndexSchemaVersion, ": run the newer binary, or delete the index to rebuild it"));
    }
    if (*version == 0 && !*has_tables) {
      SqliteTransaction transaction(**db);
      if (!transaction.status().ok()) return transaction.status();
      if (absl::Status created = (*db)->Exec(kSchema); !created.ok()) return created;
      if (absl::Status created = (*db)->Exec(kSearchSchema); !created.ok()) return created;
      if (absl::Status set = (*db)->Exec(strings::Cat("PRAGMA user_version=", kIndexSchemaVersion));
          !set.ok()) {
        return set;
      }
      if (absl::Status committed = transaction.Commit(); !committed.ok()) return committed;
      opened.db = std::move(*db);
      return opened;
    }
    if (*version >= kOldestMigratedVersion && *has_tables) {
      SqliteTransaction transaction(**db);
      if (!transaction.status().ok()) return transaction.status();
      for (int64_t v = *version; v < kIndexSchemaVersion; ++v) {
        if (absl::Status migrated = (*db)->Exec(kMigrations[v - kOldestMigratedVersion]);
            !migrated.ok()) {
          return migrated;
        }
      }
      if (absl::Status set = (*db)->Exec(strings::Cat("PRAGMA user_version=", kIndexSchemaVersion));
          !set.ok()) {
        return set;
      }
      if (absl::Status committed = transaction.Commit(); !committed.ok()) return committed;
      opened.db = std::move(*db);
      opened.migrated = true;
      return opened;
    }
    // Versions 1..3 (and a file with tables but no version): no migration
    // reaches this layout, so start empty; the indexer re-reads the store.
    db->reset();
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::filesystem::remove(path + suffix, error);
    }
    opened.rebuilt = true;
  }
  return absl::InternalError(strings::Cat("cannot create index ", path));
}

absl::StatusOr<std::unique_ptr<SqliteDb>> OpenIndexForReading(const std::string& directory,
                                                              uint64_t cache_bytes,
                                                              uint64_t mmap_bytes) {
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(IndexPath(directory), true);
  if (!db.ok()) return db.status();
  if (absl::Status configured = (*db)->Exec(
          strings::Cat("PRAGMA cache_size=-", std::max<uint64_t>(cache_bytes / 1024, 256),
                       "; PRAGMA temp_store=MEMORY; PRAGMA mmap_size=", mmap_bytes, ";"));
      !configured.ok()) {
    return configured;
  }
  return db;
}

}  // namespace rayagg::history
