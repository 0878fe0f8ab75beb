#include "support/prometheus_text.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

namespace rayagg::test {
namespace {

bool IsNameChar(char c, bool first) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  return letter || (!first && c >= '0' && c <= '9');
}

// Reads a metric or label name at `text[pos]`.
std::optional<std::string> ReadName(std::string_view text, size_t& pos) {
  const size_t start = pos;
  while (pos < text.size() && IsNameChar(text[pos], pos == start)) ++pos;
  if (pos == start) return std::nullopt;
  return std::string(text.substr(start, pos - start));
}

std::string Unescape(std::string_view text, bool is_help) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      const char next = text[++i];
      if (next == 'n') {
        out += '\n';
      } else if (next == '\\' || (next == '"' && !is_help)) {
        out += next;
      } else {
        out += '\\';
        out += next;
      }
    } else {
      out += text[i];
    }
  }
  return out;
}

std::optional<double> ParseValue(std::string_view text) {
  if (text == "+Inf") return HUGE_VAL;
  if (text == "-Inf") return -HUGE_VAL;
  if (text == "NaN") return std::nan("");
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || errno != 0) return std::nullopt;
  return value;
}

absl::StatusOr<PrometheusSample> ParseSample(std::string_view line) {
  PrometheusSample sample;
  size_t pos = 0;
  std::optional<std::string> name = ReadName(line, pos);
  if (!name) return absl::InvalidArgumentError("no metric name");
  sample.name = *name;
  if (pos < line.size() && line[pos] == '{') {
    ++pos;
    while (pos < line.size() && line[pos] != '}') {
      std::optional<std::string> label = ReadName(line, pos);
      if (!label || line.substr(pos, 2) != "=\"") {
        return absl::InvalidArgumentError("malformed label");
      }
      pos += 2;
      const size_t start = pos;
      while (pos < line.size() && line[pos] != '"') pos += line[pos] == '\\' ? 2 : 1;
      if (pos >= line.size()) return absl::InvalidArgumentError("unterminated label value");
      sample.labels.emplace_back(*label, Unescape(line.substr(start, pos - start), false));
      ++pos;  // closing quote
      if (pos < line.size() && line[pos] == ',') ++pos;
    }
    if (pos >= line.size()) return absl::InvalidArgumentError("unterminated label set");
    ++pos;  // '}'
  }
  if (pos >= line.size() || line[pos] != ' ') return absl::InvalidArgumentError("no value");
  std::string_view rest = line.substr(pos + 1);
  if (const size_t space = rest.find(' '); space != std::string_view::npos) {
    rest = rest.substr(0, space);  // a timestamp may follow
  }
  std::optional<double> value = ParseValue(rest);
  if (!value) return absl::InvalidArgumentError("bad value \"" + std::string(rest) + "\"");
  sample.value = *value;
  return sample;
}

// Whether `sample` may appear in `family` (histograms add suffixes).
bool BelongsTo(const std::string& sample, const PrometheusFamily& family) {
  if (sample == family.name) return family.type != "histogram";
  if (family.type != "histogram") return false;
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    if (sample == family.name + suffix) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> PrometheusSample::Label(std::string_view label) const {
  for (const auto& [key, label_value] : labels) {
    if (key == label) return label_value;
  }
  return std::nullopt;
}

const PrometheusFamily* PrometheusPage::Find(std::string_view name) const {
  for (const PrometheusFamily& family : families) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

absl::StatusOr<double> PrometheusPage::Value(
    std::string_view sample_name, const std::map<std::string, std::string>& labels) const {
  std::optional<double> found;
  for (const PrometheusFamily& family : families) {
    for (const PrometheusSample& sample : family.samples) {
      if (sample.name != sample_name) continue;
      bool all = true;
      for (const auto& [key, value] : labels) all = all && sample.Label(key) == value;
      if (!all) continue;
      if (found) return absl::FailedPreconditionError(std::string(sample_name) + ": several match");
      found = sample.value;
    }
  }
  if (!found) return absl::NotFoundError(std::string(sample_name) + ": no sample matches");
  return *found;
}

absl::StatusOr<PrometheusPage> ParsePrometheusText(std::string_view text) {
  PrometheusPage page;
  std::set<std::string> declared;
  std::string pending_help_name, pending_help;
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      return absl::InvalidArgumentError("the page does not end with a line break");
    }
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    ++line_number;
    auto error = [&](std::string_view what) {
      return absl::InvalidArgumentError("line " + std::to_string(line_number) + ": " +
                                        std::string(what) + ": " + std::string(line));
    };
    if (line.empty()) continue;
    if (line.starts_with("# HELP ")) {
      size_t pos = 7;
      std::optional<std::string> name = ReadName(line, pos);
      if (!name || pos >= line.size() || line[pos] != ' ') return error("malformed HELP");
      pending_help_name = *name;
      pending_help = Unescape(line.substr(pos + 1), true);
      continue;
    }
    if (line.starts_with("# TYPE ")) {
      size_t pos = 7;
      std::optional<std::string> name = ReadName(line, pos);
      if (!name || pos >= line.size() || line[pos] != ' ') return error("malformed TYPE");
      if (!declared.insert(*name).second) return error("family declared twice");
      PrometheusFamily family{*name, std::string(line.substr(pos + 1)), "", {}};
      if (pending_help_name == *name) family.help = pending_help;
      page.families.push_back(std::move(family));
      continue;
    }
    if (line.starts_with('#')) continue;  // a comment
    absl::StatusOr<PrometheusSample> sample = ParseSample(line);
    if (!sample.ok()) return error(std::string(sample.status().message()));
    if (page.families.empty() || !BelongsTo(sample->name, page.families.back())) {
      return error("sample outside its family");
    }
    page.families.back().samples.push_back(*std::move(sample));
  }
  return page;
}

}  // namespace rayagg::test
