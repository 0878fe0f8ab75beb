// Fetching a daemon's /metrics page over its ops port, for tests that run the
// real binary (or need the page as a scraper sees it) rather than asking the
// in-process daemon to render it.
#pragma once

#include <chrono>
#include <optional>

#include "support/daemon_fixture.h"
#include "support/prometheus_text.h"

namespace rayagg::test {

// GET http://127.0.0.1:`ops_port`/metrics, parsed; nothing when the request
// fails, the answer is not 200 or the page does not parse.
std::optional<PrometheusPage> ScrapeMetrics(int ops_port,
                                            std::chrono::milliseconds deadline = kRpcDeadline);

}  // namespace rayagg::test
