#include "json/json_scalars.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "absl/strings/escaping.h"

namespace rayagg {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads the four hex digits of a \u escape at `p` (which has at least 4 chars).
int ReadHex4(const char* p) {
  int value = 0;
  for (int i = 0; i < 4; ++i) {
    const int digit = HexValue(p[i]);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

void AppendUtf8(uint32_t code_point, std::string& out) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

// Both base64 alphabets in one table: the 6-bit value, plus kStandardOnly
// for '+' '/' and kWebSafeOnly for '-' '_'. Every other byte has both flags,
// so one OR over the text tells whether it is plain in a single alphabet.
constexpr uint8_t kStandardOnly = 0x40;
constexpr uint8_t kWebSafeOnly = 0x80;
constexpr uint8_t kNotBase64 = 0xFF;

constexpr std::array<uint8_t, 256> MakeBase64Table() {
  std::array<uint8_t, 256> table{};
  for (auto& entry : table) entry = kNotBase64;
  for (int i = 0; i < 26; ++i) {
    table['A' + i] = static_cast<uint8_t>(i);
    table['a' + i] = static_cast<uint8_t>(26 + i);
  }
  for (int i = 0; i < 10; ++i) table['0' + i] = static_cast<uint8_t>(52 + i);
  table['+'] = kStandardOnly | 62;
  table['/'] = kStandardOnly | 63;
  table['-'] = kWebSafeOnly | 62;
  table['_'] = kWebSafeOnly | 63;
  return table;
}

constexpr std::array<uint8_t, 256> kBase64 = MakeBase64Table();

// '=' at the end of `text` (up to 3, so that too many can be told).
size_t TrailingEquals(std::string_view text) {
  size_t equals = 0;
  while (equals < 3 && equals < text.size() && text[text.size() - 1 - equals] == '=') ++equals;
  return equals;
}

int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

bool IsLeapYear(int year) { return year % 400 == 0 || (year % 4 == 0 && year % 100 != 0); }

// Reads the RFC 3339 text the way protobuf's C-string parser does: past the
// end reads as NUL.
class TimeReader {
 public:
  explicit TimeReader(std::string_view text) : text_(text) {}

  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Expect(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  // 1..width digits, in [min, max].
  bool Int(int width, int min, int max, int& out) {
    if (!IsDigit(Peek())) return false;
    int value = 0;
    for (int i = 0; i < width && IsDigit(Peek()); ++i, ++pos_) value = value * 10 + (Peek() - '0');
    if (value < min || value > max) return false;
    out = value;
    return true;
  }
  // One or more digits; the first nine are the nanoseconds.
  bool Nanos(int32_t& out) {
    if (!IsDigit(Peek())) return false;
    int32_t value = 0;
    int digits = 0;
    for (; IsDigit(Peek()); ++pos_, ++digits) {
      if (digits < 9) value = value * 10 + (Peek() - '0');
    }
    for (; digits < 9; ++digits) value *= 10;
    out = value;
    return true;
  }
  bool Offset(int64_t& seconds) {
    int hours = 0;
    int minutes = 0;
    if (!Int(2, 0, 23, hours) || Peek() != ':') return false;
    ++pos_;
    if (!Int(2, 0, 59, minutes)) return false;
    seconds = (hours * 60 + minutes) * 60;
    return true;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  void Skip() { ++pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

size_t JsonNumberPrefix(std::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  auto digit_at = [&](size_t at) { return at < n && IsDigit(text[at]); };
  if (i < n && text[i] == '-') ++i;
  if (!digit_at(i)) return 0;
  if (text[i] == '0') {
    ++i;
  } else {
    while (digit_at(i)) ++i;
  }
  if (i < n && text[i] == '.') {
    if (!digit_at(i + 1)) return 0;
    i += 1;
    while (digit_at(i)) ++i;
  }
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (text[j] == '+' || text[j] == '-')) ++j;
    if (!digit_at(j)) return 0;
    while (digit_at(j)) ++j;
    i = j;
  }
  return i;
}

std::optional<JsonNumber> ParseJsonNumber(std::string_view token) {
  const char* begin = token.data();
  const char* end = begin + token.size();
  JsonNumber number;
  // One pass over the grammar; the integers Ray sends (attempts, pids, short
  // counts) are added up on the way, anything longer goes to from_chars.
  const bool negative = begin < end && *begin == '-';
  const char* p = begin + (negative ? 1 : 0);
  const char* digits = p;
  if (p == end || !IsDigit(*p)) return std::nullopt;
  uint64_t value = 0;
  if (*p == '0') {
    ++p;
  } else {
    for (; p < end && IsDigit(*p); ++p) value = value * 10 + static_cast<uint64_t>(*p - '0');
  }
  if (p == end && p - digits <= 18) {  // cannot overflow
    if (negative) {
      number.kind = JsonNumber::Kind::kSigned;
      number.signed_value = -static_cast<int64_t>(value);
    } else {
      number.kind = JsonNumber::Kind::kUnsigned;
      number.unsigned_value = value;
    }
    return number;
  }
  const bool integer = p == end;
  if (p < end && *p == '.') {
    if (++p == end || !IsDigit(*p)) return std::nullopt;
    while (p < end && IsDigit(*p)) ++p;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    if (++p < end && (*p == '+' || *p == '-')) ++p;
    if (p == end || !IsDigit(*p)) return std::nullopt;
    while (p < end && IsDigit(*p)) ++p;
  }
  if (p != end) return std::nullopt;
  if (integer) {
    if (negative) {
      const auto [ptr, ec] = std::from_chars(begin, end, number.signed_value);
      if (ec == std::errc() && ptr == end) {
        number.kind = JsonNumber::Kind::kSigned;
        return number;
      }
    } else {
      const auto [ptr, ec] = std::from_chars(begin, end, number.unsigned_value);
      if (ec == std::errc() && ptr == end) {
        number.kind = JsonNumber::Kind::kUnsigned;
        return number;
      }
    }
    // Too large for 64 bits: a double, as for nlohmann_json.
  }
  number.kind = JsonNumber::Kind::kFloat;
  const auto [ptr, ec] = std::from_chars(begin, end, number.float_value);
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves the value alone; strtod's answer (an infinity, or a
    // zero on underflow) is what nlohmann_json would have.
    const std::string copy(token);
    number.float_value = std::strtod(copy.c_str(), nullptr);
  } else if (ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  if (!std::isfinite(number.float_value)) return std::nullopt;
  return number;
}

bool AppendUnescapedJson(std::string_view content, std::string& out) {
  const char* p = content.data();
  const char* end = p + content.size();
  while (p < end) {
    const char* backslash = static_cast<const char*>(std::memchr(p, '\\', end - p));
    if (backslash == nullptr) {
      out.append(p, end);
      return true;
    }
    out.append(p, backslash);
    p = backslash + 1;
    if (p == end) return false;
    switch (*p++) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        if (end - p < 4) return false;
        int unit = ReadHex4(p);
        p += 4;
        if (unit < 0) return false;
        uint32_t code_point = static_cast<uint32_t>(unit);
        if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a low surrogate first
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return false;
          const int low = ReadHex4(p + 2);
          if (low < 0xDC00 || low > 0xDFFF) return false;
          p += 6;
          code_point = 0x10000 + ((static_cast<uint32_t>(unit) - 0xD800) << 10) +
                       (static_cast<uint32_t>(low) - 0xDC00);
        }
        AppendUtf8(code_point, out);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

size_t PlainBase64DecodedSize(std::string_view text) {
  const size_t data = text.size() - TrailingEquals(text);
  const size_t tail = data % 4;
  return data / 4 * 3 + (tail == 2 ? 1 : tail == 3 ? 2 : 0);
}

Base64Result DecodePlainBase64(std::string_view text, char* out) {
  const size_t equals = TrailingEquals(text);
  if (equals > 2) return Base64Result::kNotPlain;
  const size_t data = text.size() - equals;
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  uint32_t flags = 0;
  auto value = [&](size_t i) {
    const uint8_t entry = kBase64[in[i]];
    flags |= entry;
    return static_cast<uint32_t>(entry & 0x3F);
  };
  size_t i = 0;
  for (; i + 4 <= data; i += 4) {
    const uint32_t bits = value(i) << 18 | value(i + 1) << 12 | value(i + 2) << 6 | value(i + 3);
    *out++ = static_cast<char>(bits >> 16);
    *out++ = static_cast<char>(bits >> 8);
    *out++ = static_cast<char>(bits);
  }
  // The leftover bits of a short tail are dropped, as absl does.
  const size_t tail = data - i;
  if (tail == 1) {
    value(i);
  } else if (tail == 2) {
    *out = static_cast<char>((value(i) << 2) | (value(i + 1) >> 4));
  } else if (tail == 3) {
    const uint32_t bits = value(i) << 12 | value(i + 1) << 6 | value(i + 2);
    out[0] = static_cast<char>(bits >> 10);
    out[1] = static_cast<char>(bits >> 2);
  }
  // Whitespace, '.', a '=' inside, or both alphabets: absl decides.
  if ((flags & (kStandardOnly | kWebSafeOnly)) == (kStandardOnly | kWebSafeOnly)) {
    return Base64Result::kNotPlain;
  }
  // absl accepts the padding left out, or exactly the padding the tail needs.
  const size_t expected_equals = tail == 2 ? 2 : tail == 3 ? 1 : 0;
  if (tail == 1 || (equals != 0 && equals != expected_equals)) return Base64Result::kInvalid;
  return Base64Result::kDecoded;
}

bool DecodeBase64Slow(std::string_view text, std::string& out) {
  const absl::string_view view(text.data(), text.size());
  const bool web_safe = text.find_first_of("-_") != std::string_view::npos;
  return web_safe ? absl::WebSafeBase64Unescape(view, &out) : absl::Base64Unescape(view, &out);
}

bool ParseRfc3339(std::string_view text, int64_t& seconds, int32_t& nanos) {
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) text = text.substr(0, nul);
  TimeReader in(text);
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!in.Int(4, 1, 9999, year) || !in.Expect('-') || !in.Int(2, 1, 12, month) || !in.Expect('-') ||
      !in.Int(2, 1, 31, day) || !in.Expect('T') || !in.Int(2, 0, 23, hour) || !in.Expect(':') ||
      !in.Int(2, 0, 59, minute) || !in.Expect(':') || !in.Int(2, 0, 59, second)) {
    return false;
  }
  static constexpr int kDaysInMonth[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int days_in_month = kDaysInMonth[month] + (month == 2 && IsLeapYear(year) ? 1 : 0);
  if (day > days_in_month) return false;
  int64_t result = DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  int32_t fraction = 0;
  if (in.Peek() == '.') {
    in.Skip();
    if (!in.Nanos(fraction)) return false;
  }
  const char zone = in.Peek();
  in.Skip();
  if (zone == '+' || zone == '-') {
    int64_t offset = 0;
    if (!in.Offset(offset)) return false;
    result += zone == '+' ? -offset : offset;
  } else if (zone != 'Z') {
    return false;
  }
  if (!in.AtEnd()) return false;
  seconds = result;
  nanos = fraction;
  return true;
}

}  // namespace rayagg
