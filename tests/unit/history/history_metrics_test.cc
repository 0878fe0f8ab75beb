// ray-task-history's metrics table is what docs/HISTORY.md documents, and the
// page renders every family with well-formed samples.
#include "history/ops/history_metrics.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/metrics_doc.h"

#ifndef RAYAGG_SOURCE_DIR
#error "tests/unit/history/CMakeLists.txt defines RAYAGG_SOURCE_DIR"
#endif

namespace rayagg::history {
namespace {

TEST(HistoryMetrics, TheTableIsWhatTheDocumentLists) {
  std::ifstream in(std::string(RAYAGG_SOURCE_DIR) + "/docs/HISTORY.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  for (const std::string& difference : test::CompareWithDocument(HistoryMetricDefs(), doc.str())) {
    ADD_FAILURE() << "docs/HISTORY.md: " << difference;
  }
}

TEST(HistoryMetrics, ThePageHasEveryFamily) {
  HistoryMetrics metrics;
  metrics.objects_indexed = 3;
  metrics.query_latency[0].Observe(std::chrono::milliseconds(2));
  const std::string page = RenderHistoryMetrics(metrics, true, 1000);
  for (const MetricDef& def : HistoryMetricDefs()) {
    EXPECT_NE(page.find(std::string("# TYPE ") + std::string(def.name)), std::string::npos)
        << def.name;
  }
  EXPECT_NE(page.find("rayhist_objects_indexed_total 3"), std::string::npos);
  EXPECT_NE(page.find("rayhist_query_duration_seconds_count{route=\"sessions\"} 1"),
            std::string::npos);
}

TEST(HistoryMetrics, EachListenersHttpCountersAreLabelled) {
  HistoryMetrics metrics;
  std::vector<HttpListenerStats> listeners(2);
  listeners[0].name = "api";
  listeners[0].requests = 7;
  listeners[0].misdirected = 2;
  listeners[0].unauthorized = 3;
  listeners[0].open = 5;
  listeners[0].idle = 1;
  listeners[0].in_request = 1;
  listeners[0].stream_errors = 4;
  listeners[1].name = "ops";
  listeners[1].requests = 9;
  const std::string page = RenderHistoryMetrics(metrics, false, 1000, listeners);
  EXPECT_NE(page.find("rayhist_ready 0"), std::string::npos);
  EXPECT_NE(page.find("rayhist_http_requests_total{listener=\"api\"} 7"), std::string::npos);
  EXPECT_NE(page.find("rayhist_http_requests_total{listener=\"ops\"} 9"), std::string::npos);
  EXPECT_NE(page.find("rayhist_http_misdirected_total{listener=\"api\"} 2"), std::string::npos);
  EXPECT_NE(page.find("rayhist_http_unauthorized_total{listener=\"api\"} 3"), std::string::npos);
  EXPECT_NE(page.find("rayhist_http_connections{listener=\"api\",state=\"busy\"} 3"),
            std::string::npos);
  EXPECT_NE(page.find("rayhist_http_errors_total{listener=\"api\",reason=\"stream_error\"} 4"),
            std::string::npos);
}

}  // namespace
}  // namespace rayagg::history
