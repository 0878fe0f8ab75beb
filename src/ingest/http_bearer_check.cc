#include "ingest/http_bearer_check.h"

#include <optional>
#include <string_view>

#include "ingest/bearer_token_checker.h"

namespace rayagg {

HttpHeaderCheck MakeBearerHeaderCheck(const std::string& token) {
  return [checker = BearerTokenChecker(IngestAuthConfig{.token_required = true, .token = token})](
             const HttpRequest::header_type& header) {
    const auto field = header.find(http::field::authorization);
    std::optional<std::string_view> authorization;
    if (field != header.end()) {
      authorization = std::string_view(field->value().data(), field->value().size());
    }
    return checker.Allows(authorization);
  };
}

}  // namespace rayagg
