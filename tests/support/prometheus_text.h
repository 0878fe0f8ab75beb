// Reading a /metrics page (Prometheus text format 0.0.4) back in tests, so
// they assert on parsed families and samples rather than on substrings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace rayagg::test {

struct PrometheusSample {
  std::string name;  // as written, e.g. x_bucket for a histogram's bucket
  std::vector<std::pair<std::string, std::string>> labels;  // in page order, unescaped
  double value = 0;

  // The value of `label`, if present.
  std::optional<std::string> Label(std::string_view label) const;
};

struct PrometheusFamily {
  std::string name;
  std::string type;  // counter, gauge, histogram, ...
  std::string help;  // unescaped
  std::vector<PrometheusSample> samples;
};

struct PrometheusPage {
  std::vector<PrometheusFamily> families;  // in page order

  const PrometheusFamily* Find(std::string_view name) const;
  // The value of the one sample named `sample_name` carrying every label of
  // `labels` (others may be present too); an error when none or several do.
  absl::StatusOr<double> Value(std::string_view sample_name,
                               const std::map<std::string, std::string>& labels = {}) const;
};

// Parses a whole page. Fails (naming the line) on anything the format does
// not allow: a sample before its family's TYPE, a malformed label set or
// value, a family declared twice, a sample that does not belong to the
// family above it.
absl::StatusOr<PrometheusPage> ParsePrometheusText(std::string_view text);

}  // namespace rayagg::test
