#include "config/yaml_reader.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "common/event_type_names.h"
#include "common/text.h"
#include "config/event_type_list.h"
#include "config/units.h"

namespace rayagg {

namespace {

template <typename T>
bool ParseWhole(std::string_view text, T& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

std::string RangeText(std::string_view kind, uint64_t min, uint64_t max) {
  if (max == std::numeric_limits<uint64_t>::max()) return strings::Cat(kind, " >= ", min);
  return strings::Cat(kind, " from ", min, " to ", max);
}

}  // namespace

std::string ChildPath(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : strings::Cat(parent, ".", key);
}

std::string IndexPath(std::string_view parent, size_t index) {
  return strings::Cat(parent, "[", index, "]");
}

std::string DescribeNode(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return strings::Cat("got \"", node.Scalar(), "\"");
    case YAML::NodeType::Sequence:
      return "got a list";
    case YAML::NodeType::Map:
      return "got a map";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  return "got nothing";
}

void YamlReader::Fail(const YAML::Node& node, const std::string& path, std::string_view message) {
  const YAML::Mark mark = node.IsNull() || node.Mark().is_null() ? key_mark_ : node.Mark();
  if (mark.is_null() || mark.line < 0) {
    problems_.Add(path, message);
  } else {
    problems_.Add(path, strings::Cat(message, " (line ", mark.line + 1, ")"));
  }
}

const std::string* YamlReader::Scalar(const YAML::Node& node, const std::string& path,
                                      std::string_view expected) {
  if (node.IsScalar()) return &node.Scalar();
  Fail(node, path, strings::Cat("must be ", expected, ", ", DescribeNode(node)));
  return nullptr;
}

void YamlReader::Map(const YAML::Node& node, const std::string& path,
                     std::initializer_list<Field> fields) {
  if (node.IsNull()) return;  // `grpc:` with every key commented out
  if (!node.IsMap()) {
    Fail(node, path.empty() ? std::string("(top level)") : path,
         strings::Cat("must be a map of keys, ", DescribeNode(node)));
    return;
  }
  std::set<std::string, std::less<>> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    // A copy: yaml-cpp's iterator returns a temporary proxy, so a reference
    // to it->first would dangle.
    const YAML::Node key_node = it->first;
    if (!key_node.IsScalar()) {
      Fail(key_node, path.empty() ? std::string("(top level)") : path, "keys must be plain names");
      continue;
    }
    const std::string key = key_node.Scalar();
    const std::string key_path = ChildPath(path, key);
    if (!seen.insert(key).second) {
      Fail(key_node, key_path, "duplicate key");
      continue;
    }
    const Field* field = nullptr;
    for (const Field& candidate : fields) {
      if (candidate.key == key) field = &candidate;
    }
    if (field == nullptr) {
      std::vector<std::string_view> valid;
      for (const Field& candidate : fields) valid.push_back(candidate.key);
      Fail(key_node, key_path,
           strings::Cat("unknown key; valid keys here: ", strings::Join(valid, ", ")));
      continue;
    }
    const YAML::Mark outer_mark = key_mark_;
    key_mark_ = key_node.Mark();
    field->parse(it->second, key_path);
    key_mark_ = outer_mark;
  }
}

void YamlReader::List(const YAML::Node& node, const std::string& path, std::string_view what,
                      const std::function<void(const YAML::Node& item, const std::string& path,
                                               size_t index)>& item) {
  if (node.IsNull()) return;
  if (!node.IsSequence()) {
    Fail(node, path, strings::Cat("must be a list of ", what, ", ", DescribeNode(node)));
    return;
  }
  for (size_t i = 0; i < node.size(); ++i) item(node[i], IndexPath(path, i), i);
}

void YamlReader::Uint(const YAML::Node& node, const std::string& path, uint64_t min, uint64_t max,
                      uint64_t& out) {
  const std::string expected = RangeText("an integer", min, max);
  const std::string* text = Scalar(node, path, expected);
  if (text == nullptr) return;
  uint64_t value = 0;
  if (!ParseWhole(*text, value) || value < min || value > max) {
    Fail(node, path, strings::Cat("must be ", expected, ", ", DescribeNode(node)));
    return;
  }
  out = value;
}

void YamlReader::Port(const YAML::Node& node, const std::string& path, uint16_t& out) {
  uint64_t value = out;
  Uint(node, path, 0, 65535, value);
  out = static_cast<uint16_t>(value);
}

void YamlReader::Int(const YAML::Node& node, const std::string& path, int64_t min, int64_t& out) {
  const std::string expected = strings::Cat("an integer >= ", min);
  const std::string* text = Scalar(node, path, expected);
  if (text == nullptr) return;
  int64_t value = 0;
  if (!ParseWhole(*text, value) || value < min) {
    Fail(node, path, strings::Cat("must be ", expected, ", ", DescribeNode(node)));
    return;
  }
  out = value;
}

bool YamlReader::Double(const YAML::Node& node, const std::string& path, double min, double max,
                        double& out) {
  const std::string expected = strings::Cat("a number from ", min, " to ", max);
  const std::string* text = Scalar(node, path, expected);
  if (text == nullptr) return false;
  double value = 0;
  if (!ParseWhole(*text, value) || !std::isfinite(value) || value < min || value > max) {
    Fail(node, path, strings::Cat("must be ", expected, ", ", DescribeNode(node)));
    return false;
  }
  out = value;
  return true;
}

void YamlReader::Bool(const YAML::Node& node, const std::string& path, bool& out) {
  const std::string* text = Scalar(node, path, "true or false");
  if (text == nullptr) return;
  // YAML 1.2 core schema booleans only: "yes"/"on" are too easy to misread.
  const std::string lower = strings::ToLower(*text);
  if (lower == "true") {
    out = true;
  } else if (lower == "false") {
    out = false;
  } else {
    Fail(node, path, strings::Cat("must be true or false, ", DescribeNode(node)));
  }
}

bool YamlReader::String(const YAML::Node& node, const std::string& path, std::string& out) {
  const std::string* text = Scalar(node, path, "a string");
  if (text != nullptr) out = *text;
  return text != nullptr;
}

void YamlReader::Duration(const YAML::Node& node, const std::string& path, rayagg::Duration min,
                          rayagg::Duration& out) {
  const std::string* text = Scalar(node, path, "a duration such as \"100ms\" or \"1.5s\"");
  if (text == nullptr) return;
  absl::StatusOr<rayagg::Duration> value = ParseDuration(*text);
  if (!value.ok()) {
    Fail(node, path, strings::View(value.status().message()));
  } else if (*value < min) {
    Fail(node, path,
         strings::Cat("must be at least ", FormatDuration(min), ", ", DescribeNode(node)));
  } else {
    out = *value;
  }
}

void YamlReader::ByteSize(const YAML::Node& node, const std::string& path, uint64_t min,
                          uint64_t max, uint64_t& out) {
  const std::string range =
      max == std::numeric_limits<uint64_t>::max()
          ? strings::Cat("must be at least ", FormatByteSize(min))
          : strings::Cat("must be from ", FormatByteSize(min), " to ", max, " bytes");
  const std::string* text = Scalar(node, path, "a byte size such as 1048576 or \"10MiB\"");
  if (text == nullptr) return;
  absl::StatusOr<uint64_t> value = ParseByteSize(*text);
  if (!value.ok()) {
    Fail(node, path, strings::View(value.status().message()));
  } else if (*value < min || *value > max) {
    Fail(node, path, strings::Cat(range, ", ", DescribeNode(node)));
  } else {
    out = *value;
  }
}

void YamlReader::EventTypes(const YAML::Node& node, const std::string& path, EventTypeFilter& out) {
  if (!node.IsSequence()) {
    Fail(node, path,
         strings::Cat("must be a list of event type names such as [TASK_DEFINITION_EVENT, "
                      "TASK_LIFECYCLE_EVENT], or [ALL]; ",
                      DescribeNode(node)));
    return;
  }
  if (node.size() == 1 && node[0].IsScalar() && IsAllEventTypes(node[0].Scalar())) {
    out = EventTypeFilter::All();
    return;
  }
  EventTypeFilter filter = EventTypeFilter::None();
  bool ok = true;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string item_path = IndexPath(path, i);
    const std::string* name = Scalar(node[i], item_path, "an event type name");
    if (name == nullptr) {
      ok = false;
      continue;
    }
    if (IsAllEventTypes(*name)) {
      Fail(node[i], item_path, "ALL must be the only item of the list");
      ok = false;
      continue;
    }
    const std::optional<int32_t> type = EventTypeFromName(*name);
    if (!type.has_value() || !filter.Add(*type)) {
      // Ray matches names exactly; point out the likely fix for a case slip.
      const std::string upper = strings::ToUpper(*name);
      const bool case_slip = upper != *name && EventTypeFromName(upper).has_value();
      Fail(node[i], item_path,
           strings::Cat("unknown event type \"", *name, "\"",
                        case_slip ? strings::Cat(" (names are case-sensitive: ", upper, ")") : ""));
      ok = false;
    }
  }
  if (ok) out = filter;
}

}  // namespace rayagg
