#include "config/problems.h"

#include "config/text.h"

namespace rayagg {

void Problems::Add(std::string_view path, std::string_view message) {
  if (!path.empty() && !paths_.emplace(path).second) return;
  messages_.push_back(path.empty() ? std::string(message) : strings::Cat(path, ": ", message));
}

absl::Status Problems::ToStatus() const {
  if (messages_.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(strings::Join(messages_, "\n"));
}

}  // namespace rayagg
