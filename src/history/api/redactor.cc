#include "history/api/redactor.h"

#include "common/text.h"

namespace rayagg::history {
namespace {

// libstdc++'s matcher recurses per character: a key this long (no real
// variable name is) is hidden rather than matched.
constexpr size_t kMaxKeyChars = 1024;
constexpr std::string_view kCaseInsensitive = "(?i)";
// Deeper than any runtime env is; a value nested below is hidden whole.
constexpr int kMaxDepth = 32;

}  // namespace

absl::StatusOr<Redactor> Redactor::Make(std::string_view pattern) {
  auto flags = std::regex::ECMAScript | std::regex::nosubs | std::regex::optimize;
  // ECMAScript has no inline flags; the one the default uses is read here.
  if (pattern.starts_with(kCaseInsensitive)) {
    pattern.remove_prefix(kCaseInsensitive.size());
    flags |= std::regex::icase;
  }
  if (pattern.empty()) {
    return absl::InvalidArgumentError("must not be empty (it would hide every value)");
  }
  try {
    return Redactor(std::make_shared<const std::regex>(pattern.begin(), pattern.end(), flags));
  } catch (const std::regex_error& error) {
    return absl::InvalidArgumentError(strings::Cat(
        "is not a valid regular expression (ECMAScript syntax; \"(?i)\" only at the start): ",
        error.what()));
  }
}

bool Redactor::Matches(std::string_view key) const {
  if (regex_ == nullptr || key.size() > kMaxKeyChars) return true;
  try {
    return std::regex_search(key.begin(), key.end(), *regex_);
  } catch (const std::regex_error&) {
    return true;  // the engine gave up (complexity, stack): hide it
  }
}

bool Redactor::Redact(nlohmann::json& value, int depth) const {
  if (!value.is_array() && !value.is_object()) return false;
  if (depth >= kMaxDepth) {
    value = std::string(kRedactedValue);  // too deep to walk safely: hidden
    return true;
  }
  bool changed = false;
  if (value.is_array()) {
    for (nlohmann::json& item : value) changed = Redact(item, depth + 1) || changed;
    return changed;
  }
  for (auto member = value.begin(); member != value.end(); ++member) {
    if (Matches(member.key())) {
      member.value() = std::string(kRedactedValue);
      changed = true;
    } else {
      changed = Redact(member.value(), depth + 1) || changed;
    }
  }
  return changed;
}

void Redactor::RedactMembers(nlohmann::json& value) const { Redact(value, 0); }

std::string Redactor::RedactRuntimeEnv(const std::string& serialized) const {
  if (serialized.empty()) return serialized;
  nlohmann::json env = nlohmann::json::parse(serialized, nullptr, /*allow_exceptions=*/false);
  if (env.is_discarded()) return std::string(kRedactedValue);
  if (!Redact(env, 0)) return serialized;
  return env.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace rayagg::history
