// http:// sinks: POST the JSON array to the configured URL verbatim over a
// keep-alive connection. Success is a 2xx status; everything else (other
// statuses, transport errors, timeouts) is a failed attempt the sink retries.
#pragma once

#include <chrono>
#include <memory>

#include "http/http_client.h"
#include "common/url.h"
#include "sinks/batch_transport.h"

namespace rayagg {

class HttpTransport final : public BatchTransport {
 public:
  HttpTransport(asio::any_io_executor executor, Url url, std::chrono::milliseconds timeout);

  asio::awaitable<DeliveryOutcome> Deliver(std::string_view body) override;
  std::string Describe() const override;

 private:
  Url url_;
  HttpClient client_;
};

}  // namespace rayagg
