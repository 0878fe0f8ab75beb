// http:// sinks: POST the JSON array to the configured URL verbatim over a
// keep-alive connection, with the sink's headers, token and compression
// (RequestPreparer), and report the status (or the transport error) to the
// sink, whose retry policy classifies it.
#pragma once

#include <chrono>
#include <memory>

#include "common/url.h"
#include "http/http_client.h"
#include "rayagg/batch_transport.h"
#include "rayagg/config.h"
#include "sinks/request_preparer.h"

namespace rayagg {

class HttpTransport final : public BatchTransport {
 public:
  // Uses request_timeout, headers, bearer_token_file and compression of
  // `config`; `tls` is required for https:// URLs (MakeHttpClientTls).
  HttpTransport(asio::any_io_executor executor, Url url, const SinkConfig& config,
                std::optional<HttpClientTls> tls);

  asio::awaitable<DeliveryOutcome> Deliver(std::string_view body) override;
  std::string Describe() const override;

 private:
  Url url_;
  RequestPreparer preparer_;
  HttpClient client_;
};

}  // namespace rayagg
