#include "config/environment.h"

#include <unistd.h>

#include <cstring>

namespace rayagg {

Environment Environment::FromProcess() {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals == nullptr) continue;
    // First occurrence wins, as with getenv().
    variables.emplace(std::string(*entry, static_cast<size_t>(equals - *entry)),
                      std::string(equals + 1));
  }
  return Environment(std::move(variables));
}

Environment::Environment(std::map<std::string, std::string> variables)
    : variables_(variables.begin(), variables.end()) {}

Environment::Environment(std::initializer_list<std::pair<const std::string, std::string>> variables)
    : variables_(variables.begin(), variables.end()) {}

std::optional<std::string> Environment::Get(std::string_view name) const {
  auto it = variables_.find(name);
  if (it == variables_.end()) return std::nullopt;
  return it->second;
}

}  // namespace rayagg
