#include "config/ray_auth.h"

#include "absl/status/statusor.h"
#include "common/small_file.h"
#include "common/text.h"

namespace rayagg {
namespace {

std::string_view TrimBlanks(std::string_view text) { return strings::StripBlanks(text, " \t\r\n"); }

absl::StatusOr<std::string> ReadTokenFile(const std::string& path, std::string_view source) {
  // Bounded: a token file pointing at something huge is an error, not an endless read.
  absl::StatusOr<std::string> content = ReadSmallFile(path);
  if (!content.ok()) {
    return absl::Status(content.status().code(),
                        strings::Cat(kRayAuthMode, "=token but no token: ", kRayAuthToken,
                                     " is not set and the token file (", source,
                                     ") cannot be used: ", content.status().message()));
  }
  const std::string token(TrimBlanks(*content));
  if (token.empty()) {
    return absl::InvalidArgumentError(
        strings::Cat(kRayAuthMode, "=token but the token file ", path, " is empty"));
  }
  return token;
}

}  // namespace

absl::Status ApplyRayAuth(const Environment& env, IngestAuthConfig& auth) {
  const std::string mode = strings::ToLower(TrimBlanks(env.Get(kRayAuthMode).value_or("")));
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
    auth.token = std::string(TrimBlanks(*token));
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
  absl::StatusOr<std::string> token = ReadTokenFile(path, source);
  if (!token.ok()) return token.status();
  auth.token = *std::move(token);
  return absl::OkStatus();
}

}  // namespace rayagg
