// Checks a program's metrics document (docs/METRICS.md for the daemon)
// against its metrics table (ops/metric_table.h): every family the table
// declares must be a row of a table in the document — `name` | type | labels
// | meaning — with the same type and labels, and the document must list
// nothing else. Any program with a metrics table reuses it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/metric_table.h"

namespace rayagg::test {

struct DocumentedMetric {
  std::string name;
  std::string type;
  std::vector<std::string> labels;  // in the document's order; empty for "–"
  size_t line = 0;
};

// The rows of every Markdown table whose first cell is a backquoted metric
// name and whose second cell is counter, gauge or histogram.
std::vector<DocumentedMetric> DocumentedMetrics(std::string_view markdown);

// What differs between `defs` and the document, one sentence each; empty when
// they agree.
std::vector<std::string> CompareWithDocument(std::span<const MetricDef> defs,
                                             std::string_view markdown);

}  // namespace rayagg::test
