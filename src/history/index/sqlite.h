// A thin RAII layer over SQLite's C API for the task index: a connection, a
// prepared statement with typed binds and reads, and a transaction guard.
// Every value that comes from outside reaches SQL only as a bound parameter.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rayagg::history {

class SqliteStatement;

class SqliteDb {
 public:
  // Opens (creating when `create`) the database file. Read-only connections
  // never write and may run beside the writer (WAL).
  static absl::StatusOr<std::unique_ptr<SqliteDb>> Open(const std::string& path, bool read_only);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements without results.
  absl::Status Exec(std::string_view sql);
  absl::StatusOr<SqliteStatement> Prepare(std::string_view sql);
  // The cached statement for `sql` (prepared on first use, reset after use
  // by the caller through SqliteStatement's destructor-free Reset()).
  absl::StatusOr<SqliteStatement*> Cached(std::string_view sql);

  int64_t last_insert_rowid() const;
  int changes() const;
  sqlite3* handle() const { return db_; }
  // The text of the last error, for messages.
  std::string error() const;

  // Whether the budget of the SqliteStepBudget in force ran out (the
  // statement that ran it out failed with SQLITE_INTERRUPT).
  bool budget_exhausted() const { return budget_ != 0 && used_ > budget_; }

 private:
  friend class SqliteStepBudget;
  explicit SqliteDb(sqlite3* db);
  static int Progress(void* self);

  sqlite3* db_;
  struct Cache;
  std::unique_ptr<Cache> cache_;
  uint64_t budget_ = 0;
  uint64_t used_ = 0;
  friend class SqliteStatement;
};

class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  ~SqliteStatement();

  // Binds are 1-based, as in SQLite.
  SqliteStatement& Bind(int index, int64_t value);
  SqliteStatement& Bind(int index, int value) { return Bind(index, static_cast<int64_t>(value)); }
  SqliteStatement& Bind(int index, double value);
  SqliteStatement& BindText(int index, std::string_view value);
  SqliteStatement& BindBlob(int index, std::string_view value);
  SqliteStatement& BindNull(int index);

  // True with a row, false when done; an error is a status.
  absl::StatusOr<bool> Step();
  // Steps a statement that returns no rows.
  absl::Status Run();
  void Reset();

  int64_t Int(int column) const;
  double Real(int column) const;
  std::string_view Text(int column) const;
  std::string_view Blob(int column) const;
  bool IsNull(int column) const;
  int column_count() const;

 private:
  friend class SqliteDb;
  SqliteStatement(sqlite3_stmt* statement, SqliteDb* db, bool owned)
      : statement_(statement), db_(db), owned_(owned) {}
  sqlite3_stmt* statement_ = nullptr;
  SqliteDb* db_ = nullptr;
  bool owned_ = true;
};

// Limits the SQLite work of everything run on `db` while it lives: a
// statement is aborted after `thousands_of_steps` x 1000 VM steps in all
// (0: no limit), so no query can hold a reader forever. The limit ends with
// the scope, whatever way it is left, so a pooled connection never keeps a
// spent budget for the next query. Scopes do not nest.
class SqliteStepBudget {
 public:
  SqliteStepBudget(SqliteDb& db, uint64_t thousands_of_steps);
  ~SqliteStepBudget();
  SqliteStepBudget(const SqliteStepBudget&) = delete;
  SqliteStepBudget& operator=(const SqliteStepBudget&) = delete;

 private:
  SqliteDb& db_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK unless Commit() succeeded.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db);
  ~SqliteTransaction();
  absl::Status status() const { return begun_; }
  absl::Status Commit();

 private:
  SqliteDb& db_;
  absl::Status begun_;
  bool done_ = false;
};

}  // namespace rayagg::history
