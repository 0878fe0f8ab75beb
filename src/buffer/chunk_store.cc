#include "buffer/chunk_store.h"

#include <algorithm>
#include <cstring>

namespace rayagg {

ChunkStore::ChunkStore(size_t chunk_bytes) : chunk_bytes_(std::max<size_t>(chunk_bytes, 64)) {}

const char* ChunkStore::Store(std::string_view bytes, uint64_t sequence) {
  return Store(bytes, {}, sequence);
}

const char* ChunkStore::Store(std::string_view first, std::string_view second, uint64_t sequence) {
  const size_t size = first.size() + second.size();
  if (chunks_.empty() || chunks_.back().capacity - chunks_.back().used < size) {
    // An event larger than a quarter chunk gets a chunk of its own size, so a
    // big event never wastes the rest of a shared chunk.
    const size_t capacity = size > chunk_bytes_ / 4 ? size : chunk_bytes_;
    Chunk chunk;
    chunk.data = std::make_unique_for_overwrite<char[]>(std::max<size_t>(capacity, 1));
    chunk.capacity = capacity;
    reserved_bytes_ += capacity;
    chunks_.push_back(std::move(chunk));
  }
  Chunk& chunk = chunks_.back();
  char* destination = chunk.data.get() + chunk.used;
  if (!first.empty()) std::memcpy(destination, first.data(), first.size());
  if (!second.empty()) std::memcpy(destination + first.size(), second.data(), second.size());
  chunk.used += size;
  used_bytes_ += size;
  chunk.last_sequence = sequence;
  return destination;
}

void ChunkStore::ReleaseThrough(uint64_t sequence) {
  while (!chunks_.empty() && chunks_.front().last_sequence <= sequence) {
    reserved_bytes_ -= chunks_.front().capacity;
    used_bytes_ -= chunks_.front().used;
    chunks_.pop_front();
  }
}

}  // namespace rayagg
