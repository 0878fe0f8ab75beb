#include "json/json_writer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

namespace rayagg::json {
namespace {

// 0: copy as is; 1: needs an escape.
constexpr std::array<uint8_t, 256> MakeEscapeTable() {
  std::array<uint8_t, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = 1;
  table['"'] = 1;
  table['\\'] = 1;
  return table;
}
constexpr std::array<uint8_t, 256> kNeedsEscape = MakeEscapeTable();

constexpr char kHex[] = "0123456789abcdef";
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void AppendEscape(unsigned char c, std::string& out) {
  switch (c) {
    case '"':
      out.append("\\\"", 2);
      return;
    case '\\':
      out.append("\\\\", 2);
      return;
    case '\b':
      out.append("\\b", 2);
      return;
    case '\f':
      out.append("\\f", 2);
      return;
    case '\n':
      out.append("\\n", 2);
      return;
    case '\r':
      out.append("\\r", 2);
      return;
    case '\t':
      out.append("\\t", 2);
      return;
    default: {
      const char escaped[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
      out.append(escaped, 6);
    }
  }
}

// Days since 1970-01-01 -> civil date (H. Hinnant's algorithm).
void CivilFromDays(int64_t days, int64_t& year, unsigned& month, unsigned& day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  day = doy - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
}

inline void Put2(char* p, unsigned v) {
  p[0] = static_cast<char>('0' + v / 10);
  p[1] = static_cast<char>('0' + v % 10);
}

}  // namespace

void AppendQuoted(std::string_view text, std::string& out) {
  out.push_back('"');
  const char* p = text.data();
  const char* end = p + text.size();
  const char* run = p;
  for (; p != end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (kNeedsEscape[c]) [[unlikely]] {
      out.append(run, static_cast<size_t>(p - run));
      AppendEscape(c, out);
      run = p + 1;
    }
  }
  out.append(run, static_cast<size_t>(end - run));
  out.push_back('"');
}

void AppendBase64Quoted(std::string_view bytes, std::string& out) {
  const size_t n = bytes.size();
  const size_t encoded = (n + 2) / 3 * 4;
  const size_t start = out.size();
  out.resize(start + encoded + 2);
  char* w = out.data() + start;
  *w++ = '"';
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const uint32_t v = (uint32_t{s[i]} << 16) | (uint32_t{s[i + 1]} << 8) | s[i + 2];
    w[0] = kBase64[v >> 18];
    w[1] = kBase64[(v >> 12) & 63];
    w[2] = kBase64[(v >> 6) & 63];
    w[3] = kBase64[v & 63];
    w += 4;
  }
  if (const size_t rest = n - i; rest == 1) {
    const uint32_t v = uint32_t{s[i]} << 16;
    w[0] = kBase64[v >> 18];
    w[1] = kBase64[(v >> 12) & 63];
    w[2] = '=';
    w[3] = '=';
    w += 4;
  } else if (rest == 2) {
    const uint32_t v = (uint32_t{s[i]} << 16) | (uint32_t{s[i + 1]} << 8);
    w[0] = kBase64[v >> 18];
    w[1] = kBase64[(v >> 12) & 63];
    w[2] = kBase64[(v >> 6) & 63];
    w[3] = '=';
    w += 4;
  }
  *w = '"';
}

void AppendDouble(double value, std::string& out) {
  if (std::isnan(value)) {
    out.append("\"NaN\"", 5);
    return;
  }
  if (std::isinf(value)) {
    if (value > 0) {
      out.append("\"Infinity\"", 10);
    } else {
      out.append("\"-Infinity\"", 11);
    }
    return;
  }
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out.append(buf, static_cast<size_t>(result.ptr - buf));
}

void AppendFloat(float value, std::string& out) {
  if (std::isnan(value) || std::isinf(value)) {
    AppendDouble(static_cast<double>(value), out);
    return;
  }
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out.append(buf, static_cast<size_t>(result.ptr - buf));
}

void AppendInt64(int64_t value, std::string& out) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out.append(buf, static_cast<size_t>(result.ptr - buf));
}

void AppendUInt64(uint64_t value, std::string& out) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out.append(buf, static_cast<size_t>(result.ptr - buf));
}

bool AppendTimestampQuoted(int64_t seconds, int32_t nanos, std::string& out) {
  constexpr int64_t kMinSeconds = -62135596800;  // 0001-01-01T00:00:00Z
  constexpr int64_t kMaxSeconds = 253402300799;  // 9999-12-31T23:59:59Z
  if (seconds < kMinSeconds || seconds > kMaxSeconds || nanos < 0 || nanos > 999999999) {
    return false;
  }
  int64_t days = seconds / 86400;
  int64_t sod = seconds % 86400;
  if (sod < 0) {
    sod += 86400;
    --days;
  }
  int64_t year = 0;
  unsigned month = 0;
  unsigned day = 0;
  CivilFromDays(days, year, month, day);

  // "YYYY-MM-DDTHH:MM:SS" + up to ".nnnnnnnnn" + "Z" + quotes.
  char buf[40];
  char* p = buf;
  *p++ = '"';
  const auto y = static_cast<unsigned>(year);
  Put2(p, y / 100);
  Put2(p + 2, y % 100);
  p[4] = '-';
  Put2(p + 5, month);
  p[7] = '-';
  Put2(p + 8, day);
  p[10] = 'T';
  const auto s = static_cast<unsigned>(sod);
  Put2(p + 11, s / 3600);
  p[13] = ':';
  Put2(p + 14, s / 60 % 60);
  p[16] = ':';
  Put2(p + 17, s % 60);
  p += 19;
  if (nanos != 0) {
    unsigned digits = 9;
    auto frac = static_cast<unsigned>(nanos);
    if (frac % 1000000 == 0) {
      frac /= 1000000;
      digits = 3;
    } else if (frac % 1000 == 0) {
      frac /= 1000;
      digits = 6;
    }
    *p++ = '.';
    for (unsigned i = digits; i > 0; --i) {
      p[i - 1] = static_cast<char>('0' + frac % 10);
      frac /= 10;
    }
    p += digits;
  }
  *p++ = 'Z';
  *p++ = '"';
  out.append(buf, static_cast<size_t>(p - buf));
  return true;
}

}  // namespace rayagg::json
