// Metrics declared once, as Envoy declares its stats: each family a program
// exports is one row of a table — name, type, label names, help — together
// with the function that reads its samples from the program's live state at
// scrape time. The /metrics page is rendered from the table, and a test
// compares the table with the program's metrics document, so a metric cannot
// be exported undocumented, documented but missing, or with other labels
// than declared. Adding a metric is adding a row.
//
// Any program uses it with its own state type:
//
//   constexpr MetricFamily<MyState> kMyMetrics[] = {
//       {{"my_requests_total", MetricType::kCounter, {"route"}, "Requests served."},
//        [](const MyState& state, MetricSamples& out) {
//          for (const auto& [route, count] : state.requests) out.Add({route}, count);
//        }},
//   };
//   std::string page = RenderMetricFamilies<MyState>(kMyMetrics, state, constant_labels);
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/prometheus_writer.h"

namespace rayagg {

enum class MetricType { kCounter, kGauge, kHistogram };

// "counter", "gauge", "histogram": the TYPE line's word.
std::string_view MetricTypeName(MetricType type);

// The label names of one family, in the order its samples give values.
class MetricLabelNames {
 public:
  static constexpr size_t kMax = 6;

  constexpr MetricLabelNames() = default;
  // Throws (a compile error in a constexpr table) above kMax names.
  constexpr MetricLabelNames(std::initializer_list<std::string_view> names) {
    for (const std::string_view name : names) {
      if (size_ == kMax) throw std::length_error("MetricLabelNames: too many labels");
      names_[size_++] = name;
    }
  }

  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr std::string_view operator[](size_t i) const { return names_[i]; }
  constexpr const std::string_view* begin() const { return names_.data(); }
  constexpr const std::string_view* end() const { return names_.data() + size_; }

 private:
  std::array<std::string_view, kMax> names_{};
  size_t size_ = 0;
};

// What a family is: everything but its values.
struct MetricDef {
  std::string_view name;
  MetricType type;
  MetricLabelNames labels;
  std::string_view help;
};

// Where a family's collector writes its samples: label values in the order of
// the family's label names (constant labels come first on every sample).
// A call with another number of values than the family has labels, or Add()
// on a histogram (AddHistogram() on another type), is a programming error: it
// is not written, and counted in mismatched_samples() so that tests catch it.
class MetricSamples {
 public:
  MetricSamples(PrometheusWriter& writer, const MetricDef& def) : writer_(writer), def_(def) {}

  // A counter or gauge sample.
  void Add(std::initializer_list<std::string_view> label_values, double value);
  template <std::integral T>
  void Add(std::initializer_list<std::string_view> label_values, T value) {
    Add(label_values, static_cast<double>(value));
  }
  // A whole histogram series; `counts` per bucket (not cumulative), the
  // overflow bucket last.
  template <size_t N>
  void AddHistogram(std::initializer_list<std::string_view> label_values,
                    const std::array<double, N>& bounds, const std::array<uint64_t, N + 1>& counts,
                    double sum) {
    if (!Matches(label_values, /*histogram=*/true)) return;
    writer_.Histogram(def_.name, Zip(label_values), bounds, counts, sum);
  }

  size_t mismatched_samples() const { return mismatched_; }

 private:
  bool Matches(std::initializer_list<std::string_view> label_values, bool histogram);
  MetricLabels Zip(std::initializer_list<std::string_view> label_values) const;

  PrometheusWriter& writer_;
  const MetricDef& def_;
  size_t mismatched_ = 0;
};

// One row of a program's metrics table: the family and how to read it from
// `State` (a plain function, so tables can be constexpr).
template <typename State>
struct MetricFamily {
  MetricDef def;
  void (*collect)(const State& state, MetricSamples& out);
};

// The families' definitions alone, e.g. to compare them with a document.
template <typename State>
std::vector<MetricDef> MetricDefsOf(std::span<const MetricFamily<State>> families) {
  std::vector<MetricDef> defs;
  defs.reserve(families.size());
  for (const MetricFamily<State>& family : families) defs.push_back(family.def);
  return defs;
}

// The whole page in the Prometheus text format 0.0.4: every family's HELP
// and TYPE (also when it has no samples yet), then its samples.
// `mismatched_samples`, when given, receives the number of samples dropped for
// a wrong number of label values (always 0 in a correct table).
template <typename State>
std::string RenderMetricFamilies(
    std::span<const MetricFamily<State>> families, const State& state,
    const std::vector<std::pair<std::string, std::string>>& constant_labels,
    size_t* mismatched_samples = nullptr) {
  PrometheusWriter writer(constant_labels);
  size_t mismatched = 0;
  for (const MetricFamily<State>& family : families) {
    writer.Family(family.def.name, MetricTypeName(family.def.type), family.def.help);
    MetricSamples samples(writer, family.def);
    family.collect(state, samples);
    mismatched += samples.mismatched_samples();
  }
  if (mismatched_samples != nullptr) *mismatched_samples = mismatched;
  return writer.text();
}

}  // namespace rayagg
