// A sink's batcher: stages events from its cursor and cuts them into encoded
// outgoing batches. Pure: no sockets, no time, no logging (the sink decides
// when to cut and logs what was dropped); one thread (the sink's strand).
//
// Positions: the batcher keeps the cursor's reads tiled into batch ranges.
// Each batch answers for the positions from where the previous one ended up
// to its first left-over event (or the end of the last read), so events
// dropped while encoding and events the cursor skipped are released with the
// batch around them. A batch that ends empty, and a read that staged nothing,
// are released at once; the sink releases every other batch's range when the
// batch is delivered or dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rayagg/config.h"
#include "rayagg/drop_counters.h"
#include "rayagg/event_batch.h"
#include "rayagg/event_json_encoder.h"
#include "rayagg/event_reader.h"
#include "sinks/outgoing_batch.h"

namespace rayagg {

class Batcher {
 public:
  // What one Encode dropped (already counted in the drop counters), for the
  // sink's rate-limited log lines.
  struct EncodeDrops {
    uint64_t too_large = 0;      // alone larger than batch.max_bytes
    uint64_t encode_errors = 0;  // the encoder refused them
    std::string first_encode_error;
  };

  // Reads through `cursor` of `reader`; counts drops in `drops`. All three
  // must outlive the batcher.
  Batcher(EventReader& reader, EventReader::CursorId cursor, BatchConfig config,
          std::unique_ptr<EventJsonEncoder> encoder, DropCounters& drops);

  // New limits and encoder from the next Refill/Encode on (SIGHUP reload).
  void Reconfigure(BatchConfig config, std::unique_ptr<EventJsonEncoder> encoder);

  // Tops the staged events up to batch.max_events from the cursor; events
  // left over after a cut stay in front.
  void Refill();
  // Events staged and not yet in a batch.
  size_t staged_count() const { return staged_.size() - staged_next_; }
  // Whether the last Encode stopped at batch.max_bytes with events left over.
  bool full_by_bytes() const { return full_by_bytes_; }

  // Encodes staged events, in order, into one JSON array of at most
  // batch.max_events elements and batch.max_bytes bytes. An event the
  // encoder refuses is dropped (encode_error); one that alone exceeds
  // max_bytes is dropped (too_large). An empty result's range is released
  // before it is returned.
  OutgoingBatch Encode(EncodeDrops& dropped);

  // Releases `range` (a delivered or dropped batch's, or a slice's) on the
  // cursor; false if the reader refused it (released twice: a bug).
  bool Release(const PositionRange& range);

  // Takes back a finished batch's buffers for a later Encode, keeping at most
  // `keep` of them (the sink's slots: no more buffers exist than batches in
  // flight). A body is hundreds of KiB: a fresh one per batch is mapped,
  // page-faulted in and unmapped again, which costs a plain sink more CPU
  // than encoding does.
  void Recycle(OutgoingBatch batch, size_t keep);
  size_t spare_batches() const { return spares_.size(); }

  // Counts every staged and unread event as dropped for `reason` and
  // releases them (shutdown at the drain deadline).
  void DropUndelivered(DropReason reason);

 private:
  void Read(size_t max_events, EventBatch& out);
  // Releases positions from the last cut up to `end`, which becomes the cut.
  void ReleaseUpTo(uint64_t end);
  void CountDropped(const EventBatch& events, size_t first, DropReason reason);

  EventReader& reader_;
  const EventReader::CursorId cursor_;
  BatchConfig config_;
  std::unique_ptr<EventJsonEncoder> encoder_;
  DropCounters& drops_;

  std::vector<OutgoingBatch> spares_;  // emptied, capacity kept; see Recycle
  EventBatch staged_;                  // read from the cursor, not yet in a batch
  size_t staged_next_ = 0;             // first staged event not yet in a batch
  bool full_by_bytes_ = false;
  // Position where the next batch's range begins, and where the last read
  // ended; known once the cursor has been read.
  bool positioned_ = false;
  uint64_t cut_ = 0;
  uint64_t read_end_ = 0;
};

}  // namespace rayagg
