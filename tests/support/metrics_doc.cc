#include "support/metrics_doc.h"

#include <map>

namespace rayagg::test {
namespace {

std::string_view Trim(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// "`name`" -> "name"; anything else -> "".
std::string_view Backquoted(std::string_view cell) {
  cell = Trim(cell);
  if (cell.size() < 3 || cell.front() != '`' || cell.back() != '`') return {};
  return cell.substr(1, cell.size() - 2);
}

std::string Join(const std::vector<std::string>& parts) {
  std::string joined;
  for (const std::string& part : parts) joined += (joined.empty() ? "" : ", ") + part;
  return joined;
}

}  // namespace

std::vector<DocumentedMetric> DocumentedMetrics(std::string_view markdown) {
  std::vector<DocumentedMetric> rows;
  size_t line_number = 0;
  for (std::string_view line : Split(markdown, '\n')) {
    ++line_number;
    line = Trim(line);
    if (!line.starts_with('|')) continue;
    const std::vector<std::string_view> cells = Split(line.substr(1), '|');
    if (cells.size() < 3) continue;
    const std::string_view name = Backquoted(cells[0]);
    const std::string_view type = Trim(cells[1]);
    if (name.empty() || (type != "counter" && type != "gauge" && type != "histogram")) continue;
    DocumentedMetric row{std::string(name), std::string(type), {}, line_number};
    const std::string_view labels = Trim(cells[2]);
    if (labels != "–" && labels != "-") {
      for (std::string_view label : Split(labels, ',')) row.labels.emplace_back(Backquoted(label));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::string> CompareWithDocument(std::span<const MetricDef> defs,
                                             std::string_view markdown) {
  std::vector<std::string> differences;
  std::map<std::string, DocumentedMetric> documented;
  for (DocumentedMetric& row : DocumentedMetrics(markdown)) {
    const std::string name = row.name;
    if (!documented.emplace(name, std::move(row)).second) {
      differences.push_back(name + " is documented twice");
    }
  }
  for (const MetricDef& def : defs) {
    const std::string name(def.name);
    const std::string type(MetricTypeName(def.type));
    const auto it = documented.find(name);
    if (it == documented.end()) {
      differences.push_back(name + " is exported but not documented");
      continue;
    }
    const DocumentedMetric& row = it->second;
    const std::string where = " (line " + std::to_string(row.line) + ")";
    if (row.type != type) {
      differences.push_back(name + " is a " + type + ", documented" + where + " as a " + row.type);
    }
    const std::vector<std::string> labels(def.labels.begin(), def.labels.end());
    if (row.labels != labels) {
      differences.push_back(name + " has labels [" + Join(labels) + "], documented" + where +
                            " as [" + Join(row.labels) + "]");
    }
    documented.erase(it);
  }
  for (const auto& [name, row] : documented) {
    differences.push_back(name + " is documented (line " + std::to_string(row.line) +
                          ") but not exported");
  }
  return differences;
}

}  // namespace rayagg::test
