#include "sinks/http_transport.h"

namespace rayagg {

HttpTransport::HttpTransport(asio::any_io_executor executor, Url url, const SinkConfig& config,
                             std::optional<HttpClientTls> tls)
    : url_(url),
      preparer_(config),
      client_(std::move(executor), std::move(url), config.request_timeout, std::move(tls)) {}

asio::awaitable<DeliveryOutcome> HttpTransport::Deliver(std::string_view body) {
  absl::StatusOr<PreparedRequest> request = preparer_.Prepare(body);
  if (!request.ok()) co_return DeliveryOutcome{false, std::string(request.status().message())};
  HttpResult result = co_await client_.Post(request->body(), std::move(request->headers));
  if (result.error) {
    co_return DeliveryOutcome{.failure = result.error.message(),
                              .reason = result.error == asio::error::timed_out
                                            ? FailureReason::kTimeout
                                            : FailureReason::kConnection};
  }
  // The sink's retry policy classifies the status (redirects are not followed).
  co_return DeliveryOutcome{.failure = "status " + std::to_string(result.response.status),
                            .status = result.response.status,
                            .retry_after = std::move(result.response.retry_after)};
}

std::string HttpTransport::Describe() const {
  return url_.scheme + "://" + url_.host_header + url_.target;
}

}  // namespace rayagg
