#include "objstore/rules/seq_ranges.h"

#include <algorithm>
#include <charconv>

#include "common/text.h"

namespace rayagg {
namespace {

bool ParseNumber(std::string_view text, uint64_t& out) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::vector<SeqRange> MergeSeqRanges(std::vector<SeqRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const SeqRange& a, const SeqRange& b) { return a.first < b.first; });
  std::vector<SeqRange> merged;
  for (const SeqRange& range : ranges) {
    // Joined when it overlaps or touches the last one; `last + 1` would
    // wrap for a range that ends at the largest number.
    if (!merged.empty() &&
        (range.first <= merged.back().last || range.first - merged.back().last == 1)) {
      merged.back().last = std::max(merged.back().last, range.last);
    } else {
      merged.push_back(range);
    }
  }
  return merged;
}

std::string FormatSeqRanges(const std::vector<SeqRange>& ranges) {
  std::string text;
  for (const SeqRange& range : ranges) {
    if (!text.empty()) text.push_back(',');
    text += std::to_string(range.first);
    text.push_back('-');
    text += std::to_string(range.last);
  }
  return text;
}

absl::StatusOr<std::vector<SeqRange>> ParseSeqRanges(std::string_view text) {
  std::vector<SeqRange> ranges;
  if (text.empty()) return ranges;
  for (std::string_view item : strings::Split(text, ',')) {
    const size_t dash = item.find('-');
    SeqRange range;
    if (dash == std::string_view::npos || !ParseNumber(item.substr(0, dash), range.first) ||
        !ParseNumber(item.substr(dash + 1), range.last) || range.first == 0 ||
        range.last < range.first) {
      return absl::InvalidArgumentError(
          strings::Cat("not a sequence range list (first-last[,first-last]...): ", text));
    }
    ranges.push_back(range);
  }
  return ranges;
}

}  // namespace rayagg
