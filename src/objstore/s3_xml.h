// The XML documents of the S3 API the client reads and writes: error
// bodies, ListObjectsV2 pages, multipart initiation and completion.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "rayagg/object_store.h"

namespace rayagg::s3 {

struct ErrorBody {
  std::string code{};  // "SlowDown"; RGW leaves Message empty, so match on this
  std::string message{};
  std::string request_id{};
};

// The <Error> document of a failed request (or of a 200 answer to
// CompleteMultipartUpload that failed late); nullopt when `body` is not one.
std::optional<ErrorBody> ParseErrorBody(std::string_view body);

// A <ListBucketResult> page; keys as the server sent them (full keys).
absl::StatusOr<ListObjectsPage> ParseListObjectsV2(std::string_view body);

// The UploadId of an <InitiateMultipartUploadResult>.
absl::StatusOr<std::string> ParseUploadId(std::string_view body);

// <CompleteMultipartUpload> listing parts 1..N with their ETags (as
// UploadPart returned them, quotes included).
std::string CompleteMultipartUploadXml(const std::vector<std::string>& part_etags);

// "2026-12-03T10:04:05.000Z" (ISO 8601, as LastModified); nullopt otherwise.
std::optional<std::chrono::system_clock::time_point> ParseIso8601(std::string_view text);

// An HTTP Date header ("Thu, 03 Dec 2026 10:04:05 GMT", RFC 9110 IMF-fixdate).
std::optional<std::chrono::system_clock::time_point> ParseHttpDate(std::string_view text);

}  // namespace rayagg::s3
