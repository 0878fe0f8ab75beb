// The texts the task list's search (`q=`) looks in, per session: function
// names, task names and error messages (which hold the exception and the
// whole stack trace), each stored once per distinct text and indexed by
// SQLite's FTS5 trigram tokenizer, so any case-insensitive substring of 3
// or more characters is found without scanning (docs/HISTORY.md "Search").
//
// A task points at its texts: the function name through its func_id (the
// text's `ref`), the error message through tasks.error_text_id (the text's
// id, NULL without a message: the index on it then only holds failed
// tasks); a task name is matched by its text (tasks.name), and is only stored
// when it is not already a substring of the task's function name, since a
// query that matches such a name matches the function name too.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "absl/status/statusor.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

// search_texts.kind
enum class SearchKind : int { kFunction = 1, kName = 2, kError = 3 };

// The search's part of the index schema, run after the tables of
// index_schema.cc (it indexes the tasks table's error_text_id). Function and
// task names have an FTS table of their own, so that a name query never
// reads the stack traces' far larger posting lists.
inline constexpr std::string_view kSearchSchema = R"sql(
CREATE TABLE search_texts(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  hash INTEGER NOT NULL,
  ref INTEGER NOT NULL);
CREATE INDEX search_texts_by_hash ON search_texts(session_id, hash);
CREATE VIRTUAL TABLE search_names USING fts5(text, tokenize='trigram', columnsize=0);
CREATE VIRTUAL TABLE search_errors USING fts5(text, tokenize='trigram', columnsize=0);
CREATE INDEX tasks_by_error_text ON tasks(session_id, error_text_id, func_id)
  WHERE error_text_id IS NOT NULL;
)sql";

class SearchTexts {
 public:
  // Installs a rollback hook on `db` (SQLite keeps one per connection): the
  // ids a rolled-back transaction had interned are forgotten.
  explicit SearchTexts(SqliteDb& db);
  ~SearchTexts();
  SearchTexts(const SearchTexts&) = delete;
  SearchTexts& operator=(const SearchTexts&) = delete;

  // The id of `text` of `kind` in the session, inserted (with its FTS row)
  // on first sight. `ref` is what the text belongs to (a function's names
  // id). Runs inside the caller's transaction.
  absl::StatusOr<int64_t> Intern(int64_t session_id, SearchKind kind, std::string_view text,
                                 int64_t ref = 0);

  // Makes one task findable: its function name (once per session and
  // function), its task name when the function name does not contain it,
  // and its error message. Returns the error message's text id for
  // tasks.error_text_id (0: no message, stored as NULL).
  absl::StatusOr<int64_t> IndexTask(int64_t session_id, int64_t func_id, std::string_view func_name,
                                    std::string_view task_name, std::string_view error_message);

  // Removes the session's texts; inside the caller's transaction.
  absl::Status DropSession(int64_t session_id);

 private:
  struct Key {
    int64_t session_id;
    int kind;
    uint64_t hash;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  struct Interned {
    int64_t id;
    uint64_t check;  // a second, independent hash of the text
  };
  static void OnRollback(void* self);
  void Remember(const Key& key, Interned value);

  SqliteDb& db_;
  // Bounded: cleared whole when full (it only grows with distinct texts).
  std::unordered_map<Key, Interned, KeyHash> cache_;
};

// A 64-bit FNV-1a hash of `text` from `seed`; stable across builds (the
// index keeps it).
uint64_t StableTextHash(std::string_view text, uint64_t seed = 0xcbf29ce484222325ULL);

// Whether `haystack` contains `needle`, ASCII letters compared without case.
bool ContainsIgnoringAsciiCase(std::string_view haystack, std::string_view needle);

}  // namespace rayagg::history
