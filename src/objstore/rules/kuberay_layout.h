// The KubeRay history-server object layout (v1.7), built by the object-store
// sink and parsed by ray-task-history. Keys are relative to the store's root
// (the URL's prefix is the store's business):
//
//   cluster-metadata/<kind>/<ns>_[<owner>_]<cluster>/<session>      empty marker
//   cluster-history/<kind>/<ns>/[<owner>/]<cluster>/<session>/<node>/
//       node_events/<node>-<YYYY-MM-DD-HH>-<unixNano>.jsonl[.gz]
//       job_events/<jobHex>/<node>-<YYYY-MM-DD-HH>-<unixNano>.jsonl[.gz]
//
// <kind> is raycluster (no owner), rayjob or rayservice (owner = the RayJob's
// or RayService's name). The hour stamp is the object's creation hour in
// UTC and <unixNano> the same instant. Source:
// ../shared/reference/history-server.md §2.4.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rayagg::kuberay {

enum class ClusterKind { kRayCluster, kRayJob, kRayService };

// "raycluster", "rayjob", "rayservice".
std::string_view ClusterKindName(ClusterKind kind);
// Case-insensitive ("RayJob" as KubeRay's OWNER_KIND spells it works).
absl::StatusOr<ClusterKind> ParseClusterKind(std::string_view text);

// Which Ray cluster the objects belong to. `owner` is the RayJob or
// RayService name; empty for a plain RayCluster.
struct ClusterIdentity {
  ClusterKind kind = ClusterKind::kRayCluster;
  std::string namespace_name{};
  std::string name{};
  std::string owner{};
  bool operator==(const ClusterIdentity&) const = default;
};

// Namespace: a DNS-1123 label. Cluster and owner names: DNS-1123
// subdomains. An owner is required for rayjob and rayservice and refused
// for raycluster. Neither may contain '_', which joins them in marker keys.
// Errors name the field ("cluster.namespace") and the rule.
absl::Status ValidateClusterIdentity(const ClusterIdentity& identity);
bool IsDns1123Label(std::string_view text);
bool IsDns1123Subdomain(std::string_view text);

// Where an event lands inside a node's directory.
struct EventCategory {
  std::string job_id_hex{};  // empty: node_events
  bool is_job() const { return !job_id_hex.empty(); }
  bool operator==(const EventCategory&) const = default;
};

// "node_events" or "job_events/<hex>".
std::string CategoryPath(const EventCategory& category);

// Any name the history server's collector would accept as a session
// directory: [A-Za-z0-9._-]+, but not "." or "..".
bool IsValidSessionName(std::string_view session);

// Ray's session directory name, session_YYYY-MM-DD_HH-MM-SS_ffffff_<pid>;
// returns the creation time it encodes (UTC). The history server lists only
// sessions of this form.
std::optional<std::chrono::system_clock::time_point> ParseRaySessionName(std::string_view session);

// cluster-metadata/<kind>/<ns>_[<owner>_]<cluster>/<session>
std::string SessionMarkerKey(const ClusterIdentity& identity, std::string_view session);

// cluster-history/<kind>/<ns>/[<owner>/]<cluster>/<session>/
std::string SessionHistoryPrefix(const ClusterIdentity& identity, std::string_view session);

// The full key of one event object; `created` gives both the UTC hour stamp
// and the nanosecond suffix.
std::string EventObjectKey(const ClusterIdentity& identity, std::string_view session,
                           std::string_view node_id_hex, const EventCategory& category,
                           std::chrono::system_clock::time_point created, bool gzip);

// <node>-<YYYY-MM-DD-HH>[-<digits>][.jsonl][.gz], the reader's rule: the
// legacy "<node>-<hour>" names of KubeRay <= 1.6 parse too.
struct EventFileName {
  std::string node_id_hex{};  // whatever precedes the hour stamp
  int year = 0, month = 0, day = 0, hour = 0;
  std::optional<int64_t> unix_nanos{};
  bool jsonl = false;
  bool gzip = false;
};
std::optional<EventFileName> ParseEventFileName(std::string_view name);

struct SessionMarker {
  ClusterIdentity cluster{};
  std::string session{};
};
// The inverse of SessionMarkerKey; nullopt for any other key.
std::optional<SessionMarker> ParseSessionMarkerKey(std::string_view key);

struct EventObjectKeyParts {
  ClusterIdentity cluster{};
  std::string session{};
  std::string node_id_hex{};
  EventCategory category{};
  EventFileName file{};
};
// The inverse of EventObjectKey (also for names written by KubeRay's own
// collector); nullopt for keys outside node_events / job_events.
std::optional<EventObjectKeyParts> ParseEventObjectKey(std::string_view key);

// Lowercase hex of raw id bytes (node ids, job ids).
std::string HexId(std::string_view bytes);

}  // namespace rayagg::kuberay
