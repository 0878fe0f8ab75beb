// Reads one stored object into a FoldedSession: splits it into event texts
// (object_decoder.h), parses each into a RayEvent with the project's JSON
// codec and folds it (reducer.h). A text that is not a RayEvent is skipped
// and counted; nothing in an object can stop the indexer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "history/fold/reducer.h"
#include "json/event_json_parser.h"

namespace rayagg::history {

struct FoldedObject {
  uint64_t events = 0;     // folded
  uint64_t bad_lines = 0;  // texts that are not RayEvents, or too long
  std::string error;       // why the object could not be read to its end
  uint64_t decompressed_bytes = 0;
};

// Thread CPU time spent on whole objects (gunzip, splitting, parsing and
// folding), for the benchmark. Nothing finer is timed per event: reading
// the thread CPU clock is a system call that costs about as much as
// parsing a small event (the benchmark splits the stages by timing them
// alone in separate passes).
struct FoldTimes {
  int64_t decode_ns = 0;
};

// Not thread-safe: one per indexing thread (it keeps its parser's buffers).
class ObjectFolder {
 public:
  explicit ObjectFolder(uint64_t max_event_bytes = 64 << 20) : max_event_bytes_(max_event_bytes) {}
  FoldedObject Fold(std::string_view object_bytes, FoldedSession& into, FoldTimes* times = nullptr);

 private:
  const uint64_t max_event_bytes_;
  EventJsonParser parser_;
  EventJsonBatch batch_;
};

}  // namespace rayagg::history
