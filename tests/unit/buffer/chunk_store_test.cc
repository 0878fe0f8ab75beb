#include "buffer/chunk_store.h"

#include <gtest/gtest.h>

#include <string>

namespace rayagg {
namespace {

TEST(ChunkStoreTest, StoredBytesStayReadableUntilReleased) {
  ChunkStore store(/*chunk_bytes=*/256);
  std::string first(40, 'a');
  std::string second(40, 'b');
  const char* first_ptr = store.Store(first, 0);
  const char* second_ptr = store.Store(second, 1);
  EXPECT_EQ(std::string(first_ptr, first.size()), first);
  EXPECT_EQ(std::string(second_ptr, second.size()), second);
  EXPECT_EQ(store.chunk_count(), 1u);
}

TEST(ChunkStoreTest, FreesAChunkOnlyWhenItsLastEventIsReleased) {
  ChunkStore store(/*chunk_bytes=*/256);
  for (uint64_t sequence = 0; sequence < 12; ++sequence) {
    store.Store(std::string(60, 'x'), sequence);  // 4 per chunk
  }
  EXPECT_EQ(store.chunk_count(), 3u);
  store.ReleaseThrough(2);  // first chunk holds 0..3
  EXPECT_EQ(store.chunk_count(), 3u);
  store.ReleaseThrough(3);
  EXPECT_EQ(store.chunk_count(), 2u);
  store.ReleaseThrough(11);
  EXPECT_EQ(store.chunk_count(), 0u);
  EXPECT_EQ(store.reserved_bytes(), 0u);
}

TEST(ChunkStoreTest, LargeEventGetsAChunkOfItsOwnSize) {
  ChunkStore store(/*chunk_bytes=*/256);
  store.Store(std::string(10, 'x'), 0);
  std::string big(1000, 'y');
  const char* big_ptr = store.Store(big, 1);
  EXPECT_EQ(std::string(big_ptr, big.size()), big);
  EXPECT_EQ(store.reserved_bytes(), 256u + 1000u);
}

}  // namespace
}  // namespace rayagg
