// The seam between the event log (pure bytes, no protobuf) and the code that
// understands RayEvent well enough to merge events of one entity (src/merge/).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace rayagg {

class EventMerger {
 public:
  virtual ~EventMerger() = default;

  // Merges serialized events of one entity and type, in the order they were
  // received (`parts[0]` first, at least two), and writes the serialized
  // result to `merged`. Returns false if they cannot be merged (for example
  // one does not parse); the caller then delivers them as separate events.
  // One instance is used by one thread at a time, so an implementation may
  // reuse scratch state without synchronization.
  virtual bool Merge(std::span<const std::string_view> parts, std::string& merged) = 0;
};

// Makes one merger per reader (the event log asks for one per cursor).
using EventMergerFactory = std::function<std::unique_ptr<EventMerger>()>;

}  // namespace rayagg
