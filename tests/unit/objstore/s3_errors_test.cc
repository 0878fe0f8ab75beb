// The classification table of docs/DELIVERY.md, row by row.
#include "objstore/s3_errors.h"

#include <gtest/gtest.h>

#include "rayagg/object_store.h"

namespace rayagg::s3 {
namespace {

using absl::StatusCode;

TEST(S3ErrorsTest, ByCode) {
  struct Row {
    unsigned status;
    std::string_view code;
    StatusCode expected;
  };
  const Row rows[] = {
      {503, "SlowDown", StatusCode::kUnavailable},
      {500, "InternalError", StatusCode::kUnavailable},
      {503, "ServiceUnavailable", StatusCode::kUnavailable},
      {400, "RequestTimeout", StatusCode::kUnavailable},
      {408, "RequestTimeout", StatusCode::kUnavailable},
      {404, "NoSuchUpload", StatusCode::kUnavailable},
      {403, "AccessDenied", StatusCode::kPermissionDenied},
      {403, "InvalidAccessKeyId", StatusCode::kUnauthenticated},
      {403, "SignatureDoesNotMatch", StatusCode::kUnauthenticated},
      {400, "ExpiredToken", StatusCode::kUnauthenticated},
      {403, "RequestTimeTooSkewed", StatusCode::kUnauthenticated},
      {404, "NoSuchBucket", StatusCode::kFailedPrecondition},
      {400, "XAmzContentSHA256Mismatch", StatusCode::kDataLoss},
      {400, "BadDigest", StatusCode::kDataLoss},
      {404, "NoSuchKey", StatusCode::kNotFound},
      {400, "InvalidArgument", StatusCode::kFailedPrecondition},
      {301, "PermanentRedirect", StatusCode::kFailedPrecondition},
      {400, "AuthorizationHeaderMalformed", StatusCode::kFailedPrecondition},
      {500, "", StatusCode::kUnavailable},
      {502, "", StatusCode::kUnavailable},
      {503, "", StatusCode::kUnavailable},
      {429, "", StatusCode::kUnavailable},
      {408, "", StatusCode::kUnavailable},
      {403, "", StatusCode::kPermissionDenied},
      {401, "", StatusCode::kUnauthenticated},
      {404, "", StatusCode::kNotFound},
      {400, "", StatusCode::kFailedPrecondition},
  };
  for (const Row& row : rows) {
    const absl::Status status = ClassifyAnswer(row.status, row.code, "PUT s3://b/p/...");
    EXPECT_EQ(status.code(), row.expected) << row.status << " " << row.code;
    EXPECT_EQ(ObjectStoreErrorReason(status),
              row.code.empty() ? "http_" + std::to_string(row.status) : std::string(row.code));
    EXPECT_NE(status.message().find("PUT s3://b/p/..."), std::string::npos);
  }
}

TEST(S3ErrorsTest, TransportErrors) {
  absl::Status timeout = ClassifyTransportError(asio::error::timed_out, "GET x");
  EXPECT_EQ(timeout.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(ObjectStoreErrorReason(timeout), "timeout");
  absl::Status refused = ClassifyTransportError(asio::error::connection_refused, "GET x");
  EXPECT_EQ(refused.code(), StatusCode::kUnavailable);
  EXPECT_EQ(ObjectStoreErrorReason(refused), "connection");
  absl::Status big = ClassifyTransportError(http::error::body_limit, "GET x");
  EXPECT_EQ(big.code(), StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace rayagg::s3
