// TASK_LIFECYCLE_EVENT merges on the wire, without parsing into messages:
// most of what a backlogged sink's coalescing merges, at a fraction of the
// cost of parse + merge + serialize.
//
// Protobuf defines parsing two concatenated encodings of a message as
// MergeFrom of the two, and MergeFrom already implements the coalescing rule
// for scalars (the later *set* value wins) and for nested messages without
// lists or google.protobuf values (TaskLogInfo: field by field). So the merge
// is: the first event's envelope, the later events' envelope fields except
// event_id and timestamp (the first event's stay), then one payload holding
// every part's payload fields except the transitions, followed by the union
// of the transitions (each (state, timestamp) once, ordered by time, ties in
// received order). Parsing the result yields what RayEventMerger's generic
// path yields (a differential test checks it on random events).
//
// The result is valid protobuf but not canonical: a later event's task_id,
// node_id, ... repeat the earlier ones (the last wins on parse). Everything
// downstream parses it.
//
// Falls back (returns false) for anything it does not handle exactly: a
// part that is not a lifecycle event or carries another payload, a message
// field in the envelope other than timestamp and the payload, a payload
// field whose merge is not a plain MergeFrom (RayErrorInfo) in more than one
// part, a transition with fields beyond state and timestamp, malformed
// input.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rayagg {

class LifecycleWireMerge {
 public:
  LifecycleWireMerge();

  // Merges `parts` (serialized RayEvents, received in that order) into
  // `merged`. Returns false, leaving `merged` unspecified, if the fast path
  // does not apply.
  bool Merge(std::span<const std::string_view> parts, std::string& merged);

 private:
  struct Transition {
    int64_t seconds;
    int32_t nanos;
    uint64_t state;
    std::string_view bytes;  // the element's encoding
  };
  static bool Earlier(const Transition& a, const Transition& b) {
    return a.seconds != b.seconds ? a.seconds < b.seconds : a.nanos < b.nanos;
  }
  // Appends part `part`'s payload fields to payload_ and its transitions
  // to transitions_.
  bool ReadPayload(std::string_view payload_bytes, int part);

  // Whether the generated code matches what this merge assumes (field
  // numbers and types by name); if not, every Merge falls back.
  bool enabled_ = false;
  // Top-level fields that make a part ineligible (message fields other than
  // timestamp and the lifecycle payload), indexed by field number.
  std::vector<bool> envelope_blocked_;
  // Payload fields that may appear in only one part (their merge is not a
  // plain MergeFrom), indexed by field number.
  std::vector<bool> payload_exclusive_;
  // Per exclusive payload field, the part it was seen in (-1: none yet).
  std::vector<int> exclusive_owner_;
  std::vector<Transition> transitions_;  // scratch
  size_t accumulated_ = 0;               // transitions_ from earlier parts (dedup scope)
  std::string envelope_, payload_;       // scratch
};

}  // namespace rayagg
