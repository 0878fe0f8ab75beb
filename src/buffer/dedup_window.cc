#include "buffer/dedup_window.h"

namespace rayagg {

void DedupWindow::Remember(uint64_t id_hash) {
  if (capacity_ == 0 || !ids_.insert(id_hash).second) return;
  if (ring_.size() < capacity_) {
    ring_.push_back(id_hash);
    return;
  }
  ids_.erase(ring_[next_]);
  ring_[next_] = id_hash;
  next_ = (next_ + 1) % capacity_;
}

}  // namespace rayagg
