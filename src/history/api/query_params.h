// The query string of a request target, percent-decoded ('+' is a space),
// keys in order and repeatable (Ray's filter_keys/filter_values repeat).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace rayagg::history {

class QueryParams {
 public:
  // `target` is the whole request target ("/path?a=1&b=2"). A bad percent
  // escape is InvalidArgument.
  static absl::StatusOr<QueryParams> FromTarget(std::string_view target);

  // The last value of `key`, if given.
  std::optional<std::string> Get(std::string_view key) const;
  std::vector<std::string> All(std::string_view key) const;
  bool Has(std::string_view key) const { return Get(key).has_value(); }
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }
  // Replaces every value of `key` with one.
  void Set(std::string_view key, std::string value);
  void Remove(std::string_view key);

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// The path of a request target, without its query string.
std::string_view TargetPath(std::string_view target);

// A parameter the query cannot use: answered 400 with `message` as the reason.
inline absl::Status BadParameter(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

}  // namespace rayagg::history
