#include "history/index/search_texts.h"

#include <algorithm>

#include "common/text.h"

namespace rayagg::history {
namespace {

// The cache holds ids, not texts: about 48 bytes an entry.
constexpr size_t kMaxCached = 1'000'000;
// A second FNV offset basis: two independent 64-bit hashes must both
// collide before a cached id is taken for another text.
constexpr uint64_t kCheckSeed = 0x84222325cbf29ce4ULL;
// The cache's kind for "this session's function `hash` (its names id) has
// its text stored", which IndexTask asks once per task.
constexpr int kFunctionById = -1;

std::string_view FtsTable(SearchKind kind) {
  return kind == SearchKind::kError ? "search_errors" : "search_names";
}

}  // namespace

uint64_t StableTextHash(std::string_view text, uint64_t seed) {
  uint64_t hash = seed;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

bool ContainsIgnoringAsciiCase(std::string_view haystack, std::string_view needle) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != haystack.end();
}

size_t SearchTexts::KeyHash::operator()(const Key& key) const {
  return key.hash ^ (static_cast<uint64_t>(key.session_id) * 0x9e3779b97f4a7c15ULL) ^
         static_cast<uint64_t>(key.kind + 3);
}

SearchTexts::SearchTexts(SqliteDb& db) : db_(db) {
  sqlite3_rollback_hook(db_.handle(), &SearchTexts::OnRollback, this);
}

SearchTexts::~SearchTexts() {
  // Another writer on the connection may have installed its own hook since.
  void* current = sqlite3_rollback_hook(db_.handle(), nullptr, nullptr);
  if (current != this) sqlite3_rollback_hook(db_.handle(), &SearchTexts::OnRollback, current);
}

void SearchTexts::OnRollback(void* self) { static_cast<SearchTexts*>(self)->cache_.clear(); }

void SearchTexts::Remember(const Key& key, Interned value) {
  if (cache_.size() >= kMaxCached) cache_.clear();
  cache_.emplace(key, value);
}

absl::StatusOr<int64_t> SearchTexts::Intern(int64_t session_id, SearchKind kind,
                                            std::string_view text, int64_t ref) {
  const uint64_t hash = StableTextHash(text);
  const uint64_t check = StableTextHash(text, kCheckSeed);
  const Key key{session_id, static_cast<int>(kind), hash};
  if (auto it = cache_.find(key); it != cache_.end() && it->second.check == check) {
    return it->second.id;
  }
  // Texts of one hash are compared whole, so a collision only costs a row.
  absl::StatusOr<SqliteStatement*> find =
      db_.Cached(kind == SearchKind::kError
                     ? "SELECT x.id FROM search_texts x JOIN search_errors f ON f.rowid = x.id "
                       "WHERE x.session_id = ? AND x.hash = ? AND x.kind = ? AND f.text = ?"
                     : "SELECT x.id FROM search_texts x JOIN search_names f ON f.rowid = x.id "
                       "WHERE x.session_id = ? AND x.hash = ? AND x.kind = ? AND f.text = ?");
  if (!find.ok()) return find.status();
  (*find)
      ->Bind(1, session_id)
      .Bind(2, static_cast<int64_t>(hash))
      .Bind(3, static_cast<int>(kind))
      .BindText(4, text);
  absl::StatusOr<bool> row = (*find)->Step();
  if (!row.ok()) return row.status();
  if (*row) {
    const int64_t id = (*find)->Int(0);
    (*find)->Reset();
    Remember(key, {id, check});
    return id;
  }
  (*find)->Reset();
  absl::StatusOr<SqliteStatement*> insert =
      db_.Cached("INSERT INTO search_texts(session_id, kind, hash, ref) VALUES (?,?,?,?)");
  if (!insert.ok()) return insert.status();
  (*insert)
      ->Bind(1, session_id)
      .Bind(2, static_cast<int>(kind))
      .Bind(3, static_cast<int64_t>(hash))
      .Bind(4, ref);
  if (absl::Status ran = (*insert)->Run(); !ran.ok()) return ran;
  const int64_t id = db_.last_insert_rowid();
  absl::StatusOr<SqliteStatement*> index =
      db_.Cached(kind == SearchKind::kError ? "INSERT INTO search_errors(rowid, text) VALUES (?,?)"
                                            : "INSERT INTO search_names(rowid, text) VALUES (?,?)");
  if (!index.ok()) return index.status();
  (*index)->Bind(1, id).BindText(2, text);
  if (absl::Status ran = (*index)->Run(); !ran.ok()) return ran;
  Remember(key, {id, check});
  return id;
}

absl::StatusOr<int64_t> SearchTexts::IndexTask(int64_t session_id, int64_t func_id,
                                               std::string_view func_name,
                                               std::string_view task_name,
                                               std::string_view error_message) {
  if (func_id != 0) {
    const Key key{session_id, kFunctionById, static_cast<uint64_t>(func_id)};
    if (!cache_.contains(key)) {
      absl::StatusOr<int64_t> id = Intern(session_id, SearchKind::kFunction, func_name, func_id);
      if (!id.ok()) return id.status();
      Remember(key, {*id, 0});
    }
  }
  if (!task_name.empty() && !ContainsIgnoringAsciiCase(func_name, task_name)) {
    absl::StatusOr<int64_t> id = Intern(session_id, SearchKind::kName, task_name);
    if (!id.ok()) return id.status();
  }
  if (error_message.empty()) return 0;
  return Intern(session_id, SearchKind::kError, error_message);
}

absl::Status SearchTexts::DropSession(int64_t session_id) {
  for (const SearchKind kind : {SearchKind::kName, SearchKind::kError}) {
    absl::StatusOr<SqliteStatement> remove = db_.Prepare(
        strings::Cat("DELETE FROM ", FtsTable(kind),
                     " WHERE rowid IN (SELECT id FROM search_texts WHERE session_id = ? AND kind ",
                     kind == SearchKind::kError ? "= 3)" : "IN (1, 2))"));
    if (!remove.ok()) return remove.status();
    remove->Bind(1, session_id);
    if (absl::Status ran = remove->Run(); !ran.ok()) return ran;
  }
  absl::StatusOr<SqliteStatement> remove =
      db_.Prepare("DELETE FROM search_texts WHERE session_id = ?");
  if (!remove.ok()) return remove.status();
  remove->Bind(1, session_id);
  if (absl::Status ran = remove->Run(); !ran.ok()) return ran;
  cache_.clear();
  return absl::OkStatus();
}

}  // namespace rayagg::history
