// Turns position ranges released in any order into a released position: the
// end of the longest prefix released without a gap (rayagg/event_reader.h).
//
// Ranges that arrive ahead of the prefix are kept, merged with their
// neighbours, until the gap before them closes; so memory grows with the
// number of gaps (at most the ranges a sink has in flight: its slots and
// their 413 halves), never with the number of positions. Pure: no locks,
// no time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace rayagg {

class ReleaseTracker {
 public:
  enum class Result {
    kReleased,  // taken
    kEmpty,     // begin == end: nothing to do
    kInvalid,   // begin > end
    kOverlap,   // covers a position released before: rejected, nothing changes
  };

  // Nothing before `start` is tracked: it counts as released.
  explicit ReleaseTracker(uint64_t start = 0) : released_(start) {}

  Result Release(uint64_t begin, uint64_t end);

  // Every position below this has been released.
  uint64_t released() const { return released_; }
  // Disjoint ranges released ahead of the prefix (what the tracker holds).
  size_t pending_ranges() const { return pending_.size(); }

 private:
  uint64_t released_;
  // begin -> end of ranges beyond released_, disjoint and never adjacent
  // (adjacent ones are merged), none starting at released_.
  std::map<uint64_t, uint64_t> pending_;
};

}  // namespace rayagg
