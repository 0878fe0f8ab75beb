// The bounded event log shared by every sink (ARCHITECTURE.md, "Event log").
//
// Events are held as their serialized bytes in a ChunkStore plus a 32-byte
// header each; never as parsed messages. Each sink reads through its own
// cursor, so a slow sink only loses its own unread events. Storage is bounded
// by events and by bytes; on overflow the oldest event is evicted and counted,
// per sink that had not read it and accepts its type (Ray's drop-oldest).
// An event is freed as soon as every cursor has passed it.
//
// Sinks read through EventReader (rayagg/event_reader.h): a read does not
// release, and each cursor tracks its released position from the ranges its
// sink releases (ReleaseTracker). In memory that position is only reported;
// memory is still freed by reading, since the sink holds its own copy.
//
// Append is where dedup and coalescing act (docs/COALESCING.md):
// - Dedup: an event whose id hash is in the DedupWindow is dropped and
//   counted once (deduplicated_events), not per sink.
// - Coalescing: an event joins the newest entry of the same entity and type
//   while no cursor that accepts that type has read the entry. It only ever
//   acts on entries already held, so it never delays delivery. Append only
//   links the event's bytes to the entry (cheap, under the lock); Read merges
//   an entry's parts with the cursor's own EventMerger after releasing the
//   lock, so the protobuf work runs once per delivered event, on the sink's
//   thread, and never holds up ingest.
//
// Durable mode (UseSpool, docs/SPOOL.md): each accepted event is also kept
// as a spool record (header and payload, back to back in the chunks), and
// the records form one stream the spool's writer thread reads
// (spool::RecordSource) and appends to segment files. AppendAsync answers
// once the spool reports the request's records written (or fsync'd, per
// spool.sync). Memory never frees a record the spool has not reported
// durable (OnDurable), since the writer holds views into it.
//
// In durable mode memory is a cache of the spool: an entry memory lets go
// of (buffer.max_bytes) before a cursor read it is not dropped; the cursor
// reads it from the segment files (a DiskReader per cursor) once it is
// written, as it does after a restart from its ledger position
// (ResumeCursor). Entries in damaged regions are counted as `corrupt`.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "buffer/chunk_store.h"
#include "buffer/dedup_window.h"
#include "buffer/release_tracker.h"
#include "rayagg/drop_counters.h"
#include "rayagg/event_appender.h"
#include "rayagg/event_batch.h"
#include "rayagg/event_merger.h"
#include "rayagg/event_reader.h"
#include "rayagg/event_type_filter.h"
#include "rayagg/mutex.h"
#include "spool/disk_reader.h"
#include "spool/record_source.h"

namespace rayagg {

namespace spool {
class Spool;
}

class EventLog final : public EventAppender, public EventReader, public spool::RecordSource {
 public:
  struct Limits {
    uint64_t max_events;
    uint64_t max_bytes;
  };
  struct Options {
    // Ids remembered for dedup; 0 turns dedup off.
    uint64_t dedup_window_events = 0;
    // Makes each cursor's merger; null turns coalescing off.
    EventMergerFactory merger_factory;
  };
  using CursorId = EventReader::CursorId;

  // Parts of one entry, bounded: a longer chain starts a new entry, so a
  // reader never merges more than this many events at once.
  static constexpr uint32_t kMaxPartsPerEntry = 64;

  struct Snapshot {
    uint64_t held_events = 0;  // entries; a merged entry counts once
    // Serialized event bytes; a coalesced entry counts its parts (an upper
    // bound on its merged size).
    uint64_t held_bytes = 0;
    uint64_t reserved_bytes = 0;       // chunk memory, including slack
    uint64_t appended_events = 0;      // received: every event passed to Append
    uint64_t deduplicated_events = 0;  // dropped as duplicates (reason "duplicate")
    uint64_t coalesced_events = 0;     // merged into an earlier entry
    uint64_t next_sequence = 0;        // the position the next entry gets
  };

  // Without options: no dedup, no coalescing. (Not a default argument: g++
  // rejects a nested aggregate with member initializers there.)
  explicit EventLog(Limits limits);
  EventLog(Limits limits, Options options, size_t chunk_bytes = ChunkStore::kDefaultChunkBytes);

  // EventReader (contracts there). The owner of a cursor must stop ingest
  // before destroying what its `on_available` captures.
  CursorId AddCursor(EventTypeFilter accepts, DropCounters& drops,
                     std::function<void()> on_available) override;
  void RemoveCursor(CursorId cursor) override;
  void BlockWhenFull(CursorId cursor, std::string sink_name,
                     std::atomic<uint64_t>& refusals) override;
  void SetCursorFilter(CursorId cursor, EventTypeFilter accepts) override;
  bool HasUnread(CursorId cursor) const override;
  // Coalesced entries are merged before return (outside the lock); parts
  // the merger refuses come back as separate events sharing the entry's
  // position.
  ReadResult Read(CursorId cursor, size_t max_events, EventBatch& out) override;
  bool Release(CursorId cursor, uint64_t begin, uint64_t end) override;
  uint64_t ReleasedPosition(CursorId cursor) const override;
  // Durable mode: events the cursor has read back from an earlier run's
  // records (what the sink resends after a restart; a coalesced entry
  // counts its parts).
  uint64_t ReplayedEvents(CursorId cursor) const;

  absl::Status Append(std::span<const IncomingEvent> events) override;
  // With a spool: answers once the spool has the request's records (or
  // refuses at once while the spool refuses). Without: Append.
  void AppendAsync(std::span<const IncomingEvent> events, AppendDone done) override;
  std::optional<std::string> FullBlockingSink() const override;

  // Durable mode. Call before any cursor or append: entries are numbered
  // from `first_sequence` (above every sequence on the spool's disk) and
  // kept as records from now on. `spool` (started on this log as its
  // RecordSource) outlives the log's use.
  void UseSpool(spool::Spool& spool, uint64_t first_sequence);
  // spool::RecordSource: views of the record stream (positions are byte
  // offsets since UseSpool).
  uint64_t CollectRecords(uint64_t from, uint64_t to, uint64_t max_bytes,
                          std::vector<std::string_view>& pieces) override;
  // The spool has the stream before `position` as its sync mode promises:
  // memory may free those records once every cursor is past them.
  void OnDurable(uint64_t position);
  // Called (outside the lock, on the releasing thread) after a Release that
  // moved a cursor's released position: the spool's ledger follows them.
  void SetReleaseListener(std::function<void()> listener);
  // Stream bytes accepted but not yet reported durable.
  uint64_t PendingRecordBytes() const;
  // Durable mode: moves a cursor that has read nothing yet back to
  // `position` (its ledger position from an earlier run), so it reads from
  // there on, from disk. Before the sink starts.
  void ResumeCursor(CursorId cursor, uint64_t position);
  // Wakes every cursor's reader (the spool's recovery finished: the earlier
  // run's records are readable).
  void NotifyAll();
  // Adds ids an earlier run accepted (recovered from the spool, oldest
  // first) to the dedup window, so a sender's retry after a crash is still
  // recognised. Ids already remembered stay where they are.
  void RememberIds(std::span<const uint64_t> id_hashes);
  bool KeepsUnsentAcrossRestarts() const override { return spool_ != nullptr; }
  // The spool is deleting `segment` to stay within spool.max_bytes (its
  // file is still readable during the call): every cursor that had not
  // read its entries counts them as `overflow` drops and moves past them.
  // On the spool's writer thread.
  void OnSegmentEvicted(const spool::SegmentInfo& segment);
  // Whether the spool may evict `segment` (spool::SpoolListener::MayEvict):
  // not while a when_full: block cursor has not read an entry of a type it
  // accepts there.
  bool MayEvictSegment(const spool::SegmentInfo& segment) const;

  Snapshot GetSnapshot() const;

 private:
  // The per-event header: 32 bytes. The id hash lives in the dedup window
  // only, which makes room for the count of original events merged here.
  struct Entry {
    const char* data;  // the first event's bytes
    uint32_t size;
    int32_t event_type;
    uint64_t entity_key;
    // Received events this entry stands for (1 + events coalesced into it,
    // whose bytes are in extra_parts_), so an eviction counts as many drops
    // as events it loses.
    uint32_t event_count;
  };
  static_assert(sizeof(Entry) == 32);
  struct Cursor {
    EventTypeFilter accepts;
    DropCounters* drops;
    std::function<void()> on_available;
    uint64_t next_sequence;  // sequence of the next unread entry
    // Where the last Read ended: the next one's range begins here, so it
    // covers entries evicted before the cursor reached them.
    uint64_t read_end;
    ReleaseTracker released;
    // Used only by Read, by the cursor's reader, outside the lock.
    std::unique_ptr<EventMerger> merger;
    bool removed = false;
    // Set by BlockWhenFull.
    bool blocks = false;
    std::string sink_name;
    std::atomic<uint64_t>* refusals = nullptr;
    // Durable mode: reads what memory no longer holds; by the reader only.
    std::unique_ptr<spool::DiskReader> disk;
    // Durable mode: events read back from an earlier run's records.
    uint64_t replayed = 0;
  };

  // Links `event` to the newest entry of its entity if that entry is still
  // unread by every cursor accepting its type. Returns whether it did (then
  // `event` needs no entry of its own).
  bool TryCoalesce(const IncomingEvent& event, uint32_t crc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool UnreadByAll(uint64_t sequence, int32_t event_type) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The blocking cursor that taking `events` more entries of `bytes` more
  // bytes would make lose an unread entry (evictions are simulated from the
  // head), or null. Conservative: dedup and coalescing may need less room.
  const Cursor* BlockingCursorFor(uint64_t events, uint64_t bytes) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Durable mode, the same for the spool's bound: the blocking cursor that
  // would lose an unread entry if the spool took `record_bytes` more (its
  // writer would evict the segment holding it), or null.
  const Cursor* SpoolBlockingCursorFor(uint64_t record_bytes) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The blocking cursor that has not read an entry of `segment` of a type it
  // accepts, or null.
  const Cursor* BlockingCursorIn(const spool::SegmentInfo& segment) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  uint64_t EntryBytes(uint64_t sequence) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Pops the head entry (bookkeeping shared by eviction and release).
  void PopFront() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void EvictOldest() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Frees entries every cursor has passed.
  void ReleaseRead() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Frees the chunks of popped entries, but (durable mode) none holding a
  // record the spool has not reported durable.
  void ReleaseChunks() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Durable mode, while the spool is down under on_write_error: memory:
  // keeps the records not yet written within buffer.max_bytes by dropping
  // the oldest (evicting their entries first if memory still holds them);
  // each cursor that had not read one counts it as `overflow`. Never while
  // the writer may hold views of them (between CollectRecords and the next
  // OnDurable).
  void TrimPendingWhileDown() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Counts one event of the record (`sequence`, `event_type`) lost for each
  // cursor that had not read its entry.
  void CountLostRecord(uint64_t sequence, int32_t event_type) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Stores an accepted event (as a record in durable mode) under chunk tag
  // `tag`; returns where its payload is.
  const char* StoreEvent(const IncomingEvent& event, uint32_t crc, uint64_t sequence, uint8_t part,
                         uint64_t tag) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Append's work; `stream_end` is the record stream's end after it.
  absl::Status AppendEvents(std::span<const IncomingEvent> events, uint64_t& stream_end);
  const Entry& EntryAt(uint64_t sequence) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Durable mode: how far from `from` on the entries memory let go of are
  // readable from disk (written, and recovered if from an earlier run).
  uint64_t DiskReadableEnd(uint64_t from) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Read() for a cursor behind memory: from the segment files, outside the
  // lock (the disk reader is the cursor's own).
  ReadResult ReadFromDisk(Cursor& cursor, uint64_t from, uint64_t until, size_t max_events,
                          EventBatch& out);

  const Limits limits_;
  const EventMergerFactory merger_factory_;
  // What ingest's hash of an empty event_id is: such events have no identity
  // to deduplicate by.
  const uint64_t empty_id_hash_;
  mutable Mutex mutex_;
  DedupWindow dedup_ ABSL_GUARDED_BY(mutex_);
  // entity_key -> sequence of that entity's newest entry (maybe already read:
  // checked at merge time). At most one key per held entry.
  absl::flat_hash_map<uint64_t, uint64_t> newest_by_entity_ ABSL_GUARDED_BY(mutex_);
  // sequence -> bytes of the events coalesced into that entry after its
  // first, in received order. Only entries with event_count > 1 have one.
  // Inline room for two: a task's three reports need no allocation.
  absl::flat_hash_map<uint64_t, absl::InlinedVector<std::string_view, 2>> extra_parts_
      ABSL_GUARDED_BY(mutex_);
  std::vector<std::string_view> read_parts_ ABSL_GUARDED_BY(mutex_);  // Read's scratch
  ChunkStore chunks_ ABSL_GUARDED_BY(mutex_);
  std::deque<Entry> entries_ ABSL_GUARDED_BY(mutex_);
  uint64_t head_sequence_ ABSL_GUARDED_BY(mutex_) = 0;  // sequence of entries_.front()
  uint64_t held_bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t appended_events_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t deduplicated_events_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t coalesced_events_ ABSL_GUARDED_BY(mutex_) = 0;
  // unique_ptr keeps each Cursor's address stable for callbacks.
  std::vector<std::unique_ptr<Cursor>> cursors_ ABSL_GUARDED_BY(mutex_);
  bool any_blocking_ ABSL_GUARDED_BY(mutex_) = false;

  // Durable mode: the record stream the spool writer has not reported
  // durable yet, oldest first. `tag` is the chunk tag the record was stored
  // under (non-decreasing along the stream).
  struct StreamRecord {
    uint64_t end;  // stream position after the record
    uint64_t tag;
    uint64_t sequence;  // of the entry the record belongs to
    const char* data;
    uint32_t size;
  };
  spool::Spool* spool_ = nullptr;  // set by UseSpool before any use
  uint64_t first_sequence_ = 0;    // this run's first entry (UseSpool)
  std::deque<StreamRecord> pending_records_ ABSL_GUARDED_BY(mutex_);
  uint64_t pending_bytes_ ABSL_GUARDED_BY(mutex_) = 0;  // of pending_records_
  uint64_t stream_end_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t durable_ ABSL_GUARDED_BY(mutex_) = 0;
  // The writer collected views of pending records and has not reached its
  // next OnDurable (where it holds none): nothing pending may be dropped.
  bool collecting_ ABSL_GUARDED_BY(mutex_) = false;
  // Entries whose first record TrimPendingWhileDown dropped, with the stream
  // end then: a part record of theirs written later can never be read (a
  // reader meets parts through their entry's first record), so OnDurable
  // counts it lost too. Forgotten once the stream up to that end is durable.
  absl::flat_hash_map<uint64_t, uint64_t> dropped_heads_ ABSL_GUARDED_BY(mutex_);
  std::function<void()> release_listener_;  // set before sinks start
};

}  // namespace rayagg
