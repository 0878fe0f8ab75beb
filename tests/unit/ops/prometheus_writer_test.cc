// The Prometheus text format: HELP/TYPE lines, constant labels first,
// escaping, number formatting and cumulative histogram buckets.
#include "ops/prometheus_writer.h"

#include <gtest/gtest.h>

namespace rayagg {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

TEST(PrometheusWriterTest, FamiliesSamplesAndEscaping) {
  PrometheusWriter w(Labels{{"cluster", "a\"b\\c\nd"}});
  w.Family("x_total", "counter", "Help with \\ and\nnewline.");
  w.Sample("x_total", {{"sink", "s1"}}, 3);
  w.Sample("x_total", {}, 0.25);
  EXPECT_EQ(w.text(),
            "# HELP x_total Help with \\\\ and\\nnewline.\n"
            "# TYPE x_total counter\n"
            "x_total{cluster=\"a\\\"b\\\\c\\nd\",sink=\"s1\"} 3\n"
            "x_total{cluster=\"a\\\"b\\\\c\\nd\"} 0.25\n");
}

TEST(PrometheusWriterTest, NoLabelsMeansNoBraces) {
  PrometheusWriter w(Labels{});
  w.Sample("up", {}, 1);
  EXPECT_EQ(w.text(), "up 1\n");
}

TEST(PrometheusWriterTest, HistogramBucketsAreCumulative) {
  PrometheusWriter w(Labels{});
  const std::array<double, 2> bounds = {0.5, 1};
  const std::array<uint64_t, 3> counts = {1, 2, 4};
  w.Histogram("lat_seconds", {{"sink", "s"}}, bounds, counts, 9.5);
  EXPECT_EQ(w.text(),
            "lat_seconds_bucket{sink=\"s\",le=\"0.5\"} 1\n"
            "lat_seconds_bucket{sink=\"s\",le=\"1\"} 3\n"
            "lat_seconds_bucket{sink=\"s\",le=\"+Inf\"} 7\n"
            "lat_seconds_sum{sink=\"s\"} 9.5\n"
            "lat_seconds_count{sink=\"s\"} 7\n");
}

}  // namespace
}  // namespace rayagg
