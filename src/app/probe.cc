#include "app/probe.h"

#include <optional>

#include "common/url.h"
#include "http/http_client.h"
#include "rayagg/asio.h"

namespace rayagg {

ProbeResult Probe(const std::string& url_text, std::chrono::milliseconds timeout) {
  absl::StatusOr<Url> url = ParseUrl(url_text);
  if (!url.ok()) return {false, "invalid URL: " + std::string(url.status().message())};
  if (url->scheme != "http") return {false, "only http:// URLs can be probed"};

  asio::io_context io_context{1};
  HttpClient client(io_context.get_executor(), *url, timeout);
  std::optional<HttpResult> result;
  asio::co_spawn(io_context, client.Get(), [&](std::exception_ptr error, HttpResult value) {
    if (error) {
      result = HttpResult{asio::error::fault, {}};
    } else {
      result = std::move(value);
    }
  });
  // The client's deadline bounds the run: it ends the exchange with timed_out.
  io_context.run();
  if (!result) return {false, "probe did not complete"};
  if (result->error) {
    return {false, (result->error == asio::error::timed_out
                        ? std::string("timed out after ") + std::to_string(timeout.count()) + "ms"
                        : result->error.message())};
  }
  const unsigned status = result->response.status;
  const std::string detail = "status " + std::to_string(status);
  return {status >= 200 && status < 300, detail};
}

}  // namespace rayagg
