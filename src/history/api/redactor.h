// Hides the values of secrets before an answer leaves ray-task-history
// (docs/SECURITY.md "The page"): in a runtime env (the JSON text Ray
// serializes: `env_vars` and any other map in it) and in job metadata, the
// value under every key that `ui.redact` finds becomes "•••". Keys are
// matched with std::regex (ECMAScript) searched anywhere in the key; a
// leading "(?i)" makes it case-insensitive. Whatever cannot be checked is
// hidden: a key too long to match safely, a match the engine gives up on,
// and a runtime env that is not JSON (then the whole text).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rayagg::history {

inline constexpr std::string_view kRedactedValue = "\u2022\u2022\u2022";  // "•••"

class Redactor {
 public:
  // An invalid pattern is InvalidArgument saying why.
  static absl::StatusOr<Redactor> Make(std::string_view pattern);
  // Hides every value (the fallback when no pattern can be used).
  static Redactor Everything() { return Redactor(nullptr); }

  bool Matches(std::string_view key) const;

  // The members of every object in `value`, at any depth, whose key
  // matches: their values (strings, numbers, objects alike) become "•••";
  // anything nested deeper than a runtime env ever is, too.
  void RedactMembers(nlohmann::json& value) const;
  // A runtime env's JSON text with RedactMembers applied and re-serialized
  // (unchanged when nothing matched); "•••" when it is not JSON.
  std::string RedactRuntimeEnv(const std::string& serialized) const;

 private:
  explicit Redactor(std::shared_ptr<const std::regex> regex) : regex_(std::move(regex)) {}
  // Whether anything was hidden.
  bool Redact(nlohmann::json& value, int depth) const;
  std::shared_ptr<const std::regex> regex_;  // null: everything matches
};

}  // namespace rayagg::history
