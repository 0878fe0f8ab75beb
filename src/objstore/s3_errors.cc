#include "objstore/s3_errors.h"

#include <boost/asio/ssl/error.hpp>
#include <string>

#include "common/text.h"
#include "rayagg/object_store.h"

namespace rayagg::s3 {
namespace {

using absl::StatusCode;

struct CodeRule {
  std::string_view code;
  StatusCode status;
};

// By <Code>, whatever the HTTP status (AWS answers RequestTimeout with 400).
constexpr CodeRule kRules[] = {
    // Transient: back off and retry.
    {"SlowDown", StatusCode::kUnavailable},
    {"InternalError", StatusCode::kUnavailable},
    {"ServiceUnavailable", StatusCode::kUnavailable},
    {"RequestTimeout", StatusCode::kUnavailable},
    {"OperationAborted", StatusCode::kUnavailable},
    {"NoSuchUpload", StatusCode::kUnavailable},  // a multipart upload vanished: start over
    // Credentials and clock: retry slowly until an operator (or a rotated
    // credentials file) fixes them.
    {"InvalidAccessKeyId", StatusCode::kUnauthenticated},
    {"SignatureDoesNotMatch", StatusCode::kUnauthenticated},
    {"ExpiredToken", StatusCode::kUnauthenticated},
    {"InvalidToken", StatusCode::kUnauthenticated},
    {"TokenRefreshRequired", StatusCode::kUnauthenticated},
    {"RequestTimeTooSkewed", StatusCode::kUnauthenticated},
    {"AccessDenied", StatusCode::kPermissionDenied},
    {"AllAccessDisabled", StatusCode::kPermissionDenied},
    {"NoSuchBucket", StatusCode::kFailedPrecondition},
    // The body did not arrive as signed: resend a few times, then give up.
    {"XAmzContentSHA256Mismatch", StatusCode::kDataLoss},
    {"BadDigest", StatusCode::kDataLoss},
    {"NoSuchKey", StatusCode::kNotFound},
};

std::string_view Hint(std::string_view code) {
  if (code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId") {
    return " (check the access key and secret; for a wrong region see s3.region)";
  }
  if (code == "NoSuchBucket") return " (create the bucket; it is never created for you)";
  if (code == "AccessDenied") return " (the credentials lack s3:PutObject/ListBucket here)";
  if (code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed") {
    return " (the bucket lives in another region: set s3.region and s3.endpoint)";
  }
  if (code == "RequestTimeTooSkewed") return " (this machine's clock is off)";
  return "";
}

}  // namespace

absl::Status ClassifyAnswer(unsigned status, std::string_view code, std::string_view what) {
  const std::string reason = code.empty() ? strings::Cat("http_", status) : std::string(code);
  const std::string message =
      strings::Cat(what, ": HTTP ", status, code.empty() ? "" : " ", code, Hint(code));
  for (const CodeRule& rule : kRules) {
    if (rule.code == code) return ObjectStoreError(rule.status, reason, message);
  }
  if (status == 404 && code.empty())
    return ObjectStoreError(StatusCode::kNotFound, reason, message);
  if (status >= 500 || status == 408 || status == 429) {
    return ObjectStoreError(StatusCode::kUnavailable, reason, message);
  }
  if (status == 401) return ObjectStoreError(StatusCode::kUnauthenticated, reason, message);
  if (status == 403) return ObjectStoreError(StatusCode::kPermissionDenied, reason, message);
  // Any other 4xx or 3xx (redirects are not followed): the request cannot
  // succeed as configured; nothing is dropped for it, an operator must act.
  return ObjectStoreError(StatusCode::kFailedPrecondition, reason, message);
}

absl::Status ClassifyTransportError(const boost::system::error_code& error, std::string_view what) {
  if (error == asio::error::timed_out) {
    return ObjectStoreError(StatusCode::kDeadlineExceeded, "timeout",
                            strings::Cat(what, ": no answer within the deadline"));
  }
  if (error.category() == asio::error::get_ssl_category() ||
      error == asio::ssl::error::stream_truncated) {
    return ObjectStoreError(StatusCode::kUnavailable, "tls",
                            strings::Cat(what, ": TLS failed: ", error.message()));
  }
  if (error == http::error::body_limit) {
    return ObjectStoreError(StatusCode::kResourceExhausted, "too_large",
                            strings::Cat(what, ": the answer is larger than allowed"));
  }
  return ObjectStoreError(StatusCode::kUnavailable, "connection",
                          strings::Cat(what, ": ", error.message()));
}

}  // namespace rayagg::s3
