// Typed reads from a yaml-cpp tree that report problems with the key path
// and line instead of throwing. Every read either stores a valid value or
// leaves the target untouched and records why.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "config/problems.h"
#include "rayagg/config.h"

namespace rayagg {

// "grpc" + "port" → "grpc.port"; "" + "grpc" → "grpc".
std::string ChildPath(std::string_view parent, std::string_view key);
// "sinks" + 1 → "sinks[1]".
std::string IndexPath(std::string_view parent, size_t index);

class YamlReader {
 public:
  using Parser = std::function<void(const YAML::Node& value, const std::string& path)>;
  struct Field {
    std::string_view key;
    Parser parse;
  };

  explicit YamlReader(Problems& problems) : problems_(problems) {}

  // Walks a map (null counts as empty): each known key goes to its parser;
  // unknown and duplicate keys are problems naming their full path.
  void Map(const YAML::Node& node, const std::string& path, std::initializer_list<Field> fields);
  // Walks a list (null counts as empty), calling `item` with "path[i]".
  void List(const YAML::Node& node, const std::string& path, std::string_view what,
            const std::function<void(const YAML::Node& item, const std::string& path,
                                     size_t index)>& item);

  void Uint(const YAML::Node& node, const std::string& path, uint64_t min, uint64_t max,
            uint64_t& out);
  void Port(const YAML::Node& node, const std::string& path, uint16_t& out);
  void Int(const YAML::Node& node, const std::string& path, int64_t min, int64_t& out);
  // Double and String return whether they stored a value.
  bool Double(const YAML::Node& node, const std::string& path, double min, double max, double& out);
  void Bool(const YAML::Node& node, const std::string& path, bool& out);
  bool String(const YAML::Node& node, const std::string& path, std::string& out);
  // Strings with a unit ("100ms"); at least `min`.
  void Duration(const YAML::Node& node, const std::string& path, rayagg::Duration min,
                rayagg::Duration& out);
  // Integers or strings with a unit ("10MiB").
  void ByteSize(const YAML::Node& node, const std::string& path, uint64_t min, uint64_t max,
                uint64_t& out);
  // A list of EventType names, or the single item ALL.
  void EventTypes(const YAML::Node& node, const std::string& path, EventTypeFilter& out);

  // Records a problem at `path`, adding the node's line when known.
  void Fail(const YAML::Node& node, const std::string& path, std::string_view message);

 private:
  // The scalar's text, or a problem saying a scalar was expected.
  const std::string* Scalar(const YAML::Node& node, const std::string& path,
                            std::string_view expected);

  Problems& problems_;
  // Where the key being read sits. yaml-cpp gives an empty value ("key:")
  // the position after it, often on the next line, so use the key's instead.
  YAML::Mark key_mark_ = YAML::Mark::null_mark();
};

// `got "abc"`, `got a list`, `got a map`, `got nothing`, for messages.
std::string DescribeNode(const YAML::Node& node);

}  // namespace rayagg
