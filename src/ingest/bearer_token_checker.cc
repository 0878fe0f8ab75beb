#include "ingest/bearer_token_checker.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "common/text.h"

namespace rayagg {

BearerTokenChecker::BearerTokenChecker(const IngestAuthConfig& config)
    : required_(config.token_required) {
  if (required_) expected_digest_ = Hash(config.token);
}

BearerTokenChecker::Digest BearerTokenChecker::Hash(std::string_view text) {
  Digest digest;
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
  return digest;
}

bool BearerTokenChecker::Allows(std::optional<std::string_view> authorization) const {
  if (!required_) return true;
  if (!authorization.has_value()) return false;
  constexpr std::string_view kScheme = "bearer ";
  if (authorization->size() <= kScheme.size() ||
      strings::ToLower(authorization->substr(0, kScheme.size())) != kScheme) {
    return false;
  }
  const Digest presented = Hash(authorization->substr(kScheme.size()));
  return CRYPTO_memcmp(presented.data(), expected_digest_.data(), presented.size()) == 0;
}

}  // namespace rayagg
