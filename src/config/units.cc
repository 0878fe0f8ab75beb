#include "config/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "common/text.h"

namespace rayagg {

namespace {

struct Unit {
  std::string_view suffix;
  uint64_t factor;
};

// A decimal number split into its integer digits and fraction digits, so
// "1.5" with a factor of 1000 becomes exactly 1500 without floating point.
struct Decimal {
  uint64_t integer = 0;
  uint64_t fraction = 0;
  uint64_t fraction_scale = 1;  // 10^(number of fraction digits)
};

// Splits "1.5MiB" into number "1.5" and unit "MiB" (blanks between allowed).
void SplitNumberAndUnit(std::string_view text, std::string_view& number, std::string_view& unit) {
  size_t end = 0;
  while (end < text.size() && (strings::IsDigit(text[end]) || text[end] == '.')) ++end;
  number = text.substr(0, end);
  unit = strings::StripBlanks(text.substr(end));
}

// Digits with at most one '.', each side allowed empty but not both.
bool ParseDecimal(std::string_view text, Decimal& out) {
  const size_t dot = text.find('.');
  const std::string_view integer = text.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  if (integer.empty() && fraction.empty()) return false;
  // 18 fraction digits keep fraction_scale within uint64_t.
  if (fraction.size() > 18) return false;
  for (char c : fraction) {
    if (!strings::IsDigit(c)) return false;
  }
  if (!integer.empty()) {
    auto [ptr, ec] = std::from_chars(integer.data(), integer.data() + integer.size(), out.integer);
    if (ec != std::errc() || ptr != integer.data() + integer.size()) return false;
  }
  for (char c : fraction) {
    out.fraction = out.fraction * 10 + static_cast<uint64_t>(c - '0');
    out.fraction_scale *= 10;
  }
  return true;
}

// integer * factor + fraction * factor / scale, if exact and <= limit.
enum class ScaleResult { kOk, kTooLarge, kNotWhole };
ScaleResult Scale(const Decimal& decimal, uint64_t factor, uint64_t limit, uint64_t& out) {
  if (decimal.integer > limit / factor) return ScaleResult::kTooLarge;
  const uint64_t whole = decimal.integer * factor;
  // fraction < scale <= 10^18 and factor <= 2^30, so use 128-bit arithmetic.
  const unsigned __int128 scaled = static_cast<unsigned __int128>(decimal.fraction) * factor;
  if (scaled % decimal.fraction_scale != 0) return ScaleResult::kNotWhole;
  const auto part = static_cast<uint64_t>(scaled / decimal.fraction_scale);
  if (part > limit - whole) return ScaleResult::kTooLarge;
  out = whole + part;
  return ScaleResult::kOk;
}

constexpr std::array<Unit, 4> kDurationUnits = {
    {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}}};

constexpr uint64_t kKiB = 1024;
constexpr std::array<Unit, 6> kByteUnits = {{{"KiB", kKiB},
                                             {"MiB", kKiB* kKiB},
                                             {"GiB", kKiB* kKiB* kKiB},
                                             {"KB", 1000},
                                             {"MB", 1000 * 1000},
                                             {"GB", 1000 * 1000 * 1000}}};

}  // namespace

absl::StatusOr<Duration> ParseDuration(std::string_view text) {
  const std::string_view trimmed = strings::StripBlanks(text);
  std::string_view number, unit;
  SplitNumberAndUnit(trimmed, number, unit);
  Decimal decimal;
  const bool numeric = ParseDecimal(number, decimal);
  if (numeric && unit.empty()) {
    return absl::InvalidArgumentError(strings::Cat("a duration needs a unit (ms, s, m, h), e.g. \"",
                                                   trimmed, "ms\" or \"", trimmed,
                                                   "s\"; got the bare number ", trimmed));
  }
  const Unit* found = nullptr;
  for (const Unit& candidate : kDurationUnits) {
    if (candidate.suffix == unit) found = &candidate;
  }
  if (!numeric || found == nullptr) {
    return absl::InvalidArgumentError(
        strings::Cat("must be a non-negative duration with a unit (ms, s, m, h), e.g. \"100ms\" or "
                     "\"1.5s\"; got \"",
                     text, "\""));
  }
  uint64_t millis = 0;
  switch (Scale(decimal, found->factor, static_cast<uint64_t>(kMaxDuration.count()), millis)) {
    case ScaleResult::kOk:
      return Duration(static_cast<Duration::rep>(millis));
    case ScaleResult::kTooLarge:
      return absl::InvalidArgumentError(
          strings::Cat("must be at most ", FormatDuration(kMaxDuration), "; got \"", text, "\""));
    case ScaleResult::kNotWhole:
      break;
  }
  return absl::InvalidArgumentError(
      strings::Cat("must be a whole number of milliseconds; got \"", text, "\""));
}

absl::StatusOr<uint64_t> ParseByteSize(std::string_view text) {
  const std::string_view trimmed = strings::StripBlanks(text);
  std::string_view number, unit;
  SplitNumberAndUnit(trimmed, number, unit);
  Decimal decimal;
  const bool numeric = ParseDecimal(number, decimal);
  uint64_t factor = 0;
  if (unit.empty()) {
    // A plain count of bytes has no fraction.
    if (numeric && decimal.fraction_scale == 1 && number.find('.') == std::string_view::npos) {
      factor = 1;
    }
  } else {
    for (const Unit& candidate : kByteUnits) {
      if (candidate.suffix == unit) factor = candidate.factor;
    }
  }
  if (!numeric || factor == 0) {
    return absl::InvalidArgumentError(strings::Cat(
        "must be a byte size: an integer or a number with a unit (KiB, MiB, GiB, KB, MB, GB), "
        "e.g. \"10MiB\"; got \"",
        text, "\""));
  }
  uint64_t bytes = 0;
  switch (Scale(decimal, factor, std::numeric_limits<uint64_t>::max(), bytes)) {
    case ScaleResult::kOk:
      return bytes;
    case ScaleResult::kTooLarge:
      return absl::InvalidArgumentError(strings::Cat("is too large; got \"", text, "\""));
    case ScaleResult::kNotWhole:
      break;
  }
  return absl::InvalidArgumentError(
      strings::Cat("must be a whole number of bytes; got \"", text, "\""));
}

absl::StatusOr<Duration> DurationFromSeconds(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) {
    return absl::InvalidArgumentError(
        strings::Cat("must be a non-negative number of seconds; got ", seconds));
  }
  const double max_seconds = std::chrono::duration<double>(kMaxDuration).count();
  if (seconds > max_seconds) {
    return absl::InvalidArgumentError(strings::Cat("must be at most ", FormatDuration(kMaxDuration),
                                                   "; got ", seconds, " seconds"));
  }
  return Duration(static_cast<Duration::rep>(std::llround(seconds * 1000.0)));
}

std::string FormatDuration(Duration duration) {
  const int64_t millis = duration.count();
  if (millis != 0) {
    for (auto it = kDurationUnits.rbegin(); it != kDurationUnits.rend(); ++it) {
      const auto factor = static_cast<int64_t>(it->factor);
      if (millis % factor == 0) return strings::Cat(millis / factor, it->suffix);
    }
  }
  return strings::Cat(millis, "ms");
}

std::string FormatByteSize(uint64_t bytes) {
  if (bytes != 0) {
    // Binary units only, largest first: the first three entries of kByteUnits.
    for (int i = 2; i >= 0; --i) {
      const Unit& unit = kByteUnits[static_cast<size_t>(i)];
      if (bytes % unit.factor == 0) return strings::Cat(bytes / unit.factor, unit.suffix);
    }
  }
  return strings::Cat(bytes, "B");
}

}  // namespace rayagg
