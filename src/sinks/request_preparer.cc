#include "sinks/request_preparer.h"

#include "http/gzip.h"

namespace rayagg {

RequestPreparer::RequestPreparer(const SinkConfig& config)
    : static_headers_(config.headers.begin(), config.headers.end()),
      compression_(config.compression) {
  if (!config.bearer_token_file.empty()) {
    token_file_.emplace(std::string(kBearerTokenFileKey), config.bearer_token_file);
  }
}

absl::StatusOr<PreparedRequest> RequestPreparer::Prepare(std::string_view body) {
  PreparedRequest prepared;
  prepared.headers = static_headers_;
  if (token_file_.has_value()) {
    absl::StatusOr<std::string> token = token_file_->Current();
    if (!token.ok()) return token.status();
    prepared.headers.emplace_back("Authorization", "Bearer " + *token);
  }
  if (compression_ == Compression::kGzip) {
    prepared.compressed.emplace();
    if (absl::Status status = GzipCompress(body, *prepared.compressed); !status.ok()) return status;
    prepared.headers.emplace_back("Content-Encoding", "gzip");
  } else {
    prepared.batch_body = body;
  }
  return prepared;
}

}  // namespace rayagg
