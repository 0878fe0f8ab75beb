// The object-store sink's writer across restarts, when the disk spool is on:
// `<spool.dir>/objsink-<sink name>.json` holds the writer id, the next
// sequence number, the writer's drop count so far, the ranges allocated to
// objects whose upload is not known to have succeeded (`pending`) and the
// ranges still to be declared void in a manifest (`void`). With it the next
// run keeps the writer id and its numbering, and declares the previous run's
// pending ranges void (`rayagg-seq-void`): their events are still in the
// spool and get new numbers, and an object that did get stored under the old
// numbers only covers them twice (docs/OBJECT_STORE.md "Manifest").
//
// Plain functions, blocking file I/O; the sink calls them on its strand.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "objstore/rules/seq_ranges.h"

namespace rayagg {

struct WriterState {
  std::string writer;                   // 16 lowercase hex digits
  uint64_t next_seq = 1;                // the first number not yet handed to an upload
  uint64_t drops = 0;                   // the writer's dropped events, every run so far
  std::vector<SeqRange> pending{};      // handed to uploads, not known stored
  std::vector<SeqRange> void_ranges{};  // to declare in the next manifests
  friend bool operator==(const WriterState&, const WriterState&) = default;
};

// `<spool_dir>/objsink-<sink_name>.json` (sink names are [A-Za-z0-9_.-]+).
std::string WriterStatePath(const std::string& spool_dir, const std::string& sink_name);

std::string SerializeWriterState(const WriterState& state);
// INVALID_ARGUMENT for anything that is not a state this code wrote: bad
// JSON, a missing or mistyped field, a writer id that is not 16 hex digits,
// a next_seq of 0 or above 2^63-1 (the reader's integers), a range that is
// empty or reaches next_seq. Overlapping ranges are read as written (the sink
// joins them: MergeSeqRanges).
absl::StatusOr<WriterState> ParseWriterState(std::string_view text);

// NOT_FOUND when there is no file; other errors name the path.
absl::StatusOr<WriterState> LoadWriterState(const std::string& path);
// Writes `<path>.tmp`, fsyncs it, renames it over `path` and fsyncs the
// directory, so a crash leaves the old state or the new one, never half.
absl::Status SaveWriterState(const std::string& path, const WriterState& state);

}  // namespace rayagg
