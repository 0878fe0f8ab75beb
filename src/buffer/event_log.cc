#include "buffer/event_log.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "spool/crc32c.h"
#include "spool/format.h"
#include "spool/spool.h"

namespace rayagg {

EventLog::EventLog(Limits limits) : EventLog(limits, Options{}) {}

EventLog::EventLog(Limits limits, Options options, size_t chunk_bytes)
    : limits_(limits),
      merger_factory_(std::move(options.merger_factory)),
      empty_id_hash_(HashEventId({})),
      dedup_(static_cast<size_t>(options.dedup_window_events)),
      chunks_(chunk_bytes) {}

EventLog::CursorId EventLog::AddCursor(EventTypeFilter accepts, DropCounters& drops,
                                       std::function<void()> on_available) {
  MutexLock lock(mutex_);
  const uint64_t tail = head_sequence_ + entries_.size();
  cursors_.push_back(
      std::make_unique<Cursor>(Cursor{.accepts = accepts,
                                      .drops = &drops,
                                      .on_available = std::move(on_available),
                                      .next_sequence = tail,
                                      .read_end = tail,
                                      .released = ReleaseTracker(tail),
                                      .merger = merger_factory_ ? merger_factory_() : nullptr,
                                      .sink_name = {},
                                      .disk = nullptr}));
  return cursors_.size() - 1;
}

void EventLog::SetCursorFilter(CursorId cursor_id, EventTypeFilter accepts) {
  MutexLock lock(mutex_);
  Cursor& cursor = *cursors_.at(cursor_id);
  if (!cursor.removed) cursor.accepts = std::move(accepts);
}

void EventLog::RemoveCursor(CursorId cursor_id) {
  MutexLock lock(mutex_);
  Cursor& cursor = *cursors_.at(cursor_id);
  cursor.removed = true;
  cursor.accepts = EventTypeFilter::None();
  cursor.on_available = nullptr;
  cursor.next_sequence = std::numeric_limits<uint64_t>::max();
  ReleaseRead();
}

void EventLog::BlockWhenFull(CursorId cursor_id, std::string sink_name,
                             std::atomic<uint64_t>& refusals) {
  MutexLock lock(mutex_);
  Cursor& cursor = *cursors_.at(cursor_id);
  cursor.blocks = true;
  cursor.sink_name = std::move(sink_name);
  cursor.refusals = &refusals;
  any_blocking_ = true;
}

uint64_t EventLog::EntryBytes(uint64_t sequence) const {
  const Entry& entry = EntryAt(sequence);
  uint64_t bytes = entry.size;
  if (entry.event_count > 1) {
    for (const std::string_view part : extra_parts_.at(sequence)) bytes += part.size();
  }
  return bytes;
}

const EventLog::Cursor* EventLog::BlockingCursorFor(uint64_t events, uint64_t bytes) const {
  // How many head entries Append would evict to make room.
  const uint64_t held = entries_.size();
  const uint64_t over_events =
      held + events > limits_.max_events ? held + events - limits_.max_events : 0;
  const uint64_t over_bytes =
      held_bytes_ + bytes > limits_.max_bytes ? held_bytes_ + bytes - limits_.max_bytes : 0;
  uint64_t evicted = 0;
  uint64_t freed = 0;
  while (evicted < held && (evicted < over_events || freed < over_bytes)) {
    freed += EntryBytes(head_sequence_ + evicted);
    ++evicted;
  }
  if (evicted == 0) return nullptr;
  for (const auto& cursor : cursors_) {
    if (!cursor->blocks || cursor->removed) continue;
    for (uint64_t sequence = std::max(cursor->next_sequence, head_sequence_);
         sequence < head_sequence_ + evicted; ++sequence) {
      if (cursor->accepts.Accepts(EntryAt(sequence).event_type)) return cursor.get();
    }
  }
  return nullptr;
}

const EventLog::Cursor* EventLog::BlockingCursorIn(const spool::SegmentInfo& segment) const {
  if (!segment.has_entries) return nullptr;
  for (const auto& cursor : cursors_) {
    if (!cursor->blocks || cursor->removed || cursor->next_sequence > segment.last_entry) continue;
    // Types 0-62 have a bit each; bit 63 stands for every other number,
    // which no filter lists: accepted only by a filter of all types.
    bool accepts = cursor->accepts.accepts_all();
    for (int32_t type = 0; type < 63 && !accepts; ++type) {
      accepts = (segment.type_mask & spool::TypeBit(type)) != 0 && cursor->accepts.Accepts(type);
    }
    if (accepts) return cursor.get();
  }
  return nullptr;
}

const EventLog::Cursor* EventLog::SpoolBlockingCursorFor(uint64_t record_bytes) const {
  for (const spool::SegmentInfo& segment : spool_->SegmentsToEvictFor(stream_end_, record_bytes)) {
    if (const Cursor* blocking = BlockingCursorIn(segment)) return blocking;
  }
  return nullptr;
}

bool EventLog::MayEvictSegment(const spool::SegmentInfo& segment) const {
  MutexLock lock(mutex_);
  return !any_blocking_ || BlockingCursorIn(segment) == nullptr;
}

std::optional<std::string> EventLog::FullBlockingSink() const {
  MutexLock lock(mutex_);
  if (!any_blocking_) return std::nullopt;
  const Cursor* blocking = spool_ != nullptr ? SpoolBlockingCursorFor(spool::kRecordHeaderBytes + 1)
                                             : BlockingCursorFor(1, 1);
  if (blocking == nullptr) return std::nullopt;
  return blocking->sink_name;
}

void EventLog::UseSpool(spool::Spool& spool, uint64_t first_sequence) {
  MutexLock lock(mutex_);
  spool_ = &spool;
  first_sequence_ = first_sequence;
  head_sequence_ = first_sequence;
}

void EventLog::ResumeCursor(CursorId cursor_id, uint64_t position) {
  MutexLock lock(mutex_);
  Cursor& cursor = *cursors_.at(cursor_id);
  if (spool_ == nullptr || position >= cursor.next_sequence) return;
  cursor.next_sequence = position;
  cursor.read_end = position;
  cursor.released = ReleaseTracker(position);
}

void EventLog::NotifyAll() {
  std::vector<std::function<void()>> to_notify;
  {
    MutexLock lock(mutex_);
    for (const auto& cursor : cursors_) {
      if (cursor->on_available) to_notify.push_back(cursor->on_available);
    }
  }
  for (const auto& notify_cursor : to_notify) notify_cursor();
}

void EventLog::OnSegmentEvicted(const spool::SegmentInfo& segment) {
  if (spool_ == nullptr || !segment.has_entries) return;
  const uint64_t end = segment.last_entry + 1;
  struct Behind {
    Cursor* cursor;
    uint64_t from;
    EventTypeFilter accepts;
  };
  std::vector<Behind> behind;
  {
    MutexLock lock(mutex_);
    for (const auto& cursor : cursors_) {
      if (!cursor->removed && cursor->next_sequence < end) {
        behind.push_back(
            {cursor.get(), std::max(cursor->next_sequence, segment.first_entry), cursor->accepts});
      }
    }
  }
  for (Behind& each : behind) {
    // What the cursor loses, by type, read from the segment before it goes.
    spool::DiskReader reader(spool_->file_system(), spool_->segments());
    std::vector<std::pair<int32_t, uint64_t>> lost;
    for (uint64_t from = each.from; from < end;) {
      const spool::DiskReadResult result =
          reader.Read(from, end, 4096, each.accepts, [&](const spool::DiskEntry& entry) {
            lost.emplace_back(entry.event_type, entry.parts.size());
          });
      if (result.next <= from) break;
      from = result.next;
    }
    MutexLock lock(mutex_);
    Cursor& cursor = *each.cursor;
    if (cursor.removed || cursor.next_sequence >= end) continue;  // read meanwhile
    for (const auto& [type, count] : lost) cursor.drops->Add(DropReason::kOverflow, type, count);
    // Its next read range covers the evicted entries, so the sink releases them.
    cursor.next_sequence = end;
  }
}

void EventLog::RememberIds(std::span<const uint64_t> id_hashes) {
  MutexLock lock(mutex_);
  for (const uint64_t id_hash : id_hashes) {
    if (id_hash != 0 && id_hash != empty_id_hash_ && !dedup_.Contains(id_hash)) {
      dedup_.Remember(id_hash);
    }
  }
}

uint64_t EventLog::DiskReadableEnd(uint64_t from) const {
  // While recovery scans the earlier run's segments they are not readable:
  // a cursor resumed there waits (NotifyAll wakes it).
  if (from < first_sequence_ && spool_->recovering()) return from;
  uint64_t end = head_sequence_;
  if (!pending_records_.empty()) end = std::min(end, pending_records_.front().sequence);
  return end;
}

void EventLog::SetReleaseListener(std::function<void()> listener) {
  release_listener_ = std::move(listener);
}

absl::Status EventLog::Append(std::span<const IncomingEvent> events) {
  uint64_t stream_end = 0;
  absl::Status status = AppendEvents(events, stream_end);
  // Written all the same; only nobody waits for it.
  if (status.ok() && spool_ != nullptr) spool_->Submit(stream_end, [](absl::Status) {});
  return status;
}

void EventLog::AppendAsync(std::span<const IncomingEvent> events, AppendDone done) {
  if (spool_ == nullptr) {
    done(Append(events));
    return;
  }
  // Refused before anything is held: a sender that retries is not taken for
  // a duplicate of events that were never written.
  if (spool_->health() == spool::SpoolHealth::kRefusing) {
    done(absl::UnavailableError(
        "the spool cannot write (spool.on_write_error: refuse); nothing was accepted, retry "
        "later"));
    return;
  }
  uint64_t stream_end = 0;
  absl::Status status = AppendEvents(events, stream_end);
  if (!status.ok()) {
    done(std::move(status));
    return;
  }
  spool_->Submit(stream_end, std::move(done));
}

absl::Status EventLog::AppendEvents(std::span<const IncomingEvent> events, uint64_t& stream_end) {
  // Record checksums before the lock: only what is kept needs one, but
  // computing them all here keeps the lock's hold short.
  absl::InlinedVector<uint32_t, 16> crcs;
  if (spool_ != nullptr) {
    crcs.reserve(events.size());
    for (const IncomingEvent& event : events) crcs.push_back(spool::Crc32c(event.bytes));
  }
  std::vector<std::function<void()>> to_notify;
  {
    MutexLock lock(mutex_);
    stream_end = stream_end_;
    // With a spool, memory letting go of an entry loses nothing (the sink
    // reads it from disk): a blocking sink is full when the spool would
    // have to evict a segment holding what it has not read.
    if (any_blocking_) {
      uint64_t bytes = 0;
      for (const IncomingEvent& event : events) {
        bytes += event.bytes.size() + (spool_ != nullptr ? spool::kRecordHeaderBytes : 0);
      }
      const Cursor* blocking = spool_ != nullptr ? SpoolBlockingCursorFor(bytes)
                                                 : BlockingCursorFor(events.size(), bytes);
      if (blocking != nullptr) {
        blocking->refusals->fetch_add(1, std::memory_order_relaxed);
        return absl::UnavailableError("sink \"" + blocking->sink_name +
                                      "\" is full (when_full: block" +
                                      (spool_ != nullptr ? ", spool.max_bytes" : "") +
                                      "): nothing was accepted, retry later");
      }
    }
    appended_events_ += events.size();
    std::vector<bool> notify(cursors_.size(), false);
    for (size_t index = 0; index < events.size(); ++index) {
      const IncomingEvent& event = events[index];
      const uint32_t crc = crcs.empty() ? 0 : crcs[index];
      // Dedup before the size check: a re-sent event is a duplicate whatever
      // its size. Only accepted events enter the window.
      const bool has_id = event.event_id_hash != 0 && event.event_id_hash != empty_id_hash_;
      if (has_id && dedup_.Contains(event.event_id_hash)) {
        ++deduplicated_events_;
        continue;
      }
      if (event.bytes.size() > limits_.max_bytes ||
          event.bytes.size() > std::numeric_limits<uint32_t>::max() ||
          (spool_ != nullptr && event.bytes.size() > spool::kMaxRecordPayload)) {
        for (auto& cursor : cursors_) {
          if (cursor->accepts.Accepts(event.event_type)) {
            cursor->drops->Add(DropReason::kTooLarge, event.event_type);
          }
        }
        continue;
      }
      if (has_id) dedup_.Remember(event.event_id_hash);
      for (size_t i = 0; i < cursors_.size(); ++i) {
        if (cursors_[i]->accepts.Accepts(event.event_type)) notify[i] = true;
      }
      if (TryCoalesce(event, crc)) continue;
      while (!entries_.empty() && (entries_.size() + 1 > limits_.max_events ||
                                   held_bytes_ + event.bytes.size() > limits_.max_bytes)) {
        EvictOldest();
      }
      const uint64_t sequence = head_sequence_ + entries_.size();
      const char* data = StoreEvent(event, crc, sequence, /*part=*/0, sequence);
      entries_.push_back(Entry{data, static_cast<uint32_t>(event.bytes.size()), event.event_type,
                               event.entity_key, 1});
      held_bytes_ += event.bytes.size();
      if (merger_factory_ && event.entity_key != 0) {
        newest_by_entity_[event.entity_key] = sequence;
      }
    }
    ReleaseRead();
    TrimPendingWhileDown();
    for (size_t i = 0; i < cursors_.size(); ++i) {
      if (notify[i] && cursors_[i]->on_available) to_notify.push_back(cursors_[i]->on_available);
    }
    stream_end = stream_end_;
  }
  // Outside the lock: a callback may take its own locks or post to an executor.
  for (const auto& notify_cursor : to_notify) notify_cursor();
  return absl::OkStatus();
}

bool EventLog::UnreadByAll(uint64_t sequence, int32_t event_type) const {
  for (const auto& cursor : cursors_) {
    // A removed cursor accepts nothing.
    if (cursor->accepts.Accepts(event_type) && cursor->next_sequence > sequence) return false;
  }
  return true;
}

const char* EventLog::StoreEvent(const IncomingEvent& event, uint32_t crc, uint64_t sequence,
                                 uint8_t part, uint64_t tag) {
  if (spool_ == nullptr) return chunks_.Store(event.bytes, tag);
  char header[spool::kRecordHeaderBytes];
  spool::EncodeRecordHeader(crc, static_cast<uint32_t>(event.bytes.size()), sequence,
                            event.event_type, part, header);
  const char* record = chunks_.Store(std::string_view(header, sizeof header), event.bytes, tag);
  const auto size = static_cast<uint32_t>(sizeof header + event.bytes.size());
  stream_end_ += size;
  pending_records_.push_back(StreamRecord{stream_end_, tag, sequence, record, size});
  pending_bytes_ += size;
  return record + sizeof header;
}

bool EventLog::TryCoalesce(const IncomingEvent& event, uint32_t crc) {
  if (!merger_factory_ || event.entity_key == 0) return false;
  const auto it = newest_by_entity_.find(event.entity_key);
  if (it == newest_by_entity_.end()) return false;
  const uint64_t sequence = it->second;
  const Entry& target = EntryAt(sequence);
  // Keys include the payload kind, but a malformed event could carry a
  // payload that does not match its type: never merge across types. A
  // cursor that has read the entry (or was added after it, and so would
  // never see it) would miss what is merged in.
  if (target.event_type != event.event_type || target.event_count >= kMaxPartsPerEntry ||
      !UnreadByAll(sequence, event.event_type)) {
    return false;
  }
  // The part takes bytes like an append would: make room first. That may
  // evict the target itself; then the event gets an entry of its own.
  while (!entries_.empty() && held_bytes_ + event.bytes.size() > limits_.max_bytes) {
    EvictOldest();
  }
  if (sequence < head_sequence_) return false;
  // Stored under the newest sequence held (>= the target's): chunks are
  // released by sequence, so these bytes live at least as long as the entry.
  const uint64_t newest = head_sequence_ + entries_.size() - 1;
  // Its record carries the entry's sequence, so a released position covers it.
  const auto part = static_cast<uint8_t>(entries_[sequence - head_sequence_].event_count);
  const char* data = StoreEvent(event, crc, sequence, part, newest);
  extra_parts_[sequence].emplace_back(data, event.bytes.size());
  ++entries_[sequence - head_sequence_].event_count;
  held_bytes_ += event.bytes.size();
  ++coalesced_events_;
  return true;
}

void EventLog::PopFront() {
  const Entry& front = entries_.front();
  held_bytes_ -= EntryBytes(head_sequence_);
  if (front.event_count > 1) extra_parts_.erase(head_sequence_);
  if (front.entity_key != 0 && merger_factory_) {
    const auto it = newest_by_entity_.find(front.entity_key);
    if (it != newest_by_entity_.end() && it->second == head_sequence_) newest_by_entity_.erase(it);
  }
  entries_.pop_front();
  ++head_sequence_;
}

void EventLog::EvictOldest() {
  const Entry& oldest = entries_.front();
  // Durable mode: memory is a cache, and cursors behind it read the disk.
  for (auto& cursor : cursors_) {
    if (spool_ == nullptr && !cursor->removed && cursor->next_sequence <= head_sequence_) {
      if (cursor->accepts.Accepts(oldest.event_type)) {
        cursor->drops->Add(DropReason::kOverflow, oldest.event_type, oldest.event_count);
      }
      cursor->next_sequence = head_sequence_ + 1;
    }
  }
  PopFront();
  ReleaseChunks();
}

void EventLog::ReleaseRead() {
  uint64_t min_cursor = head_sequence_ + entries_.size();
  for (const auto& cursor : cursors_) {
    if (!cursor->removed) min_cursor = std::min(min_cursor, cursor->next_sequence);
  }
  if (min_cursor == head_sequence_) return;
  while (head_sequence_ < min_cursor) PopFront();
  ReleaseChunks();
}

void EventLog::ReleaseChunks() {
  if (head_sequence_ == 0) return;
  uint64_t through = head_sequence_ - 1;
  if (!pending_records_.empty()) {
    // Chunks are tagged in stream order: those before the oldest pending
    // record's tag hold no pending record.
    const uint64_t tag = pending_records_.front().tag;
    if (tag == 0) return;
    through = std::min(through, tag - 1);
  }
  chunks_.ReleaseThrough(through);
}

void EventLog::CountLostRecord(uint64_t sequence, int32_t event_type) {
  for (auto& cursor : cursors_) {
    if (!cursor->removed && cursor->next_sequence <= sequence &&
        cursor->accepts.Accepts(event_type)) {
      cursor->drops->Add(DropReason::kOverflow, event_type);
    }
  }
}

void EventLog::TrimPendingWhileDown() {
  if (spool_ == nullptr || collecting_ || spool_->health() != spool::SpoolHealth::kMemory) return;
  while (pending_bytes_ > limits_.max_bytes && !pending_records_.empty()) {
    const StreamRecord& oldest = pending_records_.front();
    if (oldest.sequence >= head_sequence_) {
      // Memory still holds its entry (whose bytes these are): let go of the
      // oldest entries first; cursors that had not read them count the
      // loss as their records go below.
      if (entries_.empty()) break;
      PopFront();
      continue;
    }
    spool::RecordHeader header;
    spool::ParseRecordHeader(std::string_view(oldest.data, spool::kRecordHeaderBytes), header);
    CountLostRecord(oldest.sequence, header.event_type);
    if (header.part == 0) dropped_heads_[oldest.sequence] = stream_end_;
    pending_bytes_ -= oldest.size;
    pending_records_.pop_front();
  }
  ReleaseChunks();
}

uint64_t EventLog::CollectRecords(uint64_t from, uint64_t to, uint64_t max_bytes,
                                  std::vector<std::string_view>& pieces) {
  MutexLock lock(mutex_);
  collecting_ = true;
  auto it = std::upper_bound(
      pending_records_.begin(), pending_records_.end(), from,
      [](uint64_t position, const StreamRecord& record) { return position < record.end; });
  uint64_t first = to;
  uint64_t collected = 0;
  const size_t first_piece = pieces.size();
  for (; it != pending_records_.end() && collected < max_bytes; ++it) {
    const uint64_t begin = it->end - it->size;
    if (begin >= to) break;
    if (first == to) first = begin;
    // Records stored back to back in one chunk go out as one piece.
    if (pieces.size() > first_piece && pieces.back().data() + pieces.back().size() == it->data) {
      pieces.back() = std::string_view(pieces.back().data(), pieces.back().size() + it->size);
    } else {
      pieces.emplace_back(it->data, it->size);
    }
    collected += it->size;
  }
  return first;
}

void EventLog::OnDurable(uint64_t position) {
  std::vector<std::function<void()>> to_notify;
  {
    MutexLock lock(mutex_);
    // The writer calls this after each pass, holding no views any more.
    collecting_ = false;
    if (position <= durable_) return;
    durable_ = position;
    while (!pending_records_.empty() && pending_records_.front().end <= position) {
      const StreamRecord& record = pending_records_.front();
      if (!dropped_heads_.empty() && dropped_heads_.contains(record.sequence)) {
        // A part of an entry whose first record was dropped: on disk, but
        // no reader can reach it.
        spool::RecordHeader header;
        spool::ParseRecordHeader(std::string_view(record.data, spool::kRecordHeaderBytes), header);
        CountLostRecord(record.sequence, header.event_type);
      }
      pending_bytes_ -= record.size;
      pending_records_.pop_front();
    }
    for (auto it = dropped_heads_.begin(); it != dropped_heads_.end();) {
      if (it->second <= position) {
        dropped_heads_.erase(it++);
      } else {
        ++it;
      }
    }
    ReleaseChunks();
    // Cursors behind memory may now read more from disk.
    for (const auto& cursor : cursors_) {
      if (cursor->on_available && cursor->next_sequence < head_sequence_) {
        to_notify.push_back(cursor->on_available);
      }
    }
  }
  for (const auto& notify_cursor : to_notify) notify_cursor();
}

uint64_t EventLog::PendingRecordBytes() const {
  MutexLock lock(mutex_);
  return pending_bytes_;
}

const EventLog::Entry& EventLog::EntryAt(uint64_t sequence) const {
  return entries_[sequence - head_sequence_];
}

EventReader::ReadResult EventLog::ReadFromDisk(Cursor& cursor, uint64_t from, uint64_t until,
                                               size_t max_events, EventBatch& out) {
  const size_t first = out.size();
  if (!cursor.disk) {
    cursor.disk = std::make_unique<spool::DiskReader>(spool_->file_system(), spool_->segments());
  }
  EventTypeFilter accepts = EventTypeFilter::None();
  {
    MutexLock lock(mutex_);
    accepts = cursor.accepts;
  }
  bool has_parts = false;
  uint64_t replayed = 0;
  const spool::DiskReadResult result =
      cursor.disk->Read(from, until, max_events, accepts, [&](const spool::DiskEntry& entry) {
        if (entry.sequence < first_sequence_) replayed += entry.parts.size();
        if (entry.parts.size() == 1) {
          out.Add(entry.sequence, entry.event_type, entry.parts[0]);
        } else if (cursor.merger) {
          out.AddParts(entry.sequence, entry.event_type, entry.parts);
          has_parts = true;
        } else {
          // Coalesced by an earlier run, read by one without coalescing.
          for (const std::string_view part : entry.parts) {
            out.Add(entry.sequence, entry.event_type, part);
          }
        }
      });
  if (has_parts) out.MergeParts(first, *cursor.merger);
  PositionRange range;
  {
    MutexLock lock(mutex_);
    const uint64_t lost = result.lost_entries + result.lost_parts + result.lost_segments;
    if (lost > 0) {
      // Their types are unknown: the bytes that said them are damaged.
      cursor.drops->Add(DropReason::kCorrupt, DropCounters::kUntrackedEventType, lost);
    }
    if (!cursor.removed) {
      cursor.replayed += replayed;
      cursor.next_sequence = std::max(cursor.next_sequence, std::min(result.next, until));
      range = PositionRange{cursor.read_end, cursor.next_sequence};
      cursor.read_end = cursor.next_sequence;
    }
    ReleaseRead();
  }
  return ReadResult{out.size() - first, range};
}

EventReader::ReadResult EventLog::Read(CursorId cursor_id, size_t max_events, EventBatch& out) {
  if (spool_ != nullptr) {
    Cursor* behind = nullptr;
    uint64_t from = 0;
    uint64_t until = 0;
    {
      MutexLock lock(mutex_);
      Cursor* candidate = cursors_.at(cursor_id).get();
      if (!candidate->removed && candidate->next_sequence < head_sequence_) {
        from = candidate->next_sequence;
        until = DiskReadableEnd(from);
        // Not on disk yet (or still being recovered): nothing to read now.
        if (from >= until) return ReadResult{0, {candidate->read_end, candidate->read_end}};
        behind = candidate;
      }
    }
    if (behind != nullptr) return ReadFromDisk(*behind, from, until, max_events, out);
  }
  const size_t first = out.size();
  size_t added = 0;  // entries read
  bool has_parts = false;
  Cursor* cursor = nullptr;
  PositionRange range;
  {
    MutexLock lock(mutex_);
    cursor = cursors_.at(cursor_id).get();
    const uint64_t tail = head_sequence_ + entries_.size();
    while (added < max_events && cursor->next_sequence < tail) {
      const Entry& entry = EntryAt(cursor->next_sequence);
      if (cursor->accepts.Accepts(entry.event_type)) {
        const std::string_view bytes(entry.data, entry.size);
        if (entry.event_count == 1) {
          out.Add(cursor->next_sequence, entry.event_type, bytes);
        } else {
          const auto& extra = extra_parts_.at(cursor->next_sequence);
          read_parts_.assign(1, bytes);
          read_parts_.insert(read_parts_.end(), extra.begin(), extra.end());
          out.AddParts(cursor->next_sequence, entry.event_type, read_parts_);
          has_parts = true;
        }
        ++added;
      }
      ++cursor->next_sequence;
    }
    if (!cursor->removed) {
      range = PositionRange{cursor->read_end, cursor->next_sequence};
      cursor->read_end = cursor->next_sequence;
    }
    ReleaseRead();
  }
  // The parts were copied into `out`: merge them without holding up ingest.
  // A merge the merger refuses leaves its parts as separate events.
  if (has_parts) out.MergeParts(first, *cursor->merger);
  return ReadResult{out.size() - first, range};
}

bool EventLog::Release(CursorId cursor_id, uint64_t begin, uint64_t end) {
  bool moved = false;
  bool accepted = false;
  {
    MutexLock lock(mutex_);
    Cursor& cursor = *cursors_.at(cursor_id);
    if (cursor.removed || end > cursor.read_end) return false;
    const uint64_t before = cursor.released.released();
    const ReleaseTracker::Result result = cursor.released.Release(begin, end);
    accepted =
        result == ReleaseTracker::Result::kReleased || result == ReleaseTracker::Result::kEmpty;
    moved = cursor.released.released() != before;
  }
  if (moved && release_listener_) release_listener_();
  return accepted;
}

uint64_t EventLog::ReleasedPosition(CursorId cursor_id) const {
  MutexLock lock(mutex_);
  return cursors_.at(cursor_id)->released.released();
}

uint64_t EventLog::ReplayedEvents(CursorId cursor_id) const {
  MutexLock lock(mutex_);
  return cursors_.at(cursor_id)->replayed;
}

bool EventLog::HasUnread(CursorId cursor_id) const {
  MutexLock lock(mutex_);
  const Cursor& cursor = *cursors_.at(cursor_id);
  if (spool_ != nullptr && !cursor.removed && cursor.next_sequence < head_sequence_) {
    return cursor.next_sequence < DiskReadableEnd(cursor.next_sequence);
  }
  const uint64_t tail = head_sequence_ + entries_.size();
  for (uint64_t sequence = cursor.next_sequence; sequence < tail; ++sequence) {
    if (cursor.accepts.Accepts(EntryAt(sequence).event_type)) return true;
  }
  return false;
}

EventLog::Snapshot EventLog::GetSnapshot() const {
  MutexLock lock(mutex_);
  return Snapshot{
      entries_.size(),      held_bytes_,       chunks_.reserved_bytes(),        appended_events_,
      deduplicated_events_, coalesced_events_, head_sequence_ + entries_.size()};
}

}  // namespace rayagg
