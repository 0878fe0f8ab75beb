// Read-only view of environment variables. Code that needs the environment
// takes an Environment&, so tests pass a map instead of mutating the process.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace rayagg {

class Environment {
 public:
  // Snapshot of the process environment (`environ`) at the time of the call.
  static Environment FromProcess();

  // Exactly these variables, nothing else (tests).
  explicit Environment(std::map<std::string, std::string> variables);
  // Environment({{"NAME", "value"}}): without this overload a single pair
  // would be ambiguous (std::map also takes two iterators, e.g. two char*).
  Environment(std::initializer_list<std::pair<const std::string, std::string>> variables);

  // The value if the variable is set (possibly to ""), nullopt if unset.
  std::optional<std::string> Get(std::string_view name) const;

 private:
  std::map<std::string, std::string, std::less<>> variables_;
};

}  // namespace rayagg
