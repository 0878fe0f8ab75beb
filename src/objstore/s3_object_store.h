// s3://bucket[/prefix]: our own S3 client on OpenSSL and Beast (no S3 SDK is
// in Debian). Every request is signed with SigV4 over the real payload
// SHA-256 (never UNSIGNED-PAYLOAD or aws-chunked, which Alibaba OSS refuses),
// has its own deadline (request_timeout + body bytes at 1 MiB/s) and is
// classified by the error <Code> of the answer (s3_errors.h).
//
// Objects of s3.multipart_threshold (16 MiB) or more are uploaded in parts of
// s3.part_size (8 MiB), one after the other on one connection; a multipart
// upload that fails is aborted (and a lifecycle rule removes what an abort
// could not, docs/OPERATIONS.md). RequestTimeTooSkewed: the offset between
// our clock and the server's Date header is remembered and the request is
// signed again at once with the corrected time.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/http_connection.h"
#include "objstore/s3_addressing.h"
#include "objstore/s3_credentials.h"
#include "rayagg/asio.h"
#include "rayagg/config.h"
#include "rayagg/object_store.h"

namespace spdlog {
class logger;
}

namespace rayagg {

class Clock;

class S3ObjectStore : public ObjectStore {
 public:
  // Config errors (addressing, TLS files, missing credentials) name the key.
  // Requests are signed with `clock`'s wall time (tests inject skew); it
  // outlives the store.
  static absl::StatusOr<std::unique_ptr<S3ObjectStore>> Make(asio::any_io_executor executor,
                                                             const ObjectStoreConfig& config,
                                                             spdlog::logger& logger, Clock& clock);

  asio::awaitable<absl::Status> Put(PutObjectRequest request) override;
  asio::awaitable<absl::StatusOr<StoredObject>> Get(GetObjectRequest request) override;
  asio::awaitable<absl::StatusOr<ListObjectsPage>> List(ListObjectsRequest request) override;
  std::string Describe() const override;

  // Removes one object (tests and tools; the sink never deletes).
  asio::awaitable<absl::Status> Delete(std::string key);
  // Creates the bucket (tests: every RGW test works in a bucket of its own).
  asio::awaitable<absl::Status> CreateBucket();

  // Changes when the credentials in use changed (a rotated file was read).
  uint64_t credentials_generation() const { return credentials_.generation(); }
  // Server time minus our time, learned from RequestTimeTooSkewed answers.
  std::chrono::system_clock::duration clock_offset() const { return clock_offset_; }
  // Multipart uploads started, and aborted after a failure (tests, metrics).
  uint64_t multipart_uploads() const { return multipart_uploads_; }
  uint64_t multipart_aborts() const { return multipart_aborts_; }

 private:
  struct Call {
    http::verb method = http::verb::get;
    std::string what;  // "PUT <key prefix>" for messages; no secrets, no payload
    std::string path;  // encoded
    std::vector<std::pair<std::string, std::string>> query;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string_view body;
    std::string payload_sha256;  // of body; computed once, reused by a re-signed retry
    uint64_t max_response_body = 1024 * 1024;
    bool download = false;  // deadline grows with the announced response size
  };

  S3ObjectStore(asio::any_io_executor executor, s3::Addressing addressing,
                std::optional<HttpClientTls> tls, s3::CredentialSource credentials,
                const ObjectStoreConfig& config, spdlog::logger& logger, Clock& clock);

  // Signs and sends `call` on a pooled connection; a 2xx answer is returned,
  // anything else is a classified error.
  asio::awaitable<absl::StatusOr<HttpExchangeResponse>> Send(const Call& call);
  asio::awaitable<absl::Status> PutSingle(const PutObjectRequest& request, std::string full_key);
  asio::awaitable<absl::Status> PutMultipart(const PutObjectRequest& request, std::string full_key);
  asio::awaitable<void> AbortMultipart(const std::string& full_key, const std::string& upload_id);
  std::vector<std::pair<std::string, std::string>> ObjectHeaders(
      const PutObjectRequest& request) const;
  std::unique_ptr<HttpConnection> AcquireConnection();
  void ReleaseConnection(std::unique_ptr<HttpConnection> connection);
  // Operation and key as they appear in messages: the key's directory only
  // (event keys are long; their directory says which cluster and session).
  std::string What(std::string_view operation, std::string_view full_key) const;

  asio::any_io_executor executor_;
  s3::Addressing addressing_;
  std::optional<HttpClientTls> tls_;
  s3::CredentialSource credentials_;
  std::chrono::milliseconds request_timeout_;
  uint64_t multipart_threshold_;
  uint64_t part_size_;
  spdlog::logger& logger_;
  Clock& clock_;
  std::chrono::system_clock::duration clock_offset_{0};
  std::vector<std::unique_ptr<HttpConnection>> idle_connections_;
  uint64_t multipart_uploads_ = 0;
  uint64_t multipart_aborts_ = 0;
};

}  // namespace rayagg
