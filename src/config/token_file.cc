#include "config/token_file.h"

#include "common/small_file.h"
#include "common/text.h"

namespace rayagg {

std::string_view TrimToken(std::string_view text) { return strings::StripBlanks(text, " \t\r\n"); }

absl::StatusOr<std::string> ReadTokenFile(const std::string& path, const TokenFileRules& rules) {
  absl::StatusOr<std::string> content = ReadSmallFile(path);
  if (!content.ok()) {
    return absl::Status(content.status().code(),
                        strings::Cat(rules.unreadable, content.status().message()));
  }
  const std::string_view token = TrimToken(*content);
  if (token.empty()) {
    return absl::InvalidArgumentError(strings::Cat(rules.named, path, " is empty"));
  }
  if (rules.one_word) {
    for (char c : token) {
      if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f) {
        return absl::InvalidArgumentError(strings::Cat(
            rules.named, path, ": the token contains a blank, line break or control character"));
      }
    }
  }
  return std::string(token);
}

}  // namespace rayagg
