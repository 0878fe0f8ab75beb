#include "history/api/search.h"

#include <algorithm>
#include <set>

#include "common/text.h"
#include "history/api/query_params.h"
#include "history/index/search_texts.h"

namespace rayagg::history {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Decodes one UTF-8 character at `text[i]`, advancing `i`; nullopt for a
// malformed sequence (overlong, surrogate, out of range or truncated).
std::optional<char32_t> NextCodePoint(std::string_view text, size_t& i) {
  const auto byte = [&](size_t at) { return static_cast<unsigned char>(text[at]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  size_t length = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, cp = lead & 0x1F, min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, cp = lead & 0x0F, min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, cp = lead & 0x07, min = 0x10000;
  } else {
    return std::nullopt;
  }
  if (i + length > text.size()) return std::nullopt;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
  i += length;
  return cp;
}

// Simple case folding (one code point to one) for the scripts named in
// search.h; FTS5's trigram tokenizer folds these the same way.
char32_t FoldCase(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c >= 0x100 && c <= 0x17F) {
    if ((c >= 0x100 && c <= 0x12F) || (c >= 0x132 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) {
      return c % 2 == 0 ? c + 1 : c;
    }
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return c % 2 == 1 ? c + 1 : c;
    if (c == 0x178) return 0xFF;
    return c;
  }
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

bool IsQueryBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool IsHexChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The first hex string of `prefix`'s length after every string that starts
// with it ("ab9" -> "aba", "aff" -> "b00"); "" when there is none ("fff").
std::string NextHexPrefix(std::string prefix) {
  for (size_t i = prefix.size(); i-- > 0;) {
    char& c = prefix[i];
    if (c == 'f') {
      c = '0';
      continue;
    }
    c = c == '9' ? 'a' : static_cast<char>(c + 1);
    return prefix;
  }
  return "";
}

// Raw bytes of a hex string of any length (odd: a final zero nibble).
std::string HexBytes(std::string hex) {
  if (hex.size() % 2 == 1) hex.push_back('0');
  std::string out(hex.size() / 2, '\0');
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<char>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
  }
  return out;
}

// One column's part of the search: a predicate over `t`.
using SearchBranch = SqlClause;

// The FTS table leads every join (CROSS JOIN keeps that order): joined the
// other way, SQLite would run the MATCH once per text of the session.
absl::Status NameBranches(SqliteDb& db, int64_t session_id, const SearchQuery& query,
                          size_t max_listed, std::vector<SearchBranch>& out) {
  absl::StatusOr<SqliteStatement> find = db.Prepare(
      "SELECT x.ref, CASE WHEN x.kind = 2 THEN f.text END FROM search_names f "
      "CROSS JOIN search_texts x ON x.id = f.rowid "
      "WHERE search_names MATCH ? AND x.session_id = ? AND x.kind = ? LIMIT ?");
  if (!find.ok()) return find.status();
  for (const SearchKind kind : {SearchKind::kFunction, SearchKind::kName}) {
    const bool function = kind == SearchKind::kFunction;
    find->Reset();
    find->BindText(1, query.fts_phrase)
        .Bind(2, session_id)
        .Bind(3, static_cast<int>(kind))
        .Bind(4, static_cast<int64_t>(max_listed + 1));
    std::vector<SqlValue> values;
    absl::Status read = EachRow(*find, [&](const SqliteStatement& row) {
      if (function) {
        values.emplace_back(row.Int(0));
      } else {
        values.emplace_back(SqlText{std::string(row.Text(1))});
      }
      return absl::OkStatus();
    });
    if (!read.ok()) return read;
    if (values.empty()) continue;
    const std::string_view column = function ? "t.func_id" : "t.name";
    if (values.size() <= max_listed) {
      out.push_back(
          {strings::Cat(column, " IN (", Placeholders(values.size()), ")"), std::move(values)});
      continue;
    }
    out.push_back({strings::Cat(column, " IN (SELECT ", function ? "x.ref" : "f.text",
                                " FROM search_names f CROSS JOIN search_texts x ON x.id = f.rowid "
                                "WHERE search_names MATCH ? AND x.session_id = ? AND x.kind = ",
                                static_cast<int>(kind), ")"),
                   {SqlText{query.fts_phrase}, session_id}});
  }
  return absl::OkStatus();
}

absl::Status ErrorBranch(SqliteDb& db, int64_t session_id, const SearchQuery& query,
                         size_t max_listed, std::vector<SearchBranch>& out) {
  absl::StatusOr<SqliteStatement> find = db.Prepare(
      "SELECT f.rowid FROM search_errors f CROSS JOIN search_texts x ON x.id = f.rowid "
      "WHERE search_errors MATCH ? AND x.session_id = ? LIMIT ?");
  if (!find.ok()) return find.status();
  find->BindText(1, query.fts_phrase)
      .Bind(2, session_id)
      .Bind(3, static_cast<int64_t>(max_listed + 1));
  std::vector<SqlValue> values;
  absl::Status read = EachRow(*find, [&](const SqliteStatement& row) {
    values.emplace_back(row.Int(0));
    return absl::OkStatus();
  });
  if (!read.ok()) return read;
  if (values.empty()) return absl::OkStatus();
  if (values.size() <= max_listed) {
    out.push_back({strings::Cat("t.error_text_id IN (", Placeholders(values.size()), ")"),
                   std::move(values)});
    return absl::OkStatus();
  }
  // Text ids are per session: another session's ids match none of this
  // session's tasks, so the subquery needs no session filter.
  out.push_back({"t.error_text_id IN (SELECT rowid FROM search_errors WHERE search_errors MATCH ?)",
                 {SqlText{query.fts_phrase}}});
  return absl::OkStatus();
}

// Hex prefixes of the indexed ids: task ids (bytes), job ids (text, 8 hex
// digits) and node ids (names ids; hex, 56 digits), each served by its
// column's index.
void IdBranches(const SearchQuery& query, std::vector<SearchBranch>& out) {
  if (query.hex.empty()) return;
  const std::string next = NextHexPrefix(query.hex);
  SearchBranch task;
  task.sql = next.empty() ? "t.task_id >= ?" : "(t.task_id >= ? AND t.task_id < ?)";
  task.values.emplace_back(SqlBlob{HexBytes(query.hex)});
  if (!next.empty()) task.values.emplace_back(SqlBlob{HexBytes(next)});
  out.push_back(std::move(task));
  // Text ids: 'g' sorts after every hex digit, so [hex, hex + "g") holds
  // every id that starts with an all-f prefix.
  const std::string upper = next.empty() ? query.hex + "g" : next;
  if (query.hex.size() <= 8) {
    out.push_back({"(t.job_id >= ? AND t.job_id < ?)", {SqlText{query.hex}, SqlText{upper}}});
  }
  if (query.hex.size() <= 56) {
    out.push_back({"t.node_id IN (SELECT id FROM names WHERE text >= ? AND text < ?)",
                   {SqlText{query.hex}, SqlText{upper}}});
  }
}

}  // namespace

absl::StatusOr<SearchQuery> ParseSearch(std::string_view q) {
  size_t begin = 0, end = q.size();
  while (begin < end && IsQueryBlank(q[begin])) ++begin;
  while (end > begin && IsQueryBlank(q[end - 1])) --end;
  const std::string_view text = q.substr(begin, end - begin);
  if (text.size() > kMaxSearchBytes) {
    return BadParameter(strings::Cat("q: longer than ", kMaxSearchBytes, " bytes"));
  }
  if (text.find('\0') != std::string_view::npos) return BadParameter("q: holds a NUL character");
  size_t characters = 0;
  for (size_t i = 0; i < text.size(); ++characters) {
    if (!NextCodePoint(text, i)) return BadParameter("q: not valid UTF-8");
  }
  if (characters < 3) return BadParameter("q: at least 3 characters are needed");
  SearchQuery query;
  query.text = std::string(text);
  query.fts_phrase = "\"";
  for (const char c : text) {
    query.fts_phrase += c;
    if (c == '"') query.fts_phrase += '"';
  }
  query.fts_phrase += '"';
  if (text.size() <= 64 && std::all_of(text.begin(), text.end(), IsHexChar)) {
    query.hex = strings::ToLower(text);
  }
  return query;
}

absl::StatusOr<SearchClause> BuildSearchClause(SqliteDb& db, int64_t session_id,
                                               const SearchQuery& query,
                                               const SearchLimits& limits) {
  // Functions first: when a query matches many tasks it is mostly through
  // their function, and the first count part needs no exclusions.
  std::vector<SearchBranch> branches;
  if (absl::Status found = NameBranches(db, session_id, query, limits.max_listed_texts, branches);
      !found.ok()) {
    return found;
  }
  if (absl::Status found = ErrorBranch(db, session_id, query, limits.max_listed_texts, branches);
      !found.ok()) {
    return found;
  }
  IdBranches(query, branches);

  SearchClause clause;
  // The matching tasks' row ids, each branch from its own index, while they
  // are few. Duplicates (a task found through two columns) are counted
  // towards the limit: it only picks the form.
  std::set<int64_t> rows;
  bool few = true;
  if (!branches.empty()) {
    SqlClause probe{"SELECT id FROM (", {}};
    for (size_t i = 0; i < branches.size(); ++i) {
      probe.sql += i == 0 ? "" : " UNION ALL ";
      probe.sql += "SELECT t.id FROM tasks t WHERE t.session_id = ? AND ";
      probe.values.emplace_back(session_id);
      probe.Add(branches[i]);
    }
    probe.sql += ") LIMIT ?";
    probe.values.emplace_back(static_cast<int64_t>(limits.max_listed_tasks + 1));
    absl::StatusOr<SqliteStatement> statement = db.Prepare(probe.sql);
    if (!statement.ok()) return statement.status();
    BindValues(*statement, 1, probe.values);
    size_t seen = 0;
    absl::Status read = EachRow(*statement, [&](const SqliteStatement& row) {
      rows.insert(row.Int(0));
      ++seen;
      return absl::OkStatus();
    });
    if (!read.ok()) return read;
    few = seen <= limits.max_listed_tasks;
  }
  if (few) {
    clause.listed_tasks = static_cast<int64_t>(rows.size());
    if (rows.empty()) {
      clause.where.sql = "0";
    } else {
      clause.where.sql = strings::Cat("t.id IN (", Placeholders(rows.size()), ")");
      for (const int64_t row : rows) clause.where.values.emplace_back(row);
    }
    clause.count_parts.push_back(clause.where);
    return clause;
  }
  clause.where.sql = "(";
  for (size_t i = 0; i < branches.size(); ++i) {
    clause.where.sql += i == 0 ? "(" : " OR (";
    clause.where.Add(branches[i]);
    clause.where.sql += ")";
    // Part i: branch i and none of the ones before it. `IS NOT 1` is true
    // for false and for NULL (a task without an error text).
    SqlClause part{"(", {}};
    part.Add(branches[i]);
    part.sql += ")";
    for (size_t j = 0; j < i; ++j) {
      part.sql += " AND (";
      part.Add(branches[j]);
      part.sql += ") IS NOT 1";
    }
    clause.count_parts.push_back(std::move(part));
  }
  clause.where.sql += ")";
  return clause;
}

std::vector<MatchRange> MatchOffsets(std::string_view field, const SearchQuery& query) {
  // The folded query, and the folded field with each character's UTF-16
  // offset.
  std::vector<char32_t> needle;
  for (size_t i = 0; i < query.text.size();) {
    needle.push_back(FoldCase(NextCodePoint(query.text, i).value_or(kReplacement)));
  }
  std::vector<MatchRange> out;
  if (needle.empty()) return out;
  // Knuth-Morris-Pratt: linear in the field whatever the query.
  std::vector<size_t> fail(needle.size(), 0);
  for (size_t i = 1, k = 0; i < needle.size(); ++i) {
    while (k > 0 && needle[i] != needle[k]) k = fail[k - 1];
    if (needle[i] == needle[k]) ++k;
    fail[i] = k;
  }
  std::vector<uint32_t> starts;  // UTF-16 offsets of the last needle.size() characters
  starts.resize(needle.size());
  uint32_t offset = 0;
  size_t matched = 0, count = 0;
  for (size_t i = 0; i < field.size() && out.size() < kMaxMatchOffsets;) {
    const size_t at = i;
    std::optional<char32_t> decoded = NextCodePoint(field, i);
    if (!decoded) i = at + 1;
    const char32_t c = FoldCase(decoded.value_or(kReplacement));
    starts[count % needle.size()] = offset;
    ++count;
    offset += decoded.value_or(0) >= 0x10000 ? 2 : 1;
    while (matched > 0 && c != needle[matched]) matched = fail[matched - 1];
    if (c == needle[matched]) ++matched;
    if (matched == needle.size()) {
      out.push_back({starts[(count - needle.size()) % needle.size()], offset});
      matched = 0;  // no overlaps
    }
  }
  return out;
}

std::vector<MatchRange> IdPrefixMatch(std::string_view hex_id, const SearchQuery& query) {
  if (query.hex.empty() || hex_id.size() < query.hex.size() ||
      strings::ToLower(hex_id.substr(0, query.hex.size())) != query.hex) {
    return {};
  }
  return {{0, static_cast<uint32_t>(query.hex.size())}};
}

namespace {

// The byte offset in `text` of UTF-16 offset `units`, counted as
// MatchOffsets counts (a malformed byte is one unit).
size_t ByteOfUtf16Offset(std::string_view text, uint32_t units) {
  size_t i = 0;
  uint32_t seen = 0;
  while (i < text.size() && seen < units) {
    const size_t at = i;
    std::optional<char32_t> decoded = NextCodePoint(text, i);
    if (!decoded) i = at + 1;
    seen += decoded.value_or(0) >= 0x10000 ? 2 : 1;
  }
  return i;
}

// Moves `at` back to the start of the UTF-8 character it points into.
size_t CharacterStart(std::string_view text, size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

std::optional<MessageExcerpt> ExcerptOfMatch(std::string_view message, const SearchQuery& query) {
  const std::vector<MatchRange> all = MatchOffsets(message, query);
  if (all.empty()) return std::nullopt;
  const size_t match_begin = ByteOfUtf16Offset(message, all.front().start);
  const size_t match_end = ByteOfUtf16Offset(message, all.front().end);
  const size_t line_begin = message.rfind('\n', match_begin == 0 ? 0 : match_begin - 1);
  size_t begin = line_begin == std::string_view::npos || match_begin == 0 ? 0 : line_begin + 1;
  size_t end = message.find('\n', match_end);
  if (end == std::string_view::npos) end = message.size();
  MessageExcerpt excerpt;
  excerpt.line =
      1 + std::count(message.begin(), message.begin() + static_cast<ptrdiff_t>(begin), '\n');
  // A long line keeps a third of the room before the match.
  if (end - begin > kMaxExcerptBytes) {
    const size_t before = kMaxExcerptBytes / 3;
    const size_t from = match_begin - begin > before ? match_begin - before : begin;
    excerpt.cut_before = from > begin;
    begin = CharacterStart(message, from);
    if (end - begin > kMaxExcerptBytes) {
      end = CharacterStart(message, begin + kMaxExcerptBytes);
      excerpt.cut_after = true;
    }
  }
  excerpt.text = std::string(message.substr(begin, end - begin));
  excerpt.matches = MatchOffsets(excerpt.text, query);
  return excerpt;
}

}  // namespace rayagg::history
