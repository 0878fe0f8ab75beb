#include "ingest/http_bearer_check.h"

#include <optional>
#include <string_view>

namespace rayagg {

BearerTokenChecker HttpBearerCheck::CheckerFor(const std::string& token) {
  return BearerTokenChecker(IngestAuthConfig{.token_required = !token.empty(), .token = token});
}

HttpBearerCheck::HttpBearerCheck(const std::string& token) : checker_(CheckerFor(token)) {}

void HttpBearerCheck::SetToken(const std::string& token) {
  BearerTokenChecker checker = CheckerFor(token);  // the digest is computed outside the lock
  MutexLock lock(mutex_);
  checker_ = checker;
}

bool HttpBearerCheck::Allows(const HttpRequest::header_type& header) const {
  const auto field = header.find(http::field::authorization);
  std::optional<std::string_view> authorization;
  if (field != header.end()) {
    authorization = std::string_view(field->value().data(), field->value().size());
  }
  MutexLock lock(mutex_);
  return checker_.Allows(authorization);
}

HttpHeaderCheck HttpBearerCheck::AsHeaderCheck() const {
  return [this](const HttpRequest::header_type& header) { return Allows(header); };
}

}  // namespace rayagg
