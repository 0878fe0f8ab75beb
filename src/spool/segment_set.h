// What the spool knows about its segment files, shared by the writer (which
// adds segments and records), recovery (which rebuilds it from disk) and the
// sinks' disk readers (which locate a sequence). Per segment: its sequence
// range, size, a sparse index (every kSparseEvery-th entry's offset) and the
// event types it holds; for the whole spool: where every coalesced part
// record is, by the sequence of the entry it belongs to, so a reader that
// meets an entry on disk can fetch its parts. That index costs ~40 bytes of
// memory per coalesced event on disk; nothing else grows with the spool.
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/container/inlined_vector.h"
#include "rayagg/mutex.h"
#include "spool/format.h"

namespace rayagg::spool {

struct PartLocation {
  uint64_t segment = 0;
  uint32_t offset = 0;  // of the record's header
  uint32_t length = 0;  // payload bytes
  uint8_t part = 0;
};

struct SegmentInfo {
  uint64_t number = 0;
  uint64_t sequence_floor = 0;
  uint64_t created_unix_ms = 0;  // 0 when its header was damaged
  uint64_t file_bytes = 0;       // size on disk, header included
  uint64_t readable_end = 0;     // readers stop here
  bool sealed = false;           // no longer appended to
  uint64_t records = 0;          // intact records noted (copies included)
  bool has_entries = false;      // any entry's first record
  uint64_t first_entry = 0;
  uint64_t last_entry = 0;
  uint64_t max_sequence = 0;  // of any record, parts included
  bool any_record = false;
  // Bit t for event type t in [0, 63), bit 63 for every other number.
  uint64_t type_mask = 0;
  std::vector<std::pair<uint64_t, uint32_t>> sparse = {};  // (entry sequence, offset)
};

inline uint64_t TypeBit(int32_t event_type) {
  return uint64_t{1} << (event_type >= 0 && event_type < 63 ? event_type : 63);
}

class SegmentSet {
 public:
  static constexpr uint64_t kSparseEvery = 512;

  explicit SegmentSet(std::string directory) : directory_(std::move(directory)) {}

  const std::string& directory() const { return directory_; }
  std::string PathOf(uint64_t number) const;

  void Add(SegmentInfo info);
  // Notes the records stored back to back in `bytes`, starting at `offset`
  // of segment `number` (their headers are trusted: we wrote or verified
  // them). A record whose (sequence, part) was noted before is a copy and
  // only counts towards the segment's size.
  void NoteRecords(uint64_t number, uint64_t offset, std::span<const std::string_view> pieces);
  // Recovery's form, one verified record at a time.
  void NoteRecord(uint64_t number, uint64_t offset, const RecordHeader& header);
  // The segment grew to `file_bytes`, of which readers may read `readable_end`.
  void SetSize(uint64_t number, uint64_t file_bytes, uint64_t readable_end);
  void Seal(uint64_t number, uint64_t readable_end);
  // Forgets a segment (its file is being deleted) and the parts of every
  // entry up to its last one, and the segments moved aside before it
  // (every sink is past them now).
  void Remove(uint64_t number);

  // A segment recovery moved aside (the disk would not read it): its
  // entries' sequences lie in [begin, end), as far as its neighbours tell.
  struct MovedAside {
    uint64_t number = 0;
    uint64_t begin = 0;
    uint64_t end = 0;
  };
  // Notes segment `number` as moved aside, once every readable segment is
  // in the set: its entries come after the newest entry of the segments
  // before it and before the first entry of those after it, or before
  // `end_bound` (where this run's sequences start) when none follows.
  void NoteMovedAside(uint64_t number, uint64_t end_bound);
  // Those whose range meets [from, until): what a reader of that range
  // loses to them.
  std::vector<MovedAside> MovedAsideWithin(uint64_t from, uint64_t until) const;

  std::optional<SegmentInfo> Get(uint64_t number) const;
  // Every segment, oldest first.
  std::vector<SegmentInfo> Snapshot() const;
  std::optional<SegmentInfo> Oldest() const;
  // The segment after `number`, if any.
  std::optional<SegmentInfo> Next(uint64_t number) const;

  struct Location {
    uint64_t segment;
    uint64_t offset;
  };
  // Where to start reading to find the entry `sequence` or the first one
  // after it; nullopt when no segment holds an entry >= sequence.
  std::optional<Location> Locate(uint64_t sequence) const;

  absl::InlinedVector<PartLocation, 2> PartsOf(uint64_t sequence) const;

  uint64_t total_bytes() const;
  size_t segment_count() const;
  size_t part_count() const;
  // The smallest entry sequence on disk, if any.
  std::optional<uint64_t> FirstEntry() const;
  // The newest entry noted, if any.
  std::optional<uint64_t> NewestEntry() const;

  // Takes over every segment and part of `other` (recovery's set, whose
  // numbers and sequences are all below this set's).
  void Adopt(SegmentSet& other);

 private:
  void NoteLocked(SegmentInfo& segment, uint64_t offset, const RecordHeader& header)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::string directory_;
  mutable Mutex mutex_;
  std::map<uint64_t, SegmentInfo> segments_ ABSL_GUARDED_BY(mutex_);
  absl::btree_map<uint64_t, absl::InlinedVector<PartLocation, 2>> parts_ ABSL_GUARDED_BY(mutex_);
  size_t part_count_ ABSL_GUARDED_BY(mutex_) = 0;
  // By number; no more than the segment files recovery found.
  std::map<uint64_t, MovedAside> moved_aside_ ABSL_GUARDED_BY(mutex_);
  // The newest entry noted: a first record at or below it is a copy.
  bool any_entry_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t newest_entry_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t total_bytes_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace rayagg::spool
