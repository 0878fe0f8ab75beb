// A bearer token read from a file when the config is loaded: http_ingest's
// bearer_token_file (read again on SIGHUP, which loads the config again) and
// Ray's RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token for gRPC ingest (used as
// read at startup). Sinks and S3 keep theirs in a SecretFile instead,
// re-read when the file changes.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rayagg {

// What goes around a token: blanks and line breaks (a trailing newline,
// RAY_AUTH_TOKEN=" x").
std::string_view TrimToken(std::string_view text);

// How a token file's problems are worded. Messages never hold the content.
struct TokenFileRules {
  // Before the reason the file cannot be read (which starts with the path).
  std::string_view unreadable;
  // Before "<path> is empty" and "<path>: the token contains ...".
  std::string_view named;
  // Refuse a blank, line break or control character inside the token (a
  // token that cannot be sent in an Authorization header).
  bool one_word = false;
};

// The trimmed content of the token file `path`: read bounded and only from
// a regular file (ReadSmallFile), so a huge file, /dev/zero or a FIFO is an
// error, not an endless read or wait. Errors keep ReadSmallFile's code for
// an unreadable file; an empty token, or with `one_word` a token with a
// blank or control character inside, is INVALID_ARGUMENT.
absl::StatusOr<std::string> ReadTokenFile(const std::string& path, const TokenFileRules& rules);

}  // namespace rayagg
