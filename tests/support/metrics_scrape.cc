#include "support/metrics_scrape.h"

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "http/http_client.h"
#include "support/run_coroutine.h"

namespace rayagg::test {

std::optional<PrometheusPage> ScrapeMetrics(int ops_port, std::chrono::milliseconds deadline) {
  asio::io_context io;
  absl::StatusOr<Url> url = ParseUrl("http://127.0.0.1:" + std::to_string(ops_port) + "/metrics");
  if (!url.ok()) return std::nullopt;
  HttpClient client(io.get_executor(), *url, deadline);
  const HttpResult result = RunCoroutine(io, client.Get());
  if (result.error || result.response.status != 200) return std::nullopt;
  absl::StatusOr<PrometheusPage> page = ParsePrometheusText(result.response.body);
  if (!page.ok()) return std::nullopt;
  return *std::move(page);
}

}  // namespace rayagg::test
