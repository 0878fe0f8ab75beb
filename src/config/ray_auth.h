// Ray's token authentication, read from the environment the way Ray reads
// it: RAY_AUTH_MODE=token turns it on; the token is RAY_AUTH_TOKEN, else the
// content of the file RAY_AUTH_TOKEN_PATH names, else of ~/.ray/auth_token.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "config/environment.h"
#include "rayagg/config.h"

namespace rayagg {

inline constexpr std::string_view kRayAuthMode = "RAY_AUTH_MODE";
inline constexpr std::string_view kRayAuthToken = "RAY_AUTH_TOKEN";
inline constexpr std::string_view kRayAuthTokenPath = "RAY_AUTH_TOKEN_PATH";

// Fills `auth`. RAY_AUTH_MODE unset, empty or "disabled" (any case): no
// auth. "token": a token is required; if none can be found (or it is
// empty) the daemon must not start, so this fails naming where it looked.
// Any other mode also fails: accepting calls unchecked where Ray would check
// them is not an option. Blanks and line breaks around the token are
// ignored. Error messages never contain the token.
absl::Status ApplyRayAuth(const Environment& env, IngestAuthConfig& auth);

}  // namespace rayagg
