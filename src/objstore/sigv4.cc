#include "objstore/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <time.h>

#include <algorithm>
#include <cstdio>

#include "common/text.h"

namespace rayagg::sigv4 {
namespace {

constexpr char kHexUpper[] = "0123456789ABCDEF";
constexpr char kHexLower[] = "0123456789abcdef";

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~';
}

std::string Hex(const unsigned char* data, size_t size) {
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHexLower[data[i] >> 4]);
    out.push_back(kHexLower[data[i] & 0xf]);
  }
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Trimall: no blanks around, inner runs of blanks become one space.
std::string TrimAll(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  bool pending_space = false;
  for (char c : value) {
    if (IsBlank(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string UriEncode(std::string_view text, bool keep_slash) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHexUpper[c >> 4]);
      out.push_back(kHexUpper[c & 0xf]);
    }
  }
  return out;
}

std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) {
    encoded.emplace_back(UriEncode(name, false), UriEncode(value, false));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out.push_back('&');
    strings::Append(out, name, "=", value);
  }
  return out;
}

std::pair<std::string, std::string> CanonicalHeaders(const HeaderList& headers) {
  // Stable: repeated names keep their order when joined.
  std::vector<std::pair<std::string, std::string>> lowered;
  lowered.reserve(headers.size());
  for (const auto& [name, value] : headers) {
    lowered.emplace_back(strings::ToLower(name), TrimAll(value));
  }
  std::stable_sort(lowered.begin(), lowered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string block;
  std::string signed_names;
  for (size_t i = 0; i < lowered.size(); ++i) {
    if (i > 0 && lowered[i].first == lowered[i - 1].first) {
      strings::Append(block, ",", lowered[i].second);
      continue;
    }
    if (i > 0) block.push_back('\n');
    strings::Append(block, lowered[i].first, ":", lowered[i].second);
    if (!signed_names.empty()) signed_names.push_back(';');
    signed_names.append(lowered[i].first);
  }
  if (!block.empty()) block.push_back('\n');
  return {block, signed_names};
}

std::string CanonicalRequest(const Request& request) {
  const auto [header_block, signed_names] = CanonicalHeaders(request.headers);
  return strings::Cat(request.method, "\n",
                      request.encoded_path.empty() ? "/" : request.encoded_path, "\n",
                      CanonicalQuery(request.query), "\n", header_block, "\n", signed_names, "\n",
                      request.payload_sha256_hex);
}

std::string AmzDate(std::chrono::system_clock::time_point time) {
  const time_t seconds =
      std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(time));
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  char buffer[80];
  std::snprintf(buffer, sizeof(buffer), "%04d%02d%02dT%02d%02d%02dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
  return buffer;
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return Hex(digest, sizeof(digest));
}

Signed Sign(const Request& request, const Credentials& credentials, std::string_view region,
            std::string_view service, std::chrono::system_clock::time_point time) {
  const std::string amz_date = AmzDate(time);
  const std::string_view date = std::string_view(amz_date).substr(0, 8);

  Signed result;
  result.headers.emplace_back("x-amz-date", amz_date);
  result.headers.emplace_back("x-amz-content-sha256", request.payload_sha256_hex);
  if (!credentials.session_token.empty()) {
    result.headers.emplace_back("x-amz-security-token", credentials.session_token);
  }
  Request full = request;
  full.headers.insert(full.headers.end(), result.headers.begin(), result.headers.end());
  result.canonical_request = CanonicalRequest(full);
  const std::string scope = strings::Cat(date, "/", region, "/", service, "/aws4_request");
  result.string_to_sign = strings::Cat("AWS4-HMAC-SHA256\n", amz_date, "\n", scope, "\n",
                                       Sha256Hex(result.canonical_request));
  std::string key = HmacSha256(strings::Cat("AWS4", credentials.secret_access_key), date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  const std::string signature = HmacSha256(key, result.string_to_sign);
  const std::string signed_names = CanonicalHeaders(full.headers).second;
  result.headers.emplace_back(
      "authorization", strings::Cat("AWS4-HMAC-SHA256 Credential=", credentials.access_key_id, "/",
                                    scope, ", SignedHeaders=", signed_names, ", Signature=",
                                    Hex(reinterpret_cast<const unsigned char*>(signature.data()),
                                        signature.size())));
  return result;
}

}  // namespace rayagg::sigv4
