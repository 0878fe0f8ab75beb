// Turns a sink's encoded batch into what goes on the wire: the configured
// static headers, "Authorization: Bearer <token>" from bearer_token_file and
// the gzip encoding. Kept apart from HttpTransport, which only sends, so the
// per-sink request options live in one place.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/secret_file.h"
#include "http/request.h"
#include "rayagg/config.h"

namespace rayagg {

// How a sink's token file is named in errors ("bearer_token_file /path: ...").
inline constexpr std::string_view kBearerTokenFileKey = "bearer_token_file";

struct PreparedRequest {
  // What to send: the gzip'd body when the sink compresses, else the batch
  // body Prepare() was given, not copied (the batch outlives the request).
  std::string_view body() const { return compressed ? std::string_view(*compressed) : batch_body; }

  std::string_view batch_body;
  std::optional<std::string> compressed;
  HttpHeaders headers;
};

class RequestPreparer {
 public:
  // Takes headers, bearer_token_file and compression from `config`.
  explicit RequestPreparer(const SinkConfig& config);

  // Errors (an unreadable token file) are payload- and secret-free; the
  // caller treats them as a failed attempt and retries later.
  absl::StatusOr<PreparedRequest> Prepare(std::string_view body);

 private:
  HttpHeaders static_headers_;
  std::optional<SecretFile> token_file_;
  Compression compression_;
};

}  // namespace rayagg
