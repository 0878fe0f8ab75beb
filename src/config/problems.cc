#include "config/problems.h"

#include "common/text.h"

namespace rayagg {

bool Problems::HasProblemAtOrAbove(std::string_view path) const {
  // Ancestors end where a ".key" or "[index]" step begins.
  for (size_t end = 0; end <= path.size(); ++end) {
    if (end == path.size() || path[end] == '.' || path[end] == '[') {
      if (paths_.find(path.substr(0, end)) != paths_.end()) return true;
    }
  }
  return false;
}

void Problems::Add(std::string_view path, std::string_view message) {
  if (!path.empty()) {
    if (HasProblemAtOrAbove(path)) return;
    paths_.emplace(path);
  }
  messages_.push_back(path.empty() ? std::string(message) : strings::Cat(path, ": ", message));
}

absl::Status Problems::ToStatus() const {
  if (messages_.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(strings::Join(messages_, "\n"));
}

}  // namespace rayagg
