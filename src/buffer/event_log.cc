#include "buffer/event_log.h"

#include <algorithm>
#include <limits>

namespace rayagg {

EventLog::EventLog(Limits limits, size_t chunk_bytes) : limits_(limits), chunks_(chunk_bytes) {}

EventLog::CursorId EventLog::AddCursor(EventTypeFilter accepts, DropCounters& drops,
                                       std::function<void()> on_available) {
  absl::MutexLock lock(&mutex_);
  const uint64_t tail = head_sequence_ + entries_.size();
  cursors_.push_back(std::make_unique<Cursor>(
      Cursor{accepts, &drops, std::move(on_available), tail}));
  return cursors_.size() - 1;
}

void EventLog::RemoveCursor(CursorId cursor_id) {
  absl::MutexLock lock(&mutex_);
  Cursor& cursor = *cursors_.at(cursor_id);
  cursor.removed = true;
  cursor.accepts = EventTypeFilter::None();
  cursor.on_available = nullptr;
  cursor.next_sequence = std::numeric_limits<uint64_t>::max();
  ReleaseRead();
}

absl::Status EventLog::Append(std::span<const IncomingEvent> events) {
  std::vector<std::function<void()>> to_notify;
  {
    absl::MutexLock lock(&mutex_);
    appended_events_ += events.size();
    std::vector<bool> notify(cursors_.size(), false);
    for (const IncomingEvent& event : events) {
      if (event.bytes.size() > limits_.max_bytes ||
          event.bytes.size() > std::numeric_limits<uint32_t>::max()) {
        for (auto& cursor : cursors_) {
          if (cursor->accepts.Accepts(event.event_type)) {
            cursor->drops->Add(DropReason::kTooLarge, event.event_type);
          }
        }
        continue;
      }
      while (!entries_.empty() && (entries_.size() + 1 > limits_.max_events ||
                                   held_bytes_ + event.bytes.size() > limits_.max_bytes)) {
        EvictOldest();
      }
      const uint64_t sequence = head_sequence_ + entries_.size();
      const char* data = chunks_.Store(event.bytes, sequence);
      entries_.push_back(Entry{data, static_cast<uint32_t>(event.bytes.size()), event.event_type,
                               event.event_id_hash, event.entity_key});
      held_bytes_ += event.bytes.size();
      for (size_t i = 0; i < cursors_.size(); ++i) {
        if (cursors_[i]->accepts.Accepts(event.event_type)) notify[i] = true;
      }
    }
    ReleaseRead();
    for (size_t i = 0; i < cursors_.size(); ++i) {
      if (notify[i] && cursors_[i]->on_available) to_notify.push_back(cursors_[i]->on_available);
    }
  }
  // Outside the lock: a callback may take its own locks or post to an executor.
  for (const auto& notify_cursor : to_notify) notify_cursor();
  return absl::OkStatus();
}

void EventLog::EvictOldest() {
  const Entry& oldest = entries_.front();
  for (auto& cursor : cursors_) {
    if (!cursor->removed && cursor->next_sequence <= head_sequence_) {
      if (cursor->accepts.Accepts(oldest.event_type)) {
        cursor->drops->Add(DropReason::kOverflow, oldest.event_type);
      }
      cursor->next_sequence = head_sequence_ + 1;
    }
  }
  held_bytes_ -= oldest.size;
  chunks_.ReleaseThrough(head_sequence_);
  entries_.pop_front();
  ++head_sequence_;
}

void EventLog::ReleaseRead() {
  uint64_t min_cursor = head_sequence_ + entries_.size();
  for (const auto& cursor : cursors_) {
    if (!cursor->removed) min_cursor = std::min(min_cursor, cursor->next_sequence);
  }
  if (min_cursor == head_sequence_) return;
  while (head_sequence_ < min_cursor) {
    held_bytes_ -= entries_.front().size;
    entries_.pop_front();
    ++head_sequence_;
  }
  chunks_.ReleaseThrough(head_sequence_ - 1);
}

const EventLog::Entry& EventLog::EntryAt(uint64_t sequence) const {
  return entries_[sequence - head_sequence_];
}

size_t EventLog::Read(CursorId cursor_id, size_t max_events, EventBatch& out) {
  absl::MutexLock lock(&mutex_);
  Cursor& cursor = *cursors_.at(cursor_id);
  const uint64_t tail = head_sequence_ + entries_.size();
  size_t added = 0;
  while (added < max_events && cursor.next_sequence < tail) {
    const Entry& entry = EntryAt(cursor.next_sequence);
    if (cursor.accepts.Accepts(entry.event_type)) {
      out.Add(entry.event_type, std::string_view(entry.data, entry.size));
      ++added;
    }
    ++cursor.next_sequence;
  }
  ReleaseRead();
  return added;
}

bool EventLog::HasUnread(CursorId cursor_id) const {
  absl::MutexLock lock(&mutex_);
  const Cursor& cursor = *cursors_.at(cursor_id);
  const uint64_t tail = head_sequence_ + entries_.size();
  for (uint64_t sequence = cursor.next_sequence; sequence < tail; ++sequence) {
    if (cursor.accepts.Accepts(EntryAt(sequence).event_type)) return true;
  }
  return false;
}

EventLog::Snapshot EventLog::GetSnapshot() const {
  absl::MutexLock lock(&mutex_);
  return Snapshot{entries_.size(), held_bytes_, chunks_.reserved_bytes(), appended_events_};
}

}  // namespace rayagg
