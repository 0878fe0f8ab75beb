// The last N accepted event ids, to drop events a sender re-sends (a timed
// out request that had in fact arrived). Memory is bounded: a FIFO ring of
// id hashes plus a hash set of the same hashes, ~24 bytes per id.
//
// Ids are kept as 64-bit hashes, not their bytes: the log never sees the
// bytes unparsed, and ids are 16+ random bytes, so storing them would triple
// the memory for a risk that is negligible — with a full window of 100,000
// ids the chance that a new, distinct id collides with one of them is
// ~100,000 / 2^64 ≈ 5e-15 per event, i.e. one wrongly dropped event per
// ~2e14 events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace rayagg {

class DedupWindow {
 public:
  // A capacity of 0 remembers nothing: every id is new.
  explicit DedupWindow(size_t capacity) : capacity_(capacity) {}

  bool Contains(uint64_t id_hash) const { return ids_.contains(id_hash); }
  // Remembers an id not in the window, forgetting the oldest one when the
  // window is full.
  void Remember(uint64_t id_hash);

  size_t size() const { return ring_.size(); }

 private:
  const size_t capacity_;
  std::vector<uint64_t> ring_;  // grows to capacity_, then overwritten FIFO
  size_t next_ = 0;             // slot of the oldest id once ring_ is full
  absl::flat_hash_set<uint64_t> ids_;
};

}  // namespace rayagg
