// Shared by the spool tests: a record stream the tests fill (the event log's
// role), and reading a recovered directory back.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "rayagg/mutex.h"
#include "spool/crc32c.h"
#include "spool/disk_reader.h"
#include "spool/format.h"
#include "spool/record_source.h"
#include "spool/recovery.h"
#include "spool/segment_set.h"

namespace rayagg::spool::test {

// One record as the tests know it.
struct Record {
  uint64_t sequence = 0;
  uint8_t part = 0;
  int32_t event_type = 0;
  std::string payload = {};
  friend bool operator==(const Record&, const Record&) = default;
};

inline std::string EncodeRecord(const Record& record) {
  std::string bytes(kRecordHeaderBytes, '\0');
  EncodeRecordHeader(Crc32c(record.payload), static_cast<uint32_t>(record.payload.size()),
                     record.sequence, record.event_type, record.part, bytes.data());
  return bytes + record.payload;
}

// The log's role for the writer: records appended in order, kept in memory
// in chunks until dropped.
class TestStream final : public RecordSource {
 public:
  explicit TestStream(size_t chunk_bytes = 4096) : chunk_bytes_(chunk_bytes) {}

  // Appends a record; returns the stream position after it.
  uint64_t Add(const Record& record) {
    MutexLock lock(mutex_);
    const std::string bytes = EncodeRecord(record);
    if (chunks_.empty() || chunks_.back().bytes.size() + bytes.size() > chunk_bytes_) {
      chunks_.push_back(Chunk{.begin = end_});
      // Like the log's chunks, a chunk never moves once created: the writer
      // holds views into it while other threads append.
      chunks_.back().bytes.reserve(std::max(chunk_bytes_, bytes.size()));
    }
    chunks_.back().bytes += bytes;
    end_ += bytes.size();
    return end_;
  }
  uint64_t end() const {
    MutexLock lock(mutex_);
    return end_;
  }
  // Memory lets go of whole chunks that end at or before `position`.
  void DropBefore(uint64_t position) {
    MutexLock lock(mutex_);
    while (!chunks_.empty() && chunks_.front().begin + chunks_.front().bytes.size() <= position) {
      chunks_.pop_front();
    }
  }

  uint64_t CollectRecords(uint64_t from, uint64_t to, uint64_t max_bytes,
                          std::vector<std::string_view>& pieces) override {
    MutexLock lock(mutex_);
    uint64_t first = to;
    uint64_t collected = 0;
    for (const Chunk& chunk : chunks_) {
      const uint64_t chunk_end = chunk.begin + chunk.bytes.size();
      if (chunk_end <= from || chunk.begin >= to) continue;
      if (collected >= max_bytes) break;
      const uint64_t begin = std::max(from, chunk.begin);
      const uint64_t end = std::min(to, chunk_end);
      if (first == to) first = begin;
      pieces.push_back(std::string_view(chunk.bytes).substr(begin - chunk.begin, end - begin));
      collected += end - begin;
    }
    return first;
  }

 private:
  struct Chunk {
    uint64_t begin = 0;
    std::string bytes = {};
  };
  const size_t chunk_bytes_;
  mutable Mutex mutex_;
  std::deque<Chunk> chunks_ ABSL_GUARDED_BY(mutex_);
  uint64_t end_ ABSL_GUARDED_BY(mutex_) = 0;
};

// Every entry a DiskReader finds from `from` on, as records (its first
// event, then its parts).
inline std::vector<Record> ReadAll(FileSystem& fs, const SegmentSet& segments, uint64_t from = 0,
                                   DiskReadResult* totals = nullptr) {
  DiskReader reader(fs, segments);
  std::vector<Record> records;
  uint64_t next = from;
  for (;;) {
    const DiskReadResult result =
        reader.Read(next, UINT64_MAX, 1000, EventTypeFilter::All(), [&](const DiskEntry& entry) {
          for (size_t i = 0; i < entry.parts.size(); ++i) {
            records.push_back(Record{.sequence = entry.sequence,
                                     .part = entry.part_numbers[i],
                                     .event_type = entry.event_type,
                                     .payload = std::string(entry.parts[i])});
          }
        });
    if (totals != nullptr) {
      totals->entries += result.entries;
      totals->lost_entries += result.lost_entries;
      totals->lost_parts += result.lost_parts;
      totals->lost_segments += result.lost_segments;
    }
    if (result.entries == 0 || result.next == UINT64_MAX) break;
    next = result.next;
  }
  return records;
}

}  // namespace rayagg::spool::test
