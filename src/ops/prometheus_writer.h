// Builds a page in the Prometheus text exposition format (0.0.4): HELP and
// TYPE once per family, then its samples, every sample carrying the constant
// labels first. Label values are escaped (\\, \", \n); names are the
// caller's (fixed strings in the code, or validated config label names).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rayagg {

using MetricLabels = std::vector<std::pair<std::string_view, std::string_view>>;

class PrometheusWriter {
 public:
  explicit PrometheusWriter(std::vector<std::pair<std::string, std::string>> constant_labels)
      : constant_labels_(std::move(constant_labels)) {}

  // Starts a family: `type` is counter, gauge or histogram.
  void Family(std::string_view name, std::string_view type, std::string_view help);
  // One sample of the current family (histograms: use Histogram()).
  void Sample(std::string_view name, const MetricLabels& labels, double value);
  // A whole histogram series: cumulative _bucket{le} lines, _sum and _count.
  // `counts` are per-bucket (not cumulative) with the overflow bucket last.
  template <size_t N>
  void Histogram(std::string_view name, const MetricLabels& labels,
                 const std::array<double, N>& bounds, const std::array<uint64_t, N + 1>& counts,
                 double sum) {
    HistogramImpl(name, labels, bounds.data(), counts.data(), N, sum);
  }

  const std::string& text() const { return text_; }

 private:
  void HistogramImpl(std::string_view name, const MetricLabels& labels, const double* bounds,
                     const uint64_t* counts, size_t bucket_count, double sum);
  void AppendLabels(const MetricLabels& labels, std::string_view extra_name = {},
                    std::string_view extra_value = {});
  void AppendValue(double value);

  const std::vector<std::pair<std::string, std::string>> constant_labels_;
  std::string text_;
};

}  // namespace rayagg
