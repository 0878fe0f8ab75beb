// FIFO byte storage in large shared chunks. Events are copied in at the tail
// and released from the head in the order they were stored, so a chunk is
// freed as soon as its last event is released. This keeps per-event overhead
// to the bytes themselves (no allocation per event) and bounds slack to about
// one chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>

namespace rayagg {

class ChunkStore {
 public:
  static constexpr size_t kDefaultChunkBytes = 1 << 20;

  explicit ChunkStore(size_t chunk_bytes = kDefaultChunkBytes);

  // Copies `bytes` in and tags them with `sequence` (monotonically
  // non-decreasing across calls). The returned pointer stays valid until
  // ReleaseThrough(s) with s >= sequence.
  const char* Store(std::string_view bytes, uint64_t sequence);
  // The same for `first` followed by `second`, stored back to back (a spool
  // record: its header, then the event). Returns where `first` starts.
  const char* Store(std::string_view first, std::string_view second, uint64_t sequence);

  // Frees every chunk whose newest stored sequence is <= `sequence`.
  void ReleaseThrough(uint64_t sequence);

  // Bytes of memory held by chunks (capacity, not just payload).
  size_t reserved_bytes() const { return reserved_bytes_; }
  size_t chunk_count() const { return chunks_.size(); }
  // Bytes stored in live chunks, including copies the caller no longer uses.
  size_t used_bytes() const { return used_bytes_; }
  size_t chunk_bytes() const { return chunk_bytes_; }

 private:
  struct Chunk {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
    size_t used = 0;
    uint64_t last_sequence = 0;
  };

  const size_t chunk_bytes_;
  std::deque<Chunk> chunks_;
  size_t reserved_bytes_ = 0;
  size_t used_bytes_ = 0;
};

}  // namespace rayagg
