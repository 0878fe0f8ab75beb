// Ranges of a writer's sequence numbers as the manifest writes them
// (`rayagg-seq-void`, docs/OBJECT_STORE.md "Manifest"): "first-last" items
// joined by commas, e.g. "101-150,163-163". Shared by the object-store sink,
// which writes them, and ray-task-history's manifest check, which reads them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rayagg {

struct SeqRange {
  uint64_t first = 0;
  uint64_t last = 0;  // inclusive; first <= last
  friend bool operator==(const SeqRange&, const SeqRange&) = default;
};

// Sorted by first, overlapping and adjacent ranges joined.
std::vector<SeqRange> MergeSeqRanges(std::vector<SeqRange> ranges);

std::string FormatSeqRanges(const std::vector<SeqRange>& ranges);

// INVALID_ARGUMENT for anything but "a-b[,c-d]..." with 1 <= a <= b (decimal,
// no signs or spaces); "" is no ranges.
absl::StatusOr<std::vector<SeqRange>> ParseSeqRanges(std::string_view text);

}  // namespace rayagg
