// The seam between the event log (pure bytes, no protobuf) and the code that
// understands RayEvent well enough to merge two of them (src/merge/).
#pragma once

#include <string>
#include <string_view>

namespace rayagg {

class EventMerger {
 public:
  virtual ~EventMerger() = default;

  // Merges `later` into `earlier` (two serialized events of the same entity
  // and type, `later` received after `earlier`) and writes the serialized
  // result to `merged`. Returns false if they cannot be merged (for example
  // one does not parse); the log then keeps them as separate events.
  // The event log calls this under its lock, one call at a time, so an
  // implementation may reuse scratch state without synchronization.
  virtual bool Merge(std::string_view earlier, std::string_view later, std::string& merged) = 0;
};

}  // namespace rayagg
