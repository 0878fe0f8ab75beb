// Checks the credentials of an incoming call against Ray's auth token
// (RAY_AUTH_MODE=token). Only the gRPC AddEvents service uses it: Ray's HTTP
// publisher sends no Authorization header, so HTTP ingest must not.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "rayagg/config.h"

namespace rayagg {

class BearerTokenChecker {
 public:
  // With config.token_required false every call is allowed.
  explicit BearerTokenChecker(const IngestAuthConfig& config);

  bool required() const { return required_; }

  // `authorization` is the value of the call's "authorization" metadata or
  // HTTP header, nullopt when absent. Accepts "Bearer <token>" (scheme in
  // any case, as RFC 9110 says) with exactly the expected token. The token
  // comparison takes the same time wherever the first difference is.
  bool Allows(std::optional<std::string_view> authorization) const;

 private:
  using Digest = std::array<unsigned char, 32>;  // SHA-256
  static Digest Hash(std::string_view text);

  bool required_;
  // Only the token's digest is kept: comparing digests of equal length
  // hides the token's length as well as its content.
  Digest expected_digest_{};
};

}  // namespace rayagg
