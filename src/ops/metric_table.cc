#include "ops/metric_table.h"

namespace rayagg {

std::string_view MetricTypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

bool MetricSamples::Matches(std::initializer_list<std::string_view> label_values, bool histogram) {
  if (label_values.size() == def_.labels.size() &&
      histogram == (def_.type == MetricType::kHistogram)) {
    return true;
  }
  ++mismatched_;
  return false;
}

MetricLabels MetricSamples::Zip(std::initializer_list<std::string_view> label_values) const {
  MetricLabels labels;
  labels.reserve(label_values.size());
  size_t i = 0;
  for (const std::string_view value : label_values) labels.emplace_back(def_.labels[i++], value);
  return labels;
}

void MetricSamples::Add(std::initializer_list<std::string_view> label_values, double value) {
  if (!Matches(label_values, /*histogram=*/false)) return;
  writer_.Sample(def_.name, Zip(label_values), value);
}

}  // namespace rayagg
