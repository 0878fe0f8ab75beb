// Collects every configuration problem instead of stopping at the first, so
// one `--check-config` run shows the user all of them.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace rayagg {

class Problems {
 public:
  // `path` is the key path ("sinks[1].batch.max_events") or a flag name.
  // Only the first problem per path is kept, and none below a path that
  // already has one: a value that failed to parse keeps its default, and a
  // later check of that default would only repeat the complaint in other
  // words ("sinks[0]: must be a map" makes "sinks[0].url: is required" noise).
  void Add(std::string_view path, std::string_view message);

  bool empty() const { return messages_.empty(); }
  const std::vector<std::string>& messages() const { return messages_; }

  // OK when empty; otherwise InvalidArgument with one problem per line.
  absl::Status ToStatus() const;

 private:
  bool HasProblemAtOrAbove(std::string_view path) const;

  std::set<std::string, std::less<>> paths_;
  std::vector<std::string> messages_;
};

}  // namespace rayagg
