#include "json_array_scan.h"

#include <cstring>

namespace rayagg::bench {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Index of the quote that closes the string whose content starts at `pos`,
// or body.size() if there is none. memchr does the long runs of text.
size_t FindClosingQuote(std::string_view body, size_t pos) {
  while (pos < body.size()) {
    const void* found = std::memchr(body.data() + pos, '"', body.size() - pos);
    if (found == nullptr) return body.size();
    const size_t quote = static_cast<size_t>(static_cast<const char*>(found) - body.data());
    size_t backslashes = 0;
    while (quote - backslashes > pos && body[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote;
    pos = quote + 1;
  }
  return body.size();
}

bool ReadDigits(std::string_view text, size_t& pos, size_t count, int64_t& value) {
  value = 0;
  for (size_t i = 0; i < count; ++i, ++pos) {
    if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') return false;
    value = value * 10 + (text[pos] - '0');
  }
  return true;
}

bool Expect(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

// Days from 1970-01-01 to the given civil date (Howard Hinnant's algorithm);
// avoids timegm, which depends on the process's time zone state.
int64_t DaysFromCivil(int64_t year, int64_t month, int64_t day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

}  // namespace

std::optional<int64_t> ParseRfc3339(std::string_view text) {
  size_t pos = 0;
  int64_t year, month, day, hour, minute, second;
  if (!ReadDigits(text, pos, 4, year) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, month) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, day) || pos >= text.size() ||
      (text[pos] != 'T' && text[pos] != 't') || !ReadDigits(text, ++pos, 2, hour) ||
      !Expect(text, pos, ':') || !ReadDigits(text, pos, 2, minute) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int64_t scale = 100'000'000;
    const size_t first_digit = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      nanos += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == first_digit) return std::nullopt;
  }
  int64_t offset_seconds = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int64_t sign = text[pos] == '-' ? -1 : 1;
    int64_t offset_hours, offset_minutes;
    if (!ReadDigits(text, ++pos, 2, offset_hours) || !Expect(text, pos, ':') ||
        !ReadDigits(text, pos, 2, offset_minutes)) {
      return std::nullopt;
    }
    offset_seconds = sign * (offset_hours * 3600 + offset_minutes * 60);
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  const int64_t seconds =
      DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  return seconds * 1'000'000'000 + nanos;
}

JsonArrayScan ScanJsonArray(std::string_view body) {
  JsonArrayScan scan;
  size_t pos = 0;
  while (pos < body.size() && IsBlank(body[pos])) ++pos;
  if (pos >= body.size() || body[pos] != '[') return scan;
  ++pos;
  int depth = 1;
  bool expect_element = true;  // after '[' or a top-level ','
  while (pos < body.size()) {
    const char c = body[pos];
    if (IsBlank(c)) {
      ++pos;
      continue;
    }
    if (depth == 1 && expect_element && c != ']') {
      ++scan.elements;
      expect_element = false;
    }
    switch (c) {
      case '"': {
        const size_t close = FindClosingQuote(body, pos + 1);
        const std::string_view content = body.substr(pos + 1, close - pos - 1);
        pos = close + 1;
        // A member key of a top-level object is followed by ':'.
        if (depth == 2 && content == "timestamp") {
          size_t next = pos;
          while (next < body.size() && IsBlank(body[next])) ++next;
          if (next >= body.size() || body[next] != ':') break;
          ++next;
          while (next < body.size() && IsBlank(body[next])) ++next;
          if (next >= body.size() || body[next] != '"') break;
          const size_t value_close = FindClosingQuote(body, next + 1);
          const auto timestamp = ParseRfc3339(body.substr(next + 1, value_close - next - 1));
          if (timestamp && (!scan.oldest_timestamp_ns || *timestamp < *scan.oldest_timestamp_ns)) {
            scan.oldest_timestamp_ns = timestamp;
          }
          pos = value_close + 1;
        }
        break;
      }
      case '[':
      case '{':
        ++depth;
        ++pos;
        break;
      case ']':
      case '}':
        --depth;
        ++pos;
        if (depth == 0) {
          scan.is_array = true;
          return scan;
        }
        break;
      case ',':
        if (depth == 1) expect_element = true;
        ++pos;
        break;
      default:
        ++pos;
        break;
    }
  }
  return scan;
}

}  // namespace rayagg::bench
