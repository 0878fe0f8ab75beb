#include "sinks/http_transport.h"

namespace rayagg {

HttpTransport::HttpTransport(asio::any_io_executor executor, Url url,
                             std::chrono::milliseconds timeout)
    : url_(url), client_(std::move(executor), std::move(url), timeout) {}

asio::awaitable<DeliveryOutcome> HttpTransport::Deliver(std::string_view body) {
  HttpResult result = co_await client_.Post(std::string(body), {});
  if (result.error) co_return DeliveryOutcome{false, result.error.message()};
  if (result.response.status >= 200 && result.response.status < 300) {
    co_return DeliveryOutcome{true, {}};
  }
  co_return DeliveryOutcome{false, "status " + std::to_string(result.response.status)};
}

std::string HttpTransport::Describe() const {
  return url_.scheme + "://" + url_.host_header + url_.target;
}

}  // namespace rayagg
