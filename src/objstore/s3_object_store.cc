#include "objstore/s3_object_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/text.h"
#include "objstore/rules/object_key.h"
#include "objstore/s3_errors.h"
#include "objstore/s3_xml.h"
#include "objstore/sigv4.h"
#include "rayagg/clock.h"

namespace rayagg {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kMaxIdleConnections = 8;
// List pages of 1000 long keys, and error documents.
constexpr uint64_t kMaxListAnswerBytes = 8ull * 1024 * 1024;
constexpr std::string_view kMetaPrefix = "x-amz-meta-";

std::string_view View(beast::string_view text) { return {text.data(), text.size()}; }

}  // namespace

absl::StatusOr<std::unique_ptr<S3ObjectStore>> S3ObjectStore::Make(asio::any_io_executor executor,
                                                                   const ObjectStoreConfig& config,
                                                                   spdlog::logger& logger,
                                                                   Clock& clock) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl(config.url);
  if (!url.ok()) return url.status();
  if (url->kind != StoreUrl::Kind::kS3) {
    return absl::InvalidArgumentError(strings::Cat("'", config.url, "' is not an s3:// URL"));
  }
  absl::StatusOr<s3::Addressing> addressing = s3::ResolveAddressing(*url, config.s3);
  if (!addressing.ok()) return addressing.status();
  if (config.s3.part_size < 5ull * 1024 * 1024 ||
      config.s3.multipart_threshold < config.s3.part_size) {
    return absl::InvalidArgumentError(
        "s3.part_size must be at least 5MiB (S3's smallest part) and s3.multipart_threshold at "
        "least s3.part_size");
  }
  std::optional<HttpClientTls> tls;
  if (addressing->endpoint.https) {
    absl::StatusOr<HttpClientTls> made = MakeHttpClientTls(config.tls);
    if (!made.ok()) return made.status();
    tls = *std::move(made);
  }
  absl::StatusOr<s3::CredentialSource> credentials = s3::CredentialSource::FromConfig(config.s3);
  if (!credentials.ok()) return credentials.status();
  return std::unique_ptr<S3ObjectStore>(
      new S3ObjectStore(std::move(executor), *std::move(addressing), std::move(tls),
                        *std::move(credentials), config, logger, clock));
}

S3ObjectStore::S3ObjectStore(asio::any_io_executor executor, s3::Addressing addressing,
                             std::optional<HttpClientTls> tls, s3::CredentialSource credentials,
                             const ObjectStoreConfig& config, spdlog::logger& logger, Clock& clock)
    : executor_(std::move(executor)),
      addressing_(std::move(addressing)),
      tls_(std::move(tls)),
      credentials_(std::move(credentials)),
      request_timeout_(config.request_timeout),
      multipart_threshold_(config.s3.multipart_threshold),
      part_size_(config.s3.part_size),
      logger_(logger),
      clock_(clock) {}

std::string S3ObjectStore::Describe() const {
  std::string out = strings::Cat("s3://", addressing_.bucket);
  if (!addressing_.prefix.empty()) strings::Append(out, "/", addressing_.prefix);
  strings::Append(out, " at ", addressing_.endpoint_url, " (",
                  addressing_.path_style ? "path style" : "virtual-hosted style", ", region ",
                  addressing_.region);
  if (addressing_.endpoint.connect_host != addressing_.endpoint.tls_name) {
    strings::Append(out, ", connecting to ", addressing_.endpoint.connect_host, ":",
                    static_cast<uint32_t>(addressing_.endpoint.connect_port));
  }
  strings::Append(out, ", credentials from ", credentials_.Describe(), ")");
  return out;
}

std::string S3ObjectStore::What(std::string_view operation, std::string_view full_key) const {
  const size_t slash = full_key.rfind('/');
  const std::string_view directory =
      slash == std::string_view::npos ? std::string_view() : full_key.substr(0, slash + 1);
  return strings::Cat(operation, " s3://", addressing_.bucket, "/", directory,
                      slash == std::string_view::npos ? full_key : "...");
}

std::unique_ptr<HttpConnection> S3ObjectStore::AcquireConnection() {
  if (!idle_connections_.empty()) {
    std::unique_ptr<HttpConnection> connection = std::move(idle_connections_.back());
    idle_connections_.pop_back();
    return connection;
  }
  return std::make_unique<HttpConnection>(executor_, addressing_.endpoint, tls_);
}

void S3ObjectStore::ReleaseConnection(std::unique_ptr<HttpConnection> connection) {
  if (connection->connected() && idle_connections_.size() < kMaxIdleConnections) {
    idle_connections_.push_back(std::move(connection));
  }
}

asio::awaitable<absl::StatusOr<HttpExchangeResponse>> S3ObjectStore::Send(const Call& call) {
  // At most one re-signed retry after the server told us our clock is off.
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<sigv4::Credentials> credentials = credentials_.Current();
    if (!credentials.ok()) co_return credentials.status();

    sigv4::Request to_sign;
    to_sign.method = std::string(View(http::to_string(call.method)));
    to_sign.encoded_path = call.path;
    to_sign.query = call.query;
    to_sign.headers = call.headers;
    to_sign.headers.emplace_back("host", addressing_.endpoint.host_header);
    to_sign.payload_sha256_hex = call.payload_sha256;
    const sigv4::Signed signed_request = sigv4::Sign(to_sign, *credentials, addressing_.region,
                                                     "s3", clock_.WallNow() + clock_offset_);

    HttpExchangeRequest request;
    request.method = call.method;
    request.target = call.path;
    if (const std::string query = sigv4::CanonicalQuery(call.query); !query.empty()) {
      strings::Append(request.target, "?", query);
    }
    request.headers = call.headers;
    request.headers.insert(request.headers.end(), signed_request.headers.begin(),
                           signed_request.headers.end());
    request.body = call.body;
    request.deadline = SteadyClock::now() + request_timeout_ + ObjectTransferTime(call.body.size());
    request.max_response_body = call.max_response_body;
    request.response_bytes_per_second = call.download ? kObjectTransferBytesPerSecond : 0;

    std::unique_ptr<HttpConnection> connection = AcquireConnection();
    HttpExchangeResult result = co_await connection->Exchange(request);
    ReleaseConnection(std::move(connection));
    if (result.error) co_return s3::ClassifyTransportError(result.error, call.what);

    HttpExchangeResponse& response = result.response;
    const std::optional<s3::ErrorBody> error = s3::ParseErrorBody(response.body);
    if (response.status / 100 == 2 && !error) co_return std::move(response);

    const std::string code = error ? error->code : "";
    if (code == "RequestTimeTooSkewed" && attempt == 0) {
      const auto date = response.headers.find(http::field::date);
      if (date != response.headers.end()) {
        if (auto server_time = s3::ParseHttpDate(View(date->value()))) {
          clock_offset_ = *server_time - clock_.WallNow();
          logger_.warn(
              "S3 {}: this machine's clock differs from the server's by {} s; signing with the "
              "server's time from now on",
              addressing_.endpoint_url,
              std::chrono::duration_cast<std::chrono::seconds>(clock_offset_).count());
          continue;
        }
      }
    }
    co_return s3::ClassifyAnswer(response.status, code, call.what);
  }
}

std::vector<std::pair<std::string, std::string>> S3ObjectStore::ObjectHeaders(
    const PutObjectRequest& request) const {
  std::vector<std::pair<std::string, std::string>> headers;
  if (!request.content_type.empty()) headers.emplace_back("content-type", request.content_type);
  if (!request.content_encoding.empty()) {
    headers.emplace_back("content-encoding", request.content_encoding);
  }
  for (const auto& [name, value] : request.metadata) {
    headers.emplace_back(strings::Cat(kMetaPrefix, name), value);
  }
  return headers;
}

asio::awaitable<absl::Status> S3ObjectStore::Put(PutObjectRequest request) {
  if (auto status = ValidateObjectKey(request.key); !status.ok()) co_return status;
  if (auto status = ValidateObjectMetadata(request.metadata); !status.ok()) co_return status;
  std::string full_key = addressing_.FullKey(request.key);
  if (full_key.size() > kMaxObjectKeyBytes) {
    co_return ObjectStoreError(absl::StatusCode::kInvalidArgument, "invalid_key",
                               "object key with the URL's prefix is longer than 1024 bytes");
  }
  if (request.body.size() >= multipart_threshold_) {
    co_return co_await PutMultipart(request, std::move(full_key));
  }
  co_return co_await PutSingle(request, std::move(full_key));
}

asio::awaitable<absl::Status> S3ObjectStore::PutSingle(const PutObjectRequest& request,
                                                       std::string full_key) {
  Call call;
  call.method = http::verb::put;
  call.what = What("PUT", full_key);
  call.path = addressing_.ObjectPath(full_key);
  call.headers = ObjectHeaders(request);
  call.body = request.body;
  call.payload_sha256 = sigv4::Sha256Hex(request.body);
  absl::StatusOr<HttpExchangeResponse> answer = co_await Send(call);
  co_return answer.status();
}

asio::awaitable<absl::Status> S3ObjectStore::PutMultipart(const PutObjectRequest& request,
                                                          std::string full_key) {
  const std::string path = addressing_.ObjectPath(full_key);
  Call create;
  create.method = http::verb::post;
  create.what = What("CreateMultipartUpload", full_key);
  create.path = path;
  create.query = {{"uploads", ""}};
  create.headers = ObjectHeaders(request);
  create.payload_sha256 = std::string(sigv4::kEmptySha256);
  absl::StatusOr<HttpExchangeResponse> created = co_await Send(create);
  if (!created.ok()) co_return created.status();
  absl::StatusOr<std::string> upload_id = s3::ParseUploadId(created->body);
  if (!upload_id.ok()) co_return upload_id.status();
  ++multipart_uploads_;

  absl::Status failure;
  std::vector<std::string> etags;
  for (uint64_t offset = 0; offset < request.body.size(); offset += part_size_) {
    Call part;
    part.method = http::verb::put;
    part.what = What("UploadPart", full_key);
    part.path = path;
    part.query = {{"partNumber", std::to_string(etags.size() + 1)}, {"uploadId", *upload_id}};
    part.body = request.body.substr(offset, part_size_);
    part.payload_sha256 = sigv4::Sha256Hex(part.body);
    absl::StatusOr<HttpExchangeResponse> uploaded = co_await Send(part);
    if (!uploaded.ok()) {
      failure = uploaded.status();
      break;
    }
    const auto etag = uploaded->headers.find(http::field::etag);
    if (etag == uploaded->headers.end()) {
      failure = ObjectStoreError(absl::StatusCode::kUnavailable, "malformed_answer",
                                 strings::Cat(part.what, ": the answer has no ETag"));
      break;
    }
    etags.emplace_back(View(etag->value()));
  }
  if (failure.ok()) {
    const std::string xml = s3::CompleteMultipartUploadXml(etags);
    Call complete;
    complete.method = http::verb::post;
    complete.what = What("CompleteMultipartUpload", full_key);
    complete.path = path;
    complete.query = {{"uploadId", *upload_id}};
    complete.headers = {{"content-type", "application/xml"}};
    complete.body = xml;
    complete.payload_sha256 = sigv4::Sha256Hex(xml);
    // Send() also catches the <Error> document S3 may send with a 200 here.
    absl::StatusOr<HttpExchangeResponse> completed = co_await Send(complete);
    if (completed.ok()) co_return absl::OkStatus();
    failure = completed.status();
  }
  co_await AbortMultipart(full_key, *upload_id);
  co_return failure;
}

asio::awaitable<void> S3ObjectStore::AbortMultipart(const std::string& full_key,
                                                    const std::string& upload_id) {
  Call abort;
  abort.method = http::verb::delete_;
  abort.what = What("AbortMultipartUpload", full_key);
  abort.path = addressing_.ObjectPath(full_key);
  abort.query = {{"uploadId", upload_id}};
  abort.payload_sha256 = std::string(sigv4::kEmptySha256);
  absl::StatusOr<HttpExchangeResponse> aborted = co_await Send(abort);
  if (aborted.ok() || absl::IsUnavailable(aborted.status())) {
    // NoSuchUpload (classified as unavailable) means it is gone already.
    ++multipart_aborts_;
  }
  if (!aborted.ok()) {
    // Parts stay stored (and billed) until the bucket's
    // AbortIncompleteMultipartUpload lifecycle rule removes them.
    logger_.warn("{}: {}; the bucket's AbortIncompleteMultipartUpload rule will remove its parts",
                 abort.what, strings::View(aborted.status().message()));
  }
}

asio::awaitable<absl::StatusOr<StoredObject>> S3ObjectStore::Get(GetObjectRequest request) {
  if (auto status = ValidateObjectKey(request.key); !status.ok()) co_return status;
  const std::string full_key = addressing_.FullKey(request.key);
  Call call;
  call.method = http::verb::get;
  call.what = What("GET", full_key);
  call.path = addressing_.ObjectPath(full_key);
  call.payload_sha256 = std::string(sigv4::kEmptySha256);
  call.max_response_body = request.max_bytes;
  call.download = true;
  absl::StatusOr<HttpExchangeResponse> answer = co_await Send(call);
  if (!answer.ok()) co_return answer.status();
  StoredObject object;
  object.body = std::move(answer->body);
  for (const auto& field : answer->headers) {
    const std::string name = strings::ToLower(View(field.name_string()));
    const std::string_view value = View(field.value());
    if (name == "content-type") {
      object.content_type = std::string(value);
    } else if (name == "content-encoding") {
      object.content_encoding = std::string(value);
    } else if (name.rfind(kMetaPrefix, 0) == 0) {
      object.metadata.emplace_back(name.substr(kMetaPrefix.size()), std::string(value));
    }
  }
  std::sort(object.metadata.begin(), object.metadata.end());
  co_return object;
}

asio::awaitable<absl::StatusOr<ListObjectsPage>> S3ObjectStore::List(ListObjectsRequest request) {
  if (auto status = ValidateKeyPrefix(request.prefix); !status.ok()) co_return status;
  if (request.max_keys == 0 || request.max_keys > 1000) {
    co_return ObjectStoreError(absl::StatusCode::kInvalidArgument, "invalid_request",
                               "max_keys must be 1..1000");
  }
  const std::string root = addressing_.prefix.empty() ? "" : addressing_.prefix + "/";
  Call call;
  call.method = http::verb::get;
  call.what = strings::Cat("ListObjectsV2 s3://", addressing_.bucket, "/", root, request.prefix);
  call.path = addressing_.BucketPath();
  call.query = {{"list-type", "2"},
                {"prefix", root + request.prefix},
                {"max-keys", std::to_string(request.max_keys)}};
  if (!request.delimiter.empty()) call.query.emplace_back("delimiter", request.delimiter);
  if (!request.continuation_token.empty()) {
    call.query.emplace_back("continuation-token", request.continuation_token);
  } else if (!request.start_after.empty()) {
    call.query.emplace_back("start-after", root + request.start_after);
  }
  call.payload_sha256 = std::string(sigv4::kEmptySha256);
  call.max_response_body = kMaxListAnswerBytes;
  absl::StatusOr<HttpExchangeResponse> answer = co_await Send(call);
  if (!answer.ok()) co_return answer.status();
  absl::StatusOr<ListObjectsPage> page = s3::ParseListObjectsV2(answer->body);
  if (!page.ok()) co_return page.status();
  // Keys relative to the store's root, as the caller named them.
  const auto relative = [&](std::string& key) {
    if (key.compare(0, root.size(), root) == 0) key.erase(0, root.size());
  };
  for (ObjectInfo& object : page->objects) relative(object.key);
  for (std::string& prefix : page->common_prefixes) relative(prefix);
  co_return page;
}

asio::awaitable<absl::Status> S3ObjectStore::Delete(std::string key) {
  if (auto status = ValidateObjectKey(key); !status.ok()) co_return status;
  const std::string full_key = addressing_.FullKey(key);
  Call call;
  call.method = http::verb::delete_;
  call.what = What("DELETE", full_key);
  call.path = addressing_.ObjectPath(full_key);
  call.payload_sha256 = std::string(sigv4::kEmptySha256);
  co_return (co_await Send(call)).status();
}

asio::awaitable<absl::Status> S3ObjectStore::CreateBucket() {
  Call call;
  call.method = http::verb::put;
  call.what = strings::Cat("CreateBucket ", addressing_.bucket);
  call.path = addressing_.BucketPath();
  call.payload_sha256 = std::string(sigv4::kEmptySha256);
  co_return (co_await Send(call)).status();
}

}  // namespace rayagg
