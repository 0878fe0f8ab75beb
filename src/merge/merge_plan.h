// Which fields of a message type protobuf's generated MergeFrom would merge
// differently from docs/COALESCING.md, and how to fix each up beforehand.
//
// MergeFrom already implements most of the rules: a later set scalar
// (explicit presence, or non-default) overwrites, singular messages merge
// field by field, a later oneof case replaces an earlier one, unknown fields
// are appended. It differs on exactly these, which a plan lists per type
// (computed once by reflection, then applied with a few reflection calls):
//   - transition lists and profile spans: a union, not an append;
//   - other lists and maps: the later non-empty one replaces, not appends;
//   - google.protobuf.* values (Timestamp, ...): replaced whole;
//   - the envelope's event_id and timestamp: the first event's stay;
//   - singular messages whose type has fixups of its own: recurse.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace rayagg {

class MergePlans {
 public:
  // Prepares `from` (consumed: moved-from parts) and `to` so that
  // to.MergeFrom(from) afterwards yields the merge of `from` into `to`.
  // `envelope` is true for the top-level RayEvent.
  void Prepare(google::protobuf::Message& from, google::protobuf::Message& to, bool envelope);

 private:
  enum class Fixup {
    kTransitions,  // union by (state, timestamp), ordered by timestamp
    kSpans,        // union, appended in received order
    kReplaceList,  // later non-empty list or map replaces
    kWholeValue,   // later google.protobuf.* value replaces
    kNested,       // both set: prepare the sub-messages
  };
  struct FieldFixup {
    const google::protobuf::FieldDescriptor* field;
    Fixup fixup;
    // kTransitions: the element's state and timestamp fields.
    const google::protobuf::FieldDescriptor* state = nullptr;
    const google::protobuf::FieldDescriptor* timestamp = nullptr;
  };
  struct Plan {
    std::vector<FieldFixup> fixups;  // fields outside any oneof
    // Oneof members with fixups, by field: only the case `from` has set is
    // looked at (RayEvent's payload is a oneof of ~20 messages).
    absl::flat_hash_map<const google::protobuf::FieldDescriptor*, FieldFixup> oneof_fixups;
    std::vector<const google::protobuf::OneofDescriptor*> oneofs;
    // event_id and timestamp, if the type has them: kept from the first
    // event when it is the envelope.
    std::vector<const google::protobuf::FieldDescriptor*> envelope_identity;
    bool in_progress = false;  // being built (a recursive type met itself)
  };
  using TransitionKey = std::tuple<int64_t, int64_t, int32_t>;  // state, seconds, nanos

  const Plan& PlanFor(const google::protobuf::Descriptor& type);
  void Apply(const Plan& plan, google::protobuf::Message& from, google::protobuf::Message& to);
  void ApplyOne(const FieldFixup& fixup, google::protobuf::Message& from,
                google::protobuf::Message& to);
  void UnionTransitions(const FieldFixup& fixup, google::protobuf::Message& from,
                        google::protobuf::Message& to);
  void UnionSpans(const google::protobuf::FieldDescriptor& field, google::protobuf::Message& from,
                  google::protobuf::Message& to);

  absl::flat_hash_map<const google::protobuf::Descriptor*, std::unique_ptr<Plan>> plans_;
};

}  // namespace rayagg
