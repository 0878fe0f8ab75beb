#include "sinks/delivery_policy.h"

#include <time.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "common/text.h"

namespace rayagg {
namespace {

FailureReason StatusReason(unsigned status) {
  if (status >= 300 && status < 400) return FailureReason::kHttp3xx;
  if (status == 408) return FailureReason::kHttp408;
  if (status == 413) return FailureReason::kHttp413;
  if (status == 429) return FailureReason::kHttp429;
  if (status >= 400 && status < 500) return FailureReason::kHttp4xx;
  if (status == 501) return FailureReason::kHttp501;
  if (status >= 500 && status < 600) return FailureReason::kHttp5xx;
  return FailureReason::kHttpOther;
}

// 2200-01-01T00:00:00Z.
constexpr time_t kLatestSeconds = 7258118400;

// RFC 9110 §10.2.3 / §5.6.7: the three date forms a recipient must accept.
std::optional<std::chrono::system_clock::time_point> ParseHttpDate(const std::string& text) {
  static constexpr const char* kFormats[] = {
      "%a, %d %b %Y %H:%M:%S GMT",  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
      "%A, %d-%b-%y %H:%M:%S GMT",  // RFC 850:     Sunday, 06-Nov-94 08:49:37 GMT
      "%a %b %e %H:%M:%S %Y",       // asctime:     Sun Nov  6 08:49:37 1994
  };
  for (const char* format : kFormats) {
    struct tm parts {};
    const char* end = strptime(text.c_str(), format, &parts);
    if (end == nullptr || *end != '\0') continue;
    const time_t seconds = timegm(&parts);
    if (seconds == static_cast<time_t>(-1)) continue;
    // system_clock counts nanoseconds in 64 bits (1678 to 2262): a date
    // outside is the distant past or future, never wrapped around.
    if (seconds < 0) return std::chrono::system_clock::time_point{};
    if (seconds > kLatestSeconds) return std::chrono::system_clock::time_point::max();
    return std::chrono::system_clock::from_time_t(seconds);
  }
  return std::nullopt;
}

}  // namespace

Classification Classify(RetryPolicy policy, const DeliveryOutcome& outcome) {
  if (!outcome.status.has_value()) {
    if (outcome.delivered) return {Verdict::kSuccess, FailureReason::kOther};
    // Network and I/O errors, timeouts: the destination may come back.
    return {Verdict::kRetry, outcome.reason};
  }
  const unsigned status = *outcome.status;
  const FailureReason reason = StatusReason(status);
  if (policy == RetryPolicy::kRayCompat) {
    // Ray's raise_for_status(): below 400 is success, the rest is retried.
    return {status < 400 && status >= 200 ? Verdict::kSuccess : Verdict::kRetry, reason};
  }
  if (status >= 200 && status < 300) return {Verdict::kSuccess, reason};
  switch (reason) {
    case FailureReason::kHttp408:
    case FailureReason::kHttp429:
    case FailureReason::kHttp5xx:
      return {Verdict::kRetry, reason};
    case FailureReason::kHttp413:
      return {Verdict::kSplit, reason};
    default:
      // 3xx (not followed), other 4xx, 501, 1xx: retrying cannot help.
      return {Verdict::kReject, reason};
  }
}

std::optional<Duration> ParseRetryAfter(std::string_view value,
                                        std::chrono::system_clock::time_point now) {
  const std::string_view text = strings::StripBlanks(value);
  if (text.empty()) return std::nullopt;
  if (std::all_of(text.begin(), text.end(), strings::IsDigit)) {
    uint64_t seconds = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    // Too many digits to represent: as good as "forever"; the cap applies.
    if (ec == std::errc::result_out_of_range) return Duration::max();
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    constexpr uint64_t kMaxSeconds = static_cast<uint64_t>(Duration::max().count() / 1000);
    return seconds >= kMaxSeconds ? Duration::max() : Duration(seconds * 1000);
  }
  const std::optional<std::chrono::system_clock::time_point> date =
      ParseHttpDate(std::string(text));
  if (!date.has_value()) return std::nullopt;
  if (*date <= now) return Duration(0);
  return std::chrono::duration_cast<Duration>(*date - now);
}

}  // namespace rayagg
