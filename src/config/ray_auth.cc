#include "config/ray_auth.h"

#include "absl/status/statusor.h"
#include "common/text.h"
#include "config/token_file.h"

namespace rayagg {

absl::Status ApplyRayAuth(const Environment& env, IngestAuthConfig& auth) {
  const std::string mode = strings::ToLower(TrimToken(env.Get(kRayAuthMode).value_or("")));
  if (mode.empty() || mode == "disabled") {
    auth = IngestAuthConfig{};
    return absl::OkStatus();
  }
  if (mode != "token") {
    return absl::InvalidArgumentError(strings::Cat(
        kRayAuthMode, ": unsupported mode \"", mode,
        "\"; this aggregator supports disabled and token (refusing to run unauthenticated)"));
  }
  auth.token_required = true;
  if (std::optional<std::string> token = env.Get(kRayAuthToken); token.has_value()) {
    auth.token = std::string(TrimToken(*token));
    if (!auth.token.empty()) return absl::OkStatus();
  }
  std::string path;
  std::string_view source;
  if (std::optional<std::string> configured = env.Get(kRayAuthTokenPath);
      configured.has_value() && !configured->empty()) {
    path = *configured;
    source = kRayAuthTokenPath;
  } else {
    const std::optional<std::string> home = env.Get("HOME");
    if (!home.has_value() || home->empty()) {
      return absl::NotFoundError(
          strings::Cat(kRayAuthMode, "=token but no token: neither ", kRayAuthToken, " nor ",
                       kRayAuthTokenPath, " is set, and HOME is unset (for ~/.ray/auth_token)"));
    }
    path = *home + "/.ray/auth_token";
    source = "Ray's default";
  }
  const std::string unreadable =
      strings::Cat(kRayAuthMode, "=token but no token: ", kRayAuthToken,
                   " is not set and the token file (", source, ") cannot be used: ");
  const std::string named = strings::Cat(kRayAuthMode, "=token but the token file ");
  // As Ray reads it: trimmed, otherwise taken as it is (not .one_word).
  absl::StatusOr<std::string> token =
      ReadTokenFile(path, {.unreadable = unreadable, .named = named});
  if (!token.ok()) return token.status();
  auth.token = *std::move(token);
  return absl::OkStatus();
}

}  // namespace rayagg
