#include "sinks/batcher.h"

#include <algorithm>
#include <utility>

namespace rayagg {

Batcher::Batcher(EventReader& reader, EventReader::CursorId cursor, BatchConfig config,
                 std::unique_ptr<EventJsonEncoder> encoder, DropCounters& drops)
    : reader_(reader),
      cursor_(cursor),
      config_(config),
      encoder_(std::move(encoder)),
      drops_(drops) {}

void Batcher::Reconfigure(BatchConfig config, std::unique_ptr<EventJsonEncoder> encoder) {
  config_ = config;
  encoder_ = std::move(encoder);
}

void Batcher::Read(size_t max_events, EventBatch& out) {
  const EventReader::ReadResult read = reader_.Read(cursor_, max_events, out);
  if (!positioned_) {
    positioned_ = true;
    cut_ = read.range.begin;
  }
  read_end_ = read.range.end;
}

void Batcher::ReleaseUpTo(uint64_t end) {
  if (!positioned_ || end <= cut_) return;
  reader_.Release(cursor_, cut_, end);
  cut_ = end;
}

void Batcher::Refill() {
  if (staged_next_ > 0 && staged_next_ < staged_.size()) {
    // Events left over after a body hit batch.max_bytes: keep them in front.
    EventBatch rest;
    for (size_t i = staged_next_; i < staged_.size(); ++i) {
      rest.Add(staged_.position(i), staged_.event_type(i), staged_.bytes(i),
               staged_.received_count(i));
    }
    staged_ = std::move(rest);
    staged_next_ = 0;
  } else if (staged_next_ == staged_.size()) {
    staged_.Clear();
    staged_next_ = 0;
  }
  const size_t want = config_.max_events - std::min<size_t>(config_.max_events, staged_count());
  if (want == 0) return;
  Read(want, staged_);
  // The read passed only events this cursor skips (or lost to overflow):
  // no batch will carry those positions, so they are released now.
  if (staged_count() == 0) ReleaseUpTo(read_end_);
}

OutgoingBatch Batcher::Encode(EncodeDrops& dropped) {
  OutgoingBatch batch;
  if (!spares_.empty()) {
    batch = std::move(spares_.back());
    spares_.pop_back();
  }
  std::string& body = batch.body;
  full_by_bytes_ = false;
  body.reserve(std::min<size_t>(config_.max_bytes, staged_.byte_size() * 2 + 2));
  body.push_back('[');
  while (staged_next_ < staged_.size() && batch.size() < config_.max_events) {
    const size_t mark = body.size();
    const int32_t type = staged_.event_type(staged_next_);
    const uint32_t received = staged_.received_count(staged_next_);
    if (batch.size() > 0) body.push_back(',');
    const size_t begin = body.size();
    if (absl::Status encoded = encoder_->AppendEvent(staged_.bytes(staged_next_), body);
        !encoded.ok()) {
      body.resize(mark);
      drops_.Add(DropReason::kEncodeError, type, received);
      if (dropped.encode_errors++ == 0) dropped.first_encode_error = std::string(encoded.message());
      ++staged_next_;
      continue;
    }
    if (body.size() + 1 > config_.max_bytes) {  // +1 for the closing ']'
      body.resize(mark);
      if (batch.size() == 0) {
        drops_.Add(DropReason::kTooLarge, type, received);
        ++dropped.too_large;
        ++staged_next_;
        continue;
      }
      full_by_bytes_ = true;
      break;
    }
    batch.begins.push_back(begin);
    batch.ends.push_back(body.size());
    batch.types.push_back(type);
    batch.received.push_back(received);
    batch.positions.push_back(staged_.position(staged_next_));
    ++staged_next_;
  }
  body.push_back(']');
  const uint64_t end = staged_next_ < staged_.size() ? staged_.position(staged_next_) : read_end_;
  batch.range = PositionRange{cut_, end};
  if (batch.size() == 0) {
    // Everything in it was dropped: nothing will deliver it.
    ReleaseUpTo(end);
    batch.range = PositionRange{end, end};
  } else {
    cut_ = end;
  }
  return batch;
}

bool Batcher::Release(const PositionRange& range) {
  return reader_.Release(cursor_, range.begin, range.end);
}

void Batcher::Recycle(OutgoingBatch batch, size_t keep) {
  if (spares_.size() >= keep) return;
  batch.Clear();
  spares_.push_back(std::move(batch));
}

void Batcher::CountDropped(const EventBatch& events, size_t first, DropReason reason) {
  for (size_t i = first; i < events.size(); ++i) {
    drops_.Add(reason, events.event_type(i), events.received_count(i));
  }
}

void Batcher::DropUndelivered(DropReason reason) {
  CountDropped(staged_, staged_next_, reason);
  staged_.Clear();
  staged_next_ = 0;
  full_by_bytes_ = false;
  EventBatch unread;
  while (true) {
    Read(4096, unread);
    if (unread.empty()) break;
    CountDropped(unread, 0, reason);
    unread.Clear();
  }
  ReleaseUpTo(read_end_);
}

}  // namespace rayagg
