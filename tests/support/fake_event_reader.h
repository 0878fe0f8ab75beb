// An in-memory EventReader with scripted events, for tests of code that reads
// through the seam (the batcher) without an event log. Positions count up
// from `first_position`; releases go through the real ReleaseTracker and are
// also recorded in the order they came. One thread; header-only, so a test
// links only what it already uses (rayagg_buffer).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "buffer/release_tracker.h"
#include "rayagg/event_reader.h"

namespace rayagg {

class FakeEventReader final : public EventReader {
 public:
  struct Event {
    uint64_t position;
    int32_t type;
    std::string bytes;
    uint32_t received;
  };

  explicit FakeEventReader(uint64_t first_position = 0) : end_position_(first_position) {}

  // Appends an event at the next position and returns that position.
  uint64_t Append(int32_t type, std::string bytes, uint32_t received = 1) {
    events_.push_back(Event{end_position_, type, std::move(bytes), received});
    Notify(type);
    return end_position_++;
  }
  // Appends another event at the last event's position, as the log returns
  // the parts of a coalesced entry whose merge was refused.
  void AppendAtLastPosition(int32_t type, std::string bytes) {
    events_.push_back(Event{end_position_ - 1, type, std::move(bytes), 1});
    Notify(type);
  }

  CursorId AddCursor(EventTypeFilter accepts, DropCounters& /*drops*/,
                     std::function<void()> on_available) override {
    cursors_.push_back(Cursor{accepts, std::move(on_available), events_.size(), end_position_,
                              ReleaseTracker(end_position_)});
    return cursors_.size() - 1;
  }
  void RemoveCursor(CursorId cursor) override { cursors_.at(cursor).removed = true; }
  void BlockWhenFull(CursorId, std::string, std::atomic<uint64_t>&) override {}
  void SetCursorFilter(CursorId cursor, EventTypeFilter accepts) override {
    cursors_.at(cursor).accepts = accepts;
  }
  bool HasUnread(CursorId cursor_id) const override {
    const Cursor& cursor = cursors_.at(cursor_id);
    for (size_t i = cursor.next; i < events_.size(); ++i) {
      if (cursor.accepts.Accepts(events_[i].type)) return true;
    }
    return false;
  }

  // Like the log, counts entries (positions) against `max_events` and never
  // stops between events sharing a position.
  ReadResult Read(CursorId cursor_id, size_t max_events, EventBatch& out) override {
    Cursor& cursor = cursors_.at(cursor_id);
    ++reads_;
    ReadResult result;
    size_t entries = 0;
    while (entries < max_events && cursor.next < events_.size()) {
      const uint64_t position = events_[cursor.next].position;
      bool accepted = false;
      for (; cursor.next < events_.size() && events_[cursor.next].position == position;
           ++cursor.next) {
        const Event& event = events_[cursor.next];
        if (!cursor.accepts.Accepts(event.type)) continue;
        out.Add(event.position, event.type, event.bytes, event.received);
        ++result.events;
        accepted = true;
      }
      if (accepted) ++entries;
    }
    const uint64_t end =
        cursor.next < events_.size() ? events_[cursor.next].position : end_position_;
    result.range = PositionRange{cursor.read_end, end};
    cursor.read_end = end;
    return result;
  }

  bool Release(CursorId cursor_id, uint64_t begin, uint64_t end) override {
    Cursor& cursor = cursors_.at(cursor_id);
    if (cursor.removed || end > cursor.read_end) return false;
    const ReleaseTracker::Result result = cursor.released.Release(begin, end);
    if (result == ReleaseTracker::Result::kReleased) releases_.push_back({begin, end});
    return result == ReleaseTracker::Result::kReleased || result == ReleaseTracker::Result::kEmpty;
  }
  uint64_t ReleasedPosition(CursorId cursor) const override {
    return cursors_.at(cursor).released.released();
  }

  // Accepted non-empty releases, in order.
  const std::vector<PositionRange>& releases() const { return releases_; }
  size_t reads() const { return reads_; }
  uint64_t end_position() const { return end_position_; }

 private:
  struct Cursor {
    EventTypeFilter accepts;
    std::function<void()> on_available;
    size_t next;        // index into events_ of the next unread event
    uint64_t read_end;  // where the last read ended
    ReleaseTracker released;
    bool removed = false;
  };

  void Notify(int32_t type) {
    for (const Cursor& cursor : cursors_) {
      if (!cursor.removed && cursor.on_available && cursor.accepts.Accepts(type)) {
        cursor.on_available();
      }
    }
  }

  std::vector<Event> events_;
  uint64_t end_position_;
  std::vector<Cursor> cursors_;
  std::vector<PositionRange> releases_;
  size_t reads_ = 0;
};

}  // namespace rayagg
