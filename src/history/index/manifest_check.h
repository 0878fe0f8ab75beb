// Completeness of a session's objects from the object-store sink's manifests
// (docs/OBJECT_STORE.md "Manifest", docs/HISTORY.md "Missing objects"): each
// writer numbers its events 1..N across every object it cuts, whatever the
// session, so the union of the seq ranges the index holds for a writer shows
// the gaps — objects given up (the writer's drop counter grew by at least as
// much) or missing from the store (it did not). Ranges a manifest declares
// void (rayagg-seq-void: numbers a writer kept across a restart had handed to
// uploads that never confirmed) count as covered.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

struct ManifestReport {
  int64_t writers = 0;                   // writers with objects in the session
  int64_t objects_without_manifest = 0;  // e.g. KubeRay's collector's: not checkable
  int64_t gaps = 0;        // seq ranges of those writers no indexed object holds, before one of
                           // this session's objects
  int64_t gap_events = 0;  // the events in them
  // Of gap_events, those the writers' drop counters do not account for:
  // events of objects missing from the store (0 when complete).
  int64_t missing_events = 0;
};

// Reads the objects table: the session's writers, then each writer's objects
// in every session (objects_by_writer index).
absl::StatusOr<ManifestReport> CheckManifests(SqliteDb& db, int64_t session_id);

}  // namespace rayagg::history
