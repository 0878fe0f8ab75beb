#include "history/api/sql_clause.h"

namespace rayagg::history {

SqlClause& SqlClause::Add(const SqlClause& other) {
  sql += other.sql;
  values.insert(values.end(), other.values.begin(), other.values.end());
  return *this;
}

int BindValues(SqliteStatement& statement, int first, const std::vector<SqlValue>& values) {
  int index = first;
  for (const SqlValue& value : values) {
    if (const auto* i = std::get_if<int64_t>(&value)) {
      statement.Bind(index, *i);
    } else if (const auto* d = std::get_if<double>(&value)) {
      statement.Bind(index, *d);
    } else if (const auto* text = std::get_if<SqlText>(&value)) {
      statement.BindText(index, text->value);
    } else {
      statement.BindBlob(index, std::get<SqlBlob>(value).value);
    }
    ++index;
  }
  return index;
}

std::string Placeholders(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i == 0 ? "?" : ",?";
  return out;
}

absl::StatusOr<SqliteStatement> PrepareClause(SqliteDb& db, const SqlClause& clause) {
  absl::StatusOr<SqliteStatement> statement = db.Prepare(clause.sql);
  if (!statement.ok()) return statement.status();
  BindValues(*statement, 1, clause.values);
  return statement;
}

}  // namespace rayagg::history
