#include "buffer/release_tracker.h"

#include <iterator>

namespace rayagg {

ReleaseTracker::Result ReleaseTracker::Release(uint64_t begin, uint64_t end) {
  if (begin > end) return Result::kInvalid;
  if (begin == end) return Result::kEmpty;
  if (begin < released_) return Result::kOverlap;
  // The first pending range starting at or after `begin`, and the one before.
  auto next = pending_.lower_bound(begin);
  if (next != pending_.end() && next->first < end) return Result::kOverlap;
  if (next != pending_.begin() && std::prev(next)->second > begin) return Result::kOverlap;

  if (begin == released_) {
    released_ = end;
    // Ranges are never adjacent to each other, so at most this one joins.
    if (next != pending_.end() && next->first == released_) {
      released_ = next->second;
      pending_.erase(next);
    }
    return Result::kReleased;
  }
  uint64_t merged_end = end;
  if (next != pending_.end() && next->first == end) {
    merged_end = next->second;
    next = pending_.erase(next);
  }
  if (next != pending_.begin()) {
    const auto previous = std::prev(next);
    if (previous->second == begin) {
      previous->second = merged_end;
      return Result::kReleased;
    }
  }
  pending_.emplace_hint(next, begin, merged_end);
  return Result::kReleased;
}

}  // namespace rayagg
