// The daemon's metrics table (app/daemon_metrics.h) is what docs/METRICS.md
// lists, and follows Prometheus' naming rules.
#include "app/daemon_metrics.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "config/validate_config.h"
#include "support/metrics_doc.h"

#ifndef RAYAGG_SOURCE_DIR
#error "tests/unit/app/CMakeLists.txt defines RAYAGG_SOURCE_DIR"
#endif

namespace rayagg {
namespace {

std::string ReadSourceFile(const std::string& relative_path) {
  std::ifstream in(std::string(RAYAGG_SOURCE_DIR) + "/" + relative_path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool IsLabelName(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

TEST(DaemonMetricsTest, DocsMetricsListsExactlyTheTable) {
  const std::string doc = ReadSourceFile("docs/METRICS.md");
  ASSERT_FALSE(doc.empty());
  const std::vector<MetricDef> defs = MetricDefsOf(DaemonMetricFamilies());
  ASSERT_GE(test::DocumentedMetrics(doc).size(), defs.size() / 2) << "the parser found no tables";
  for (const std::string& difference : test::CompareWithDocument(defs, doc)) {
    ADD_FAILURE() << "docs/METRICS.md: " << difference;
  }
}

// The check above can fail: a table row the document lacks is reported.
TEST(DaemonMetricsTest, TheDocumentCheckCatchesDrift) {
  const std::vector<MetricDef> defs = {
      {"x_total", MetricType::kCounter, {"sink"}, "X."},
      {"y", MetricType::kGauge, {}, "Y."},
  };
  const std::string doc =
      "| name | type | labels | meaning |\n|---|---|---|---|\n"
      "| `x_total` | counter | `sink`, `reason` | x |\n"
      "| `z` | gauge | – | z |\n";
  const std::vector<std::string> differences = test::CompareWithDocument(defs, doc);
  ASSERT_EQ(differences.size(), 3u);
  EXPECT_NE(differences[0].find("x_total has labels [sink]"), std::string::npos);
  EXPECT_NE(differences[1].find("y is exported but not documented"), std::string::npos);
  EXPECT_NE(differences[2].find("z is documented (line 4) but not exported"), std::string::npos);
}

TEST(DaemonMetricsTest, NamesFollowPrometheusConventions) {
  std::set<std::string_view> names;
  for (const MetricFamily<MetricsInput>& family : DaemonMetricFamilies()) {
    const MetricDef& def = family.def;
    SCOPED_TRACE(def.name);
    EXPECT_TRUE(names.insert(def.name).second) << "declared twice";
    EXPECT_TRUE(def.name.starts_with("rayagg_") || def.name.starts_with("ray_aggregator_agent_"));
    EXPECT_TRUE(IsLabelName(def.name));
    EXPECT_FALSE(def.help.empty());
    EXPECT_NE(family.collect, nullptr);
    // Counters end in _total; nothing else does.
    EXPECT_EQ(def.name.ends_with("_total"), def.type == MetricType::kCounter);
    if (def.type == MetricType::kHistogram) {
      EXPECT_TRUE(def.name.ends_with("_seconds"));
    }
    std::set<std::string_view> labels;
    for (const std::string_view label : def.labels) {
      EXPECT_TRUE(IsLabelName(label)) << label;
      EXPECT_NE(label, "le");
      EXPECT_TRUE(labels.insert(label).second) << label << " twice";
    }
  }
}

// A constant label with the name of one of the metrics' own labels would
// make a series carry it twice; config validation refuses those names.
TEST(DaemonMetricsTest, ConfigRefusesEveryMetricLabelAsAConstantLabel) {
  EXPECT_TRUE(IsReservedMetricLabel("le"));
  for (const MetricFamily<MetricsInput>& family : DaemonMetricFamilies()) {
    for (const std::string_view label : family.def.labels) {
      EXPECT_TRUE(IsReservedMetricLabel(label)) << family.def.name << " label " << label;
    }
  }
}

}  // namespace
}  // namespace rayagg
