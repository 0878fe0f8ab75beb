#include "history/index/sqlite.h"

#include <unordered_map>

#include "common/text.h"

namespace rayagg::history {

struct SqliteDb::Cache {
  std::unordered_map<std::string, SqliteStatement> statements;
};

SqliteDb::SqliteDb(sqlite3* db) : db_(db), cache_(std::make_unique<Cache>()) {}

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path, bool read_only) {
  sqlite3* db = nullptr;
  const int flags =
      (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
      SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::UnavailableError(strings::Cat("cannot open index database ", path, ": ", message));
  }
  std::unique_ptr<SqliteDb> out(new SqliteDb(db));
  // Readers wait for a checkpoint instead of failing at once.
  sqlite3_busy_timeout(db, 5000);
  sqlite3_progress_handler(db, 1000, &SqliteDb::Progress, out.get());
  return out;
}

SqliteDb::~SqliteDb() {
  cache_.reset();  // statements before the connection
  sqlite3_close_v2(db_);
}

int SqliteDb::Progress(void* self) {
  auto* db = static_cast<SqliteDb*>(self);
  if (db->budget_ == 0) return 0;
  return ++db->used_ > db->budget_ ? 1 : 0;
}

SqliteStepBudget::SqliteStepBudget(SqliteDb& db, uint64_t thousands_of_steps) : db_(db) {
  db_.budget_ = thousands_of_steps;
  db_.used_ = 0;
}

SqliteStepBudget::~SqliteStepBudget() {
  db_.budget_ = 0;
  db_.used_ = 0;
}

std::string SqliteDb::error() const { return sqlite3_errmsg(db_); }
int64_t SqliteDb::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int SqliteDb::changes() const { return sqlite3_changes(db_); }

absl::Status SqliteDb::Exec(std::string_view sql) {
  char* message = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string error = message != nullptr ? message : "unknown error";
    sqlite3_free(message);
    return absl::InternalError(strings::Cat("index database: ", error));
  }
  return absl::OkStatus();
}

absl::StatusOr<SqliteStatement> SqliteDb::Prepare(std::string_view sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &statement, nullptr) != SQLITE_OK) {
    return absl::InternalError(strings::Cat("index database: ", error()));
  }
  return SqliteStatement(statement, this, true);
}

absl::StatusOr<SqliteStatement*> SqliteDb::Cached(std::string_view sql) {
  auto it = cache_->statements.find(std::string(sql));
  if (it == cache_->statements.end()) {
    absl::StatusOr<SqliteStatement> prepared = Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    it = cache_->statements.emplace(std::string(sql), std::move(*prepared)).first;
  }
  it->second.Reset();
  return &it->second;
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : statement_(other.statement_), db_(other.db_), owned_(other.owned_) {
  other.statement_ = nullptr;
}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    if (statement_ != nullptr && owned_) sqlite3_finalize(statement_);
    statement_ = other.statement_;
    db_ = other.db_;
    owned_ = other.owned_;
    other.statement_ = nullptr;
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  if (statement_ != nullptr && owned_) sqlite3_finalize(statement_);
}

SqliteStatement& SqliteStatement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(statement_, index, value);
  return *this;
}
SqliteStatement& SqliteStatement::Bind(int index, double value) {
  sqlite3_bind_double(statement_, index, value);
  return *this;
}
SqliteStatement& SqliteStatement::BindText(int index, std::string_view value) {
  sqlite3_bind_text(statement_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
  return *this;
}
SqliteStatement& SqliteStatement::BindBlob(int index, std::string_view value) {
  sqlite3_bind_blob(statement_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
  return *this;
}
SqliteStatement& SqliteStatement::BindNull(int index) {
  sqlite3_bind_null(statement_, index);
  return *this;
}

absl::StatusOr<bool> SqliteStatement::Step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  if (rc == SQLITE_INTERRUPT) {
    return absl::DeadlineExceededError("query stopped: it needed more work than allowed");
  }
  if (rc == SQLITE_BUSY) return absl::UnavailableError("index database is busy");
  return absl::InternalError(strings::Cat("index database: ", sqlite3_errmsg(db_->db_)));
}

absl::Status SqliteStatement::Run() {
  absl::StatusOr<bool> stepped = Step();
  if (!stepped.ok()) return stepped.status();
  return absl::OkStatus();
}

void SqliteStatement::Reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

int64_t SqliteStatement::Int(int column) const { return sqlite3_column_int64(statement_, column); }
double SqliteStatement::Real(int column) const { return sqlite3_column_double(statement_, column); }
std::string_view SqliteStatement::Text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
  return text == nullptr ? std::string_view()
                         : std::string_view(text, sqlite3_column_bytes(statement_, column));
}
std::string_view SqliteStatement::Blob(int column) const {
  const auto* blob = static_cast<const char*>(sqlite3_column_blob(statement_, column));
  return blob == nullptr ? std::string_view()
                         : std::string_view(blob, sqlite3_column_bytes(statement_, column));
}
bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}
int SqliteStatement::column_count() const { return sqlite3_column_count(statement_); }

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) {
  begun_ = db_.Exec("BEGIN IMMEDIATE");
}
SqliteTransaction::~SqliteTransaction() {
  if (begun_.ok() && !done_) (void)db_.Exec("ROLLBACK");
}
absl::Status SqliteTransaction::Commit() {
  if (!begun_.ok()) return begun_;
  done_ = true;
  return db_.Exec("COMMIT");
}

}  // namespace rayagg::history
