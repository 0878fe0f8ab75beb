// The read side of the event log, as sinks see it: cursors, a wake-up when
// events arrive, reading, and releasing (docs/ARCHITECTURE.md, "Read seam").
//
// Every entry of the log has a position (its sequence). Reading does not
// release: a sink reads a batch, delivers or drops it, and only then releases
// the batch's position range. Ranges may be released in any order (several
// batches in flight, the halves of a 413 split); a cursor's released position
// is the end of its longest fully released prefix, so every event before it
// has been delivered or dropped by that sink. In memory that position is only
// reported; a disk spool persists it and resumes the sink there after a
// restart, and an object-store sink releases a range only once its object is
// uploaded.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "rayagg/drop_counters.h"
#include "rayagg/event_batch.h"
#include "rayagg/event_type_filter.h"

namespace rayagg {

// Log positions [begin, end).
struct PositionRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  bool empty() const { return begin == end; }
  uint64_t size() const { return end - begin; }
  friend bool operator==(const PositionRange&, const PositionRange&) = default;
};

class EventReader {
 public:
  using CursorId = size_t;

  struct ReadResult {
    size_t events = 0;  // events added to the batch
    // Positions the read moved the cursor over: the events added, events of
    // types the cursor does not accept, and events the log evicted before
    // the cursor reached them (already counted as overflow drops). A cursor's
    // reads tile its positions: each range begins where the previous one
    // ended, the first where the cursor started.
    PositionRange range;
  };

  virtual ~EventReader() = default;

  // Registers a reader at the newest end: it sees events appended from now
  // on, and its released position starts there. `on_available` is called
  // (outside any lock, on the appending thread) after an append that added
  // events this cursor accepts; it must be cheap and must not call back into
  // the reader. `drops` (where the reader counts this cursor's overflow and
  // too-large drops) must outlive the reader. Thread-safe.
  virtual CursorId AddCursor(EventTypeFilter accepts, DropCounters& drops,
                             std::function<void()> on_available) = 0;

  // Stops a cursor: it no longer holds events, counts drops or gets notified.
  // An append racing with this call may still invoke its callback once.
  virtual void RemoveCursor(CursorId cursor) = 0;

  // when_full: block — an append that would evict an event this cursor
  // accepts and has not read is refused as a whole (UNAVAILABLE naming
  // `sink_name`, one more in `refusals`). Both must outlive the reader.
  virtual void BlockWhenFull(CursorId cursor, std::string sink_name,
                             std::atomic<uint64_t>& refusals) = 0;

  // Which event types the cursor accepts from now on; its position stays.
  virtual void SetCursorFilter(CursorId cursor, EventTypeFilter accepts) = 0;

  // Whether the cursor has unread events it accepts. Thread-safe.
  virtual bool HasUnread(CursorId cursor) const = 0;

  // Copies up to `max_events` unread events the cursor accepts into `out`,
  // each with its position, and moves the cursor past them. Releases
  // nothing. One thread at a time per cursor.
  virtual ReadResult Read(CursorId cursor, size_t max_events, EventBatch& out) = 0;

  // Marks [begin, end) delivered or dropped by this cursor. Ranges may come
  // in any order; each position is released once. Returns false, changing
  // nothing, for a range that overlaps one released before or reaches past
  // what the cursor has read (a bug in the caller). An empty range is a
  // no-op. Thread-safe.
  virtual bool Release(CursorId cursor, uint64_t begin, uint64_t end) = 0;

  // The end of the cursor's longest fully released prefix. Thread-safe.
  virtual uint64_t ReleasedPosition(CursorId cursor) const = 0;

  // Whether released positions outlive the process (a disk spool): what a
  // sink has not delivered when its drain deadline passes is then neither
  // dropped nor released, and the next run delivers it.
  virtual bool KeepsUnsentAcrossRestarts() const { return false; }
};

}  // namespace rayagg
