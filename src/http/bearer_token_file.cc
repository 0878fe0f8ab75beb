#include "http/bearer_token_file.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <array>

#include "common/text.h"

namespace rayagg {
namespace {

using TokenDigest = std::array<unsigned char, SHA256_DIGEST_LENGTH>;

// Digests of equal length are compared, so neither the token's content nor
// its length shows in the time a refusal takes.
TokenDigest DigestOf(std::string_view text) {
  TokenDigest digest;
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
  return digest;
}

}  // namespace

absl::Status BearerTokenFile::Check() {
  MutexLock lock(mutex_);
  return file_.Current().status();
}

bool BearerTokenFile::Allows(std::optional<std::string_view> authorization) {
  if (!authorization) return false;
  constexpr std::string_view kScheme = "bearer ";
  if (authorization->size() <= kScheme.size() ||
      strings::ToLower(authorization->substr(0, kScheme.size())) != kScheme) {
    return false;
  }
  const TokenDigest presented = DigestOf(authorization->substr(kScheme.size()));
  TokenDigest expected;
  {
    MutexLock lock(mutex_);
    absl::StatusOr<std::string> token = file_.Current();
    if (!token.ok()) return false;
    expected = DigestOf(*token);
  }
  return CRYPTO_memcmp(presented.data(), expected.data(), presented.size()) == 0;
}

}  // namespace rayagg
