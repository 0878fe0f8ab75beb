// The bounded event log shared by every sink (ARCHITECTURE.md, "Event log").
//
// Events are held as their serialized bytes in a ChunkStore plus a 32-byte
// header each; never as parsed messages. Each sink reads through its own
// cursor, so a slow sink only loses its own unread events. Storage is bounded
// by events and by bytes; on overflow the oldest event is evicted and counted,
// per sink that had not read it and accepts its type (Ray's drop-oldest).
// An event is freed as soon as every cursor has passed it.
//
// Seams for later work: dedup (event_id_hash) and coalescing (entity_key) are
// carried in every header; Append is the one place they will act.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "buffer/chunk_store.h"
#include "buffer/event_batch.h"
#include "rayagg/drop_counters.h"
#include "rayagg/event_appender.h"
#include "rayagg/event_type_filter.h"

namespace rayagg {

class EventLog final : public EventAppender {
 public:
  struct Limits {
    uint64_t max_events;
    uint64_t max_bytes;
  };
  using CursorId = size_t;

  struct Snapshot {
    uint64_t held_events = 0;
    uint64_t held_bytes = 0;      // serialized event bytes
    uint64_t reserved_bytes = 0;  // chunk memory, including slack
    uint64_t appended_events = 0;
  };

  explicit EventLog(Limits limits, size_t chunk_bytes = ChunkStore::kDefaultChunkBytes);

  // Registers a reader. It starts at the newest end: it sees events appended
  // from now on. `on_available` is called (outside the lock, on the appending
  // thread) after an Append that added events this cursor accepts; it must be
  // cheap and must not call back into the log. `drops` must outlive the log.
  CursorId AddCursor(EventTypeFilter accepts, DropCounters& drops,
                     std::function<void()> on_available);

  // Stops a cursor: it no longer holds events, counts drops or gets
  // notified. Appends racing with this call may still invoke its callback
  // once; the owner must stop ingest before destroying what it captures.
  void RemoveCursor(CursorId cursor);

  absl::Status Append(std::span<const IncomingEvent> events) override;

  // Copies up to `max_events` unread events the cursor accepts into `out` and
  // moves the cursor past them (and past events it does not accept).
  // Returns the number of events added to `out`.
  size_t Read(CursorId cursor, size_t max_events, EventBatch& out);

  // Whether the cursor has unread events it accepts.
  bool HasUnread(CursorId cursor) const;

  Snapshot GetSnapshot() const;

 private:
  struct Entry {
    const char* data;
    uint32_t size;
    int32_t event_type;
    uint64_t event_id_hash;
    uint64_t entity_key;
  };
  struct Cursor {
    EventTypeFilter accepts;
    DropCounters* drops;
    std::function<void()> on_available;
    uint64_t next_sequence;  // sequence of the next unread entry
    bool removed = false;
  };

  void EvictOldest() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Frees entries every cursor has passed.
  void ReleaseRead() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  const Entry& EntryAt(uint64_t sequence) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const Limits limits_;
  mutable absl::Mutex mutex_;
  ChunkStore chunks_ ABSL_GUARDED_BY(mutex_);
  std::deque<Entry> entries_ ABSL_GUARDED_BY(mutex_);
  uint64_t head_sequence_ ABSL_GUARDED_BY(mutex_) = 0;  // sequence of entries_.front()
  uint64_t held_bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t appended_events_ ABSL_GUARDED_BY(mutex_) = 0;
  // unique_ptr keeps each Cursor's address stable for callbacks.
  std::vector<std::unique_ptr<Cursor>> cursors_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace rayagg
