#include "ops/prometheus_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace rayagg {
namespace {

void AppendEscaped(std::string& out, std::string_view value, bool is_help) {
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && !is_help) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  // Integers (every counter) print exactly, in plain digits.
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", value);
    return buffer;
  }
  // Others as the shortest text that reads back as the same double (0.7, not
  // 0.69999999999999996).
  const std::to_chars_result end = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end.ptr);
}

}  // namespace

void PrometheusWriter::Family(std::string_view name, std::string_view type, std::string_view help) {
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  AppendEscaped(text_, help, /*is_help=*/true);
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += type;
  text_ += '\n';
}

void PrometheusWriter::AppendLabels(const MetricLabels& labels, std::string_view extra_name,
                                    std::string_view extra_value) {
  if (constant_labels_.empty() && labels.empty() && extra_name.empty()) return;
  text_ += '{';
  bool first = true;
  auto add = [&](std::string_view name, std::string_view value) {
    if (!first) text_ += ',';
    first = false;
    text_ += name;
    text_ += "=\"";
    AppendEscaped(text_, value, /*is_help=*/false);
    text_ += '"';
  };
  for (const auto& [name, value] : constant_labels_) add(name, value);
  for (const auto& [name, value] : labels) add(name, value);
  if (!extra_name.empty()) add(extra_name, extra_value);
  text_ += '}';
}

void PrometheusWriter::AppendValue(double value) {
  text_ += ' ';
  text_ += FormatNumber(value);
  text_ += '\n';
}

void PrometheusWriter::Sample(std::string_view name, const MetricLabels& labels, double value) {
  text_ += name;
  AppendLabels(labels);
  AppendValue(value);
}

void PrometheusWriter::HistogramImpl(std::string_view name, const MetricLabels& labels,
                                     const double* bounds, const uint64_t* counts,
                                     size_t bucket_count, double sum) {
  const std::string bucket = std::string(name) + "_bucket";
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bucket_count; ++i) {
    cumulative += counts[i];
    text_ += bucket;
    AppendLabels(labels, "le", i < bucket_count ? FormatNumber(bounds[i]) : "+Inf");
    AppendValue(static_cast<double>(cumulative));
  }
  Sample(std::string(name) + "_sum", labels, sum);
  Sample(std::string(name) + "_count", labels, static_cast<double>(cumulative));
}

}  // namespace rayagg
