// A piece of SQL with the values of its `?` placeholders, each carrying its
// type, so a value is bound as exactly what it is (an integer, text or the
// bytes of an id) and never as SQL text. Only names from fixed tables
// (task_fields.h) become SQL text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "history/index/sqlite.h"

namespace rayagg::history {

struct SqlText {
  std::string value;
};
struct SqlBlob {
  std::string value;
};
using SqlValue = std::variant<int64_t, double, SqlText, SqlBlob>;

struct SqlClause {
  std::string sql;
  std::vector<SqlValue> values;

  SqlClause& Sql(std::string_view text) {
    sql += text;
    return *this;
  }
  SqlClause& Int(int64_t value) {
    values.emplace_back(value);
    return *this;
  }
  SqlClause& Real(double value) {
    values.emplace_back(value);
    return *this;
  }
  SqlClause& Text(std::string value) {
    values.emplace_back(SqlText{std::move(value)});
    return *this;
  }
  SqlClause& Blob(std::string value) {
    values.emplace_back(SqlBlob{std::move(value)});
    return *this;
  }
  // Appends another clause's text and values.
  SqlClause& Add(const SqlClause& other);
};

// Binds `values` to the statement's placeholders from `first` (1-based);
// returns the index after the last one bound.
int BindValues(SqliteStatement& statement, int first, const std::vector<SqlValue>& values);

// Prepares `clause.sql` and binds all of its values.
absl::StatusOr<SqliteStatement> PrepareClause(SqliteDb& db, const SqlClause& clause);

// "?,?,?": `n` placeholders for an IN list.
std::string Placeholders(size_t n);

// Calls fn(row) for each row; stops at the first error.
template <typename Fn>
absl::Status EachRow(SqliteStatement& statement, Fn&& fn) {
  for (;;) {
    absl::StatusOr<bool> row = statement.Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
    if (absl::Status status = fn(statement); !status.ok()) return status;
  }
}

}  // namespace rayagg::history
