#include "objstore/rules/kuberay_layout.h"

#include <time.h>

#include <charconv>
#include <cstdio>
#include <vector>

#include "common/text.h"

namespace rayagg::kuberay {
namespace {

constexpr std::string_view kMetadataRoot = "cluster-metadata/";
constexpr std::string_view kHistoryRoot = "cluster-history/";
constexpr std::string_view kNodeEvents = "node_events";
constexpr std::string_view kJobEvents = "job_events";

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool HasOwner(ClusterKind kind) { return kind != ClusterKind::kRayCluster; }

// `digits` decimal digits at text[at...]; -1 when they are not all digits.
int ParseFixedDigits(std::string_view text, size_t at, size_t digits) {
  if (at + digits > text.size()) return -1;
  int value = 0;
  for (size_t i = at; i < at + digits; ++i) {
    if (!strings::IsDigit(text[i])) return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool IsAllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!strings::IsDigit(c)) return false;
  }
  return true;
}

bool PlausibleDate(int year, int month, int day, int hour) {
  return year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour >= 0 &&
         hour <= 23;
}

// A path segment written by someone: no empty pieces, no '.'/'..'.
bool IsPlainSegment(std::string_view segment) {
  return !segment.empty() && segment != "." && segment != "..";
}

}  // namespace

std::string_view ClusterKindName(ClusterKind kind) {
  switch (kind) {
    case ClusterKind::kRayCluster:
      return "raycluster";
    case ClusterKind::kRayJob:
      return "rayjob";
    case ClusterKind::kRayService:
      return "rayservice";
  }
  return "raycluster";
}

absl::StatusOr<ClusterKind> ParseClusterKind(std::string_view text) {
  const std::string lower = strings::ToLower(text);
  if (lower == "raycluster") return ClusterKind::kRayCluster;
  if (lower == "rayjob") return ClusterKind::kRayJob;
  if (lower == "rayservice") return ClusterKind::kRayService;
  return absl::InvalidArgumentError(
      strings::Cat("'", text, "' is not a cluster kind (raycluster, rayjob or rayservice)"));
}

bool IsDns1123Label(std::string_view text) {
  if (text.empty() || text.size() > 63) return false;
  if (!IsLowerAlnum(text.front()) || !IsLowerAlnum(text.back())) return false;
  for (char c : text) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool IsDns1123Subdomain(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  for (std::string_view label : strings::Split(text, '.')) {
    // Subdomain labels follow the label rule except for the 63-byte limit,
    // which only the whole name's 253 bounds.
    if (label.empty() || !IsLowerAlnum(label.front()) || !IsLowerAlnum(label.back())) return false;
    for (char c : label) {
      if (!IsLowerAlnum(c) && c != '-') return false;
    }
  }
  return true;
}

absl::Status ValidateClusterIdentity(const ClusterIdentity& identity) {
  if (!IsDns1123Label(identity.namespace_name)) {
    return absl::InvalidArgumentError(
        strings::Cat("cluster.namespace: '", identity.namespace_name,
                     "' is not a DNS-1123 label (lowercase letters, digits and '-', starting and "
                     "ending with a letter or digit, at most 63 characters)"));
  }
  if (!IsDns1123Subdomain(identity.name)) {
    return absl::InvalidArgumentError(
        strings::Cat("cluster.name: '", identity.name,
                     "' is not a DNS-1123 name (lowercase letters, digits, '-' and '.', at most "
                     "253 characters)"));
  }
  if (HasOwner(identity.kind)) {
    if (!IsDns1123Subdomain(identity.owner)) {
      return absl::InvalidArgumentError(
          strings::Cat("cluster.owner: '", identity.owner, "' is not a DNS-1123 name; kind ",
                       ClusterKindName(identity.kind), " needs the name of its ",
                       ClusterKindName(identity.kind), " as owner"));
    }
  } else if (!identity.owner.empty()) {
    return absl::InvalidArgumentError(
        strings::Cat("cluster.owner: '", identity.owner,
                     "' is set but cluster.kind is raycluster, which has no owner"));
  }
  return absl::OkStatus();
}

std::string CategoryPath(const EventCategory& category) {
  if (!category.is_job()) return std::string(kNodeEvents);
  return strings::Cat(kJobEvents, "/", category.job_id_hex);
}

bool IsValidSessionName(std::string_view session) {
  if (session.empty() || session == "." || session == "..") return false;
  for (char c : session) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || strings::IsDigit(c) ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::optional<std::chrono::system_clock::time_point> ParseRaySessionName(std::string_view session) {
  // session_2026-12-03_10-04-05_123456_4242
  // 0       8    13 16 19 22 25     32
  constexpr std::string_view kPrefix = "session_";
  if (session.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view rest = session.substr(kPrefix.size());
  if (rest.size() < 28) return std::nullopt;
  const auto sep = [&](size_t at, char c) { return rest[at] == c; };
  if (!sep(4, '-') || !sep(7, '-') || !sep(10, '_') || !sep(13, '-') || !sep(16, '-') ||
      !sep(19, '_') || !sep(26, '_')) {
    return std::nullopt;
  }
  const int year = ParseFixedDigits(rest, 0, 4), month = ParseFixedDigits(rest, 5, 2),
            day = ParseFixedDigits(rest, 8, 2), hour = ParseFixedDigits(rest, 11, 2),
            minute = ParseFixedDigits(rest, 14, 2), second = ParseFixedDigits(rest, 17, 2),
            micros = ParseFixedDigits(rest, 20, 6);
  if (!PlausibleDate(year, month, day, hour) || minute < 0 || minute > 59 || second < 0 ||
      second > 60 || micros < 0 || !IsAllDigits(rest.substr(27))) {
    return std::nullopt;
  }
  struct tm parts {};
  parts.tm_year = year - 1900;
  parts.tm_mon = month - 1;
  parts.tm_mday = day;
  parts.tm_hour = hour;
  parts.tm_min = minute;
  parts.tm_sec = second;
  const time_t seconds = timegm(&parts);
  return std::chrono::system_clock::from_time_t(seconds) + std::chrono::microseconds(micros);
}

std::string SessionMarkerKey(const ClusterIdentity& identity, std::string_view session) {
  std::string key = strings::Cat(kMetadataRoot, ClusterKindName(identity.kind), "/",
                                 identity.namespace_name, "_");
  if (HasOwner(identity.kind)) strings::Append(key, identity.owner, "_");
  strings::Append(key, identity.name, "/", session);
  return key;
}

std::string SessionHistoryPrefix(const ClusterIdentity& identity, std::string_view session) {
  std::string key =
      strings::Cat(kHistoryRoot, ClusterKindName(identity.kind), "/", identity.namespace_name, "/");
  if (HasOwner(identity.kind)) strings::Append(key, identity.owner, "/");
  strings::Append(key, identity.name, "/", session, "/");
  return key;
}

std::string EventObjectKey(const ClusterIdentity& identity, std::string_view session,
                           std::string_view node_id_hex, const EventCategory& category,
                           std::chrono::system_clock::time_point created, bool gzip) {
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(created.time_since_epoch()).count();
  const time_t seconds = static_cast<time_t>(nanos / 1'000'000'000);
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  char hour_stamp[80];
  std::snprintf(hour_stamp, sizeof(hour_stamp), "%04d-%02d-%02d-%02d", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour);
  std::string key = SessionHistoryPrefix(identity, session);
  strings::Append(key, node_id_hex, "/", CategoryPath(category), "/", node_id_hex, "-",
                  std::string_view(hour_stamp), "-", static_cast<int64_t>(nanos), ".jsonl");
  if (gzip) key.append(".gz");
  return key;
}

std::optional<EventFileName> ParseEventFileName(std::string_view name) {
  EventFileName parsed;
  std::string_view rest = name;
  const auto strip_suffix = [&](std::string_view suffix) {
    if (rest.size() >= suffix.size() && rest.substr(rest.size() - suffix.size()) == suffix) {
      rest.remove_suffix(suffix.size());
      return true;
    }
    return false;
  };
  parsed.gzip = strip_suffix(".gz");
  parsed.jsonl = strip_suffix(".jsonl");
  // Optional "-<digits>" after the stamp. A stamp's own last piece is two
  // digits too, so only take the suffix when a whole stamp precedes it.
  const auto stamp_ends_at = [](std::string_view text) {
    // "-YYYY-MM-DD-HH" at the end of `text`: 14 characters.
    if (text.size() < 14) return false;
    const std::string_view s = text.substr(text.size() - 14);
    return s[0] == '-' && s[5] == '-' && s[8] == '-' && s[11] == '-' &&
           ParseFixedDigits(s, 1, 4) >= 0 && ParseFixedDigits(s, 6, 2) >= 0 &&
           ParseFixedDigits(s, 9, 2) >= 0 && ParseFixedDigits(s, 12, 2) >= 0;
  };
  if (const size_t dash = rest.rfind('-'); dash != std::string_view::npos &&
                                           IsAllDigits(rest.substr(dash + 1)) &&
                                           stamp_ends_at(rest.substr(0, dash))) {
    int64_t nanos = 0;
    const std::string_view digits = rest.substr(dash + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), nanos);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    parsed.unix_nanos = nanos;
    rest = rest.substr(0, dash);
  }
  if (!stamp_ends_at(rest)) return std::nullopt;
  const std::string_view stamp = rest.substr(rest.size() - 14);
  parsed.year = ParseFixedDigits(stamp, 1, 4);
  parsed.month = ParseFixedDigits(stamp, 6, 2);
  parsed.day = ParseFixedDigits(stamp, 9, 2);
  parsed.hour = ParseFixedDigits(stamp, 12, 2);
  parsed.node_id_hex = std::string(rest.substr(0, rest.size() - 14));
  return parsed;
}

std::optional<SessionMarker> ParseSessionMarkerKey(std::string_view key) {
  if (key.substr(0, kMetadataRoot.size()) != kMetadataRoot) return std::nullopt;
  const std::vector<std::string_view> parts = strings::Split(key.substr(kMetadataRoot.size()), '/');
  if (parts.size() != 3) return std::nullopt;
  absl::StatusOr<ClusterKind> kind = ParseClusterKind(parts[0]);
  if (!kind.ok() || parts[0] != ClusterKindName(*kind)) return std::nullopt;
  SessionMarker marker;
  marker.cluster.kind = *kind;
  const std::vector<std::string_view> names = strings::Split(parts[1], '_');
  if (names.size() != (HasOwner(*kind) ? 3u : 2u)) return std::nullopt;
  marker.cluster.namespace_name = std::string(names[0]);
  if (HasOwner(*kind)) marker.cluster.owner = std::string(names[1]);
  marker.cluster.name = std::string(names.back());
  for (std::string_view name : names) {
    if (name.empty()) return std::nullopt;
  }
  if (!IsValidSessionName(parts[2])) return std::nullopt;
  marker.session = std::string(parts[2]);
  return marker;
}

std::optional<EventObjectKeyParts> ParseEventObjectKey(std::string_view key) {
  if (key.substr(0, kHistoryRoot.size()) != kHistoryRoot) return std::nullopt;
  const std::vector<std::string_view> parts = strings::Split(key.substr(kHistoryRoot.size()), '/');
  if (parts.empty()) return std::nullopt;
  absl::StatusOr<ClusterKind> kind = ParseClusterKind(parts[0]);
  if (!kind.ok() || parts[0] != ClusterKindName(*kind)) return std::nullopt;
  EventObjectKeyParts out;
  out.cluster.kind = *kind;
  size_t at = 1;
  // kind, namespace, [owner], cluster, session, node, category (1 or 2), file
  const size_t fixed = HasOwner(*kind) ? 6 : 5;
  if (parts.size() < fixed + 2) return std::nullopt;
  out.cluster.namespace_name = std::string(parts[at++]);
  if (HasOwner(*kind)) out.cluster.owner = std::string(parts[at++]);
  out.cluster.name = std::string(parts[at++]);
  out.session = std::string(parts[at++]);
  out.node_id_hex = std::string(parts[at++]);
  for (size_t i = 1; i < at; ++i) {
    if (!IsPlainSegment(parts[i])) return std::nullopt;
  }
  if (parts[at] == kNodeEvents && parts.size() == at + 2) {
    ++at;
  } else if (parts[at] == kJobEvents && parts.size() == at + 3 && IsPlainSegment(parts[at + 1])) {
    out.category.job_id_hex = std::string(parts[at + 1]);
    at += 2;
  } else {
    return std::nullopt;
  }
  std::optional<EventFileName> file = ParseEventFileName(parts[at]);
  if (!file) return std::nullopt;
  out.file = *std::move(file);
  return out;
}

std::string HexId(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    hex.push_back(kDigits[b >> 4]);
    hex.push_back(kDigits[b & 0xf]);
  }
  return hex;
}

}  // namespace rayagg::kuberay
