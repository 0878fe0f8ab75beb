// AWS Signature Version 4 for S3 requests (header form), as the S3 API
// reference's "Signature Calculations for the Authorization Header" defines
// it: canonical request -> string to sign -> HMAC-SHA256 chain. Pure
// functions on OpenSSL, checked against botocore and the documentation's
// worked examples (tests/unit/objstore/sigv4_test.cc, sigv4_botocore_test.cc).
//
// S3 specifics: the canonical URI is the path with every byte but the
// unreserved ones (A-Z a-z 0-9 - _ . ~) and '/' percent-encoded, exactly once,
// without normalization ("a//b" and "./" stay as they are); the payload hash
// is the real SHA-256 of the body (Alibaba OSS requires it; we never send
// UNSIGNED-PAYLOAD or aws-chunked).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rayagg::sigv4 {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct Credentials {
  std::string access_key_id{};
  std::string secret_access_key{};
  std::string session_token{};  // "" for long-term keys
};

// Everything the signature covers.
struct Request {
  std::string method{};  // "PUT"
  // The request path exactly as sent: already URI-encoded by UriEncodePath.
  std::string encoded_path{};
  // Query parameters, not encoded ("uploadId", "2~abc"); sorted and encoded
  // by the signer. A parameter without value ("uploads") has "".
  std::vector<std::pair<std::string, std::string>> query{};
  // Headers to sign besides the ones Sign adds (x-amz-date,
  // x-amz-content-sha256, x-amz-security-token): must include "host".
  // Names in any case.
  HeaderList headers{};
  std::string payload_sha256_hex;
};

// RFC 3986 percent-encoding of everything but A-Z a-z 0-9 - _ . ~ (and '/'
// when `keep_slash`), uppercase hex, byte by byte (UTF-8 stays UTF-8).
std::string UriEncode(std::string_view text, bool keep_slash);
// A key path: '/' separates segments and is kept.
inline std::string UriEncodePath(std::string_view path) { return UriEncode(path, true); }

// "a=1&b=" from the parameters, each name and value encoded, sorted by
// encoded name, then value. Also the query string to send.
std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query);

// Lowercase names, values trimmed with inner runs of blanks collapsed to
// one space, sorted by name, repeated names joined with ','; returns
// (canonical header block, signed header list "a;b;c").
std::pair<std::string, std::string> CanonicalHeaders(const HeaderList& headers);

// The canonical request text (for tests and debugging: it contains no secret).
std::string CanonicalRequest(const Request& request);

// "20261203T100405Z" (ISO 8601 basic, UTC).
std::string AmzDate(std::chrono::system_clock::time_point time);

std::string Sha256Hex(std::string_view data);
inline constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct Signed {
  // Headers to add to the request as sent: x-amz-date, x-amz-content-sha256,
  // x-amz-security-token (with a session token) and authorization.
  HeaderList headers{};
  std::string canonical_request{};
  std::string string_to_sign{};
};

// Signs `request` for `region` and `service` ("s3") at `time`.
Signed Sign(const Request& request, const Credentials& credentials, std::string_view region,
            std::string_view service, std::chrono::system_clock::time_point time);

}  // namespace rayagg::sigv4
