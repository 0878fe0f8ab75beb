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

}  // namespace
}  // namespace rayagg::history
