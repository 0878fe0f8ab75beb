// The object-store sink's assembler: reads events from the sink's cursor,
// files each one by the KubeRay layout's rule (session, node, category:
// objstore/event_route.h) into one open object per (session, node,
// category) as a line of camelCase JSON, and cuts objects by age, size and
// the sink's memory budget (object.max_age, object.max_bytes,
// object.max_open_bytes). Pure: no I/O, no clock of its own (times are
// passed in), no logging; one thread (the sink's strand).
//
// Positions: an object's events are spread over the log, interleaved with
// other objects' events. Each position a read covers belongs to one release
// unit — the events read at that position (more than one when the parts of a
// coalesced entry could not be merged) plus the positions after it that the
// cursor skipped. A unit is released once every event in it has been
// uploaded or dropped, so the cursor's released position never passes an
// event whose object is not stored yet (a crash or a give-up re-reads it
// when a spool keeps the log).
//
// Manifest: each cut object is given the next contiguous range of the
// writer's sequence numbers (one per event), so the objects of one writer
// tile 1..N; the writer's drop count at cut time goes with it
// (docs/OBJECT_STORE.md, "Manifest").
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "objstore/rules/kuberay_layout.h"
#include "objstore/rules/seq_ranges.h"
#include "rayagg/clock.h"
#include "rayagg/config.h"
#include "rayagg/drop_counters.h"
#include "rayagg/event_json_encoder.h"
#include "rayagg/event_reader.h"
#include "rayagg/object_store.h"

namespace rayagg {

// The directory an event lands in.
struct ObjectGroup {
  std::string session;
  std::string node_id_hex;
  kuberay::EventCategory category;
};

// An object cut from the assembler, ready to upload.
struct CutObject {
  ObjectGroup group;
  std::string key;   // relative to the store's root
  WallTime created;  // the key's hour stamp and nanoseconds (unique per assembler)
  std::string body;  // as stored: gzip bytes when gzip is on
  bool gzip = false;
  uint64_t json_bytes = 0;     // JSON Lines before compression
  std::vector<int32_t> types;  // each event's type and received count, for drop counting
  std::vector<uint32_t> received;
  std::vector<uint64_t> units;  // the release unit of each event
  uint64_t seq_first = 0, seq_last = 0;
  int64_t first_event_nanos = 0, last_event_nanos = 0;  // RayEvent.timestamp, min and max
  uint64_t writer_drops = 0;                            // the sink's drops when it was cut
  // Task attempts Ray's senders reported dropped (AddEvents'
  // task_events_metadata) since the writer's previous object: set by the
  // sink when the upload starts; 0 is not written.
  uint64_t sender_dropped_task_attempts = 0;
  // Ranges of the writer's numbers an earlier run handed to uploads that
  // never confirmed (objsink/writer_state.h): set by the sink when the
  // upload starts; written as rayagg-seq-void when not empty.
  std::vector<SeqRange> void_ranges;

  size_t events() const { return types.size(); }
  // x-amz-meta-rayagg-* (docs/OBJECT_STORE.md).
  ObjectMetadata Manifest(std::string_view writer) const;
};

class ObjectAssembler {
 public:
  struct Options {
    ObjectBatchConfig limits{};
    kuberay::ClusterIdentity cluster{};
    std::string default_node_id_hex{};  // for events without a nodeId; "" drops them
    uint64_t first_seq = 1;             // the first object's seq-first (a resumed writer)
  };

  // What one Read did besides filing events (already counted in `drops`).
  struct ReadReport {
    size_t events = 0;  // events read
    uint64_t bad_session = 0;
    uint64_t no_node = 0;
    uint64_t encode_errors = 0;
    std::string first_encode_error{};
    // Valid session names seen for the first time that are not Ray's
    // session_YYYY-MM-DD_HH-MM-SS_ffffff_<pid> (the history server will not
    // list them): the sink logs each once.
    std::vector<std::string> unusual_sessions{};
  };

  // Reads through `cursor` of `reader`, counting drops in `drops`; all
  // three outlive the assembler.
  ObjectAssembler(EventReader& reader, EventReader::CursorId cursor, Options options,
                  std::unique_ptr<EventJsonEncoder> encoder, DropCounters& drops);

  // Reads up to `max_events` events into open objects; an object opened now
  // is due at `now` + max_age, and its key is stamped `wall_now`. An object
  // that an event would push past max_bytes is cut first.
  ReadReport Read(size_t max_events, SteadyTime now, WallTime wall_now);

  // Whether the sink may read more: held bytes below max_open_bytes.
  bool can_read() const { return held_bytes_ < options_.limits.max_open_bytes; }
  // Cuts objects whose max_age has passed at `now`.
  void CutDue(SteadyTime now);
  // While held bytes reach max_open_bytes, cuts the largest open object.
  void CutForBudget();
  // Cuts every open object (draining).
  void CutAll();
  // When the oldest open object is due; nullopt with none open.
  std::optional<SteadyTime> NextDue() const;

  // Objects cut and not yet taken, oldest first.
  bool has_cut() const { return !cut_.empty(); }
  CutObject TakeCut();

  // After `object`'s upload succeeded, or it was given up (counted by the
  // caller): releases its units and frees its bytes.
  void Finish(const CutObject& object);
  // A new key for `object` (its name was taken: ALREADY_EXISTS).
  void Rekey(CutObject& object, WallTime wall_now);

  // Counts every open and untaken cut object's events, and every unread
  // event, as dropped for `reason` and releases them (the drain deadline).
  void DropAll(DropReason reason);
  // The drain deadline with a spool (EventReader::KeepsUnsentAcrossRestarts):
  // frees `object`'s bytes without releasing its units, so the next run
  // reads its events again from the spool; nothing is counted.
  void Keep(const CutObject& object);

  size_t open_objects() const { return open_.size(); }
  uint64_t open_bytes() const { return open_bytes_; }
  // What object.max_open_bytes bounds: open objects' JSON plus, for each
  // cut object until Finish() or Keep(), its stored bytes and
  // kHeldBytesPerCutEvent per event.
  uint64_t held_bytes() const { return held_bytes_; }

  // What each event of a cut object costs besides its share of the body:
  // its type, received count and unit in the object (16 bytes, up to twice
  // that with the vectors' growth) and its unit's node in units_ (about 64
  // bytes with the bucket). Counted so that gzip, which shrinks an event's
  // line to a few dozen bytes, cannot let the sink hold millions of events
  // within the budget (issue 16).
  static constexpr uint64_t kHeldBytesPerCutEvent = 96;

 private:
  struct OpenObject {
    ObjectGroup group;
    SteadyTime due;
    WallTime created;
    // JSON Lines, in pieces that are never reallocated: one string grown
    // by doubling copied each object's JSON about once more and touched
    // fresh pages at every step (a third of the sink's CPU at 47,000
    // events/s into RGW, issue 16). Each new piece is about the size so
    // far (kMinJsonPiece..kMaxJsonPiece), so the capacity beyond the JSON
    // stays within what a doubling string had.
    std::vector<std::string> json{};
    uint64_t json_size = 0;
    std::vector<int32_t> types{};
    std::vector<uint32_t> received{};
    std::vector<uint64_t> units{};
    int64_t first_event_nanos = 0, last_event_nanos = 0;
  };
  struct Unit {
    uint64_t end = 0;
    uint64_t remaining = 0;  // events of the unit not yet uploaded or dropped
  };

  static constexpr size_t kMinJsonPiece = 4096;
  static constexpr size_t kMaxJsonPiece = 1 << 20;

  static void AppendJson(OpenObject& object, std::string_view line);
  // Files event `index` of `events` (its unit begins at `unit`).
  void File(const EventBatch& events, size_t index, uint64_t unit, SteadyTime now,
            WallTime wall_now, ReadReport& report);
  void Cut(const std::string& group_key);
  static uint64_t CutHeldBytes(const CutObject& object);
  void Done(uint64_t unit);
  WallTime UniqueCreationTime(WallTime wall_now);
  void CountDropped(const std::vector<int32_t>& types, const std::vector<uint32_t>& received,
                    DropReason reason);

  EventReader& reader_;
  const EventReader::CursorId cursor_;
  const Options options_;
  std::unique_ptr<EventJsonEncoder> encoder_;
  DropCounters& drops_;

  std::map<std::string, OpenObject> open_;  // by group key
  std::deque<CutObject> cut_;
  std::unordered_map<uint64_t, Unit> units_;  // by first position
  std::set<std::string> sessions_seen_;       // for unusual-session reports; bounded below
  std::string line_;                          // one event's JSON, reused
  EventBatch read_;                           // one read, reused
  uint64_t open_bytes_ = 0;
  uint64_t held_bytes_ = 0;
  uint64_t next_seq_;
  int64_t last_created_nanos_ = 0;
  // GzipCompress's output, reused: it keeps about the largest object's
  // compressed size (at most a quarter of its JSON unless that does not
  // shrink; within the sizing formula's "one object being compressed");
  // each cut object gets a copy of just its compressed bytes.
  std::string gzip_scratch_;
};

}  // namespace rayagg
