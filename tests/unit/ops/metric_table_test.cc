// Metrics declared in a table (ops/metric_table.h): the page follows the
// table's order, names and labels, and a collector that gives the wrong
// number of label values (or the wrong kind of sample) writes nothing and is
// counted.
#include "ops/metric_table.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace rayagg {
namespace {

struct State {
  std::map<std::string, uint64_t> requests_by_route;
  double temperature = 0;
};

constexpr MetricFamily<State> kFamilies[] = {
    {{"app_requests_total", MetricType::kCounter, {"route"}, "Requests served."},
     [](const State& state, MetricSamples& out) {
       for (const auto& [route, count] : state.requests_by_route) out.Add({route}, count);
     }},
    {{"app_temperature", MetricType::kGauge, {}, "Degrees."},
     [](const State& state, MetricSamples& out) { out.Add({}, state.temperature); }},
    {{"app_latency_seconds", MetricType::kHistogram, {"route"}, "Latency."},
     [](const State&, MetricSamples& out) {
       out.AddHistogram({"/a"}, std::array<double, 1>{0.5}, std::array<uint64_t, 2>{1, 1}, 0.7);
     }},
};

using Labels = std::vector<std::pair<std::string, std::string>>;

TEST(MetricTableTest, RendersEveryFamilyInTableOrderWithItsLabels) {
  const State state{{{"/a", 2}, {"/b", 5}}, 21.5};
  size_t mismatched = 99;
  EXPECT_EQ(RenderMetricFamilies<State>(kFamilies, state, Labels{{"cluster", "c"}}, &mismatched),
            "# HELP app_requests_total Requests served.\n"
            "# TYPE app_requests_total counter\n"
            "app_requests_total{cluster=\"c\",route=\"/a\"} 2\n"
            "app_requests_total{cluster=\"c\",route=\"/b\"} 5\n"
            "# HELP app_temperature Degrees.\n"
            "# TYPE app_temperature gauge\n"
            "app_temperature{cluster=\"c\"} 21.5\n"
            "# HELP app_latency_seconds Latency.\n"
            "# TYPE app_latency_seconds histogram\n"
            "app_latency_seconds_bucket{cluster=\"c\",route=\"/a\",le=\"0.5\"} 1\n"
            "app_latency_seconds_bucket{cluster=\"c\",route=\"/a\",le=\"+Inf\"} 2\n"
            "app_latency_seconds_sum{cluster=\"c\",route=\"/a\"} 0.7\n"
            "app_latency_seconds_count{cluster=\"c\",route=\"/a\"} 2\n");
  EXPECT_EQ(mismatched, 0u);
}

TEST(MetricTableTest, AFamilyWithoutSamplesStillDeclaresItself) {
  EXPECT_EQ(RenderMetricFamilies<State>(std::span(kFamilies, 1), State{}, Labels{}),
            "# HELP app_requests_total Requests served.\n"
            "# TYPE app_requests_total counter\n");
}

TEST(MetricTableTest, WrongLabelCountOrSampleKindIsCountedNotWritten) {
  constexpr MetricFamily<State> kBroken[] = {
      {{"x_total", MetricType::kCounter, {"a", "b"}, "X."},
       [](const State&, MetricSamples& out) {
         out.Add({"only one"}, 1);
         out.Add({"1", "2", "3"}, 1);
         out.AddHistogram({"1", "2"}, std::array<double, 1>{1}, std::array<uint64_t, 2>{}, 0);
         out.Add({"1", "2"}, 7);
       }},
      {{"h_seconds", MetricType::kHistogram, {}, "H."},
       [](const State&, MetricSamples& out) { out.Add({}, 1); }},
  };
  size_t mismatched = 0;
  const std::string page = RenderMetricFamilies<State>(kBroken, State{}, Labels{}, &mismatched);
  EXPECT_EQ(mismatched, 4u);
  EXPECT_EQ(page,
            "# HELP x_total X.\n# TYPE x_total counter\nx_total{a=\"1\",b=\"2\"} 7\n"
            "# HELP h_seconds H.\n# TYPE h_seconds histogram\n");
}

TEST(MetricTableTest, LabelNamesAreConstexpr) {
  constexpr MetricLabelNames kNames = {"a", "b", "c"};
  static_assert(kNames.size() == 3 && kNames[2] == "c");
  constexpr MetricLabelNames kNone;
  static_assert(kNone.empty());
}

}  // namespace
}  // namespace rayagg
