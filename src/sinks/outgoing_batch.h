// An encoded batch on its way to a sink's endpoint: the JSON array, where each
// element sits in it (so a 413 can split it without encoding again), and the
// log positions it answers for (so each half releases its own range).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rayagg/event_reader.h"

namespace rayagg {

struct OutgoingBatch {
  std::string body;
  std::vector<size_t> begins;       // offset of element i's first byte
  std::vector<size_t> ends;         // offset just past element i
  std::vector<int32_t> types;       // element i's event type
  std::vector<uint32_t> received;   // received events element i stands for
  std::vector<uint64_t> positions;  // element i's log position (non-decreasing)
  // The positions this batch answers for: its elements' and those of events
  // between them that were dropped while encoding or skipped by the cursor.
  // Released once the batch is delivered or dropped.
  PositionRange range;

  size_t size() const { return types.size(); }
  // Empties the batch and keeps its buffers' capacity (Batcher::Recycle).
  void Clear();

  // Elements [first, last) as a batch of their own. The range is cut at
  // element `first`'s and `last`'s positions, so the slices of a batch tile
  // its range exactly. Parts of one coalesced entry the merger refused share
  // a position; cut between them, the entry falls in the later slice's
  // range, and the released position passes it only once the earlier slice
  // (whose range ends there) is released too — unless the earlier slice
  // holds nothing but parts of that entry, which leaves its range empty.
  OutgoingBatch Slice(size_t first, size_t last) const;
};

}  // namespace rayagg
