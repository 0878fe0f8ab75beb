#include "merge/ray_event_merger.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace rayagg {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// A repeated message whose elements have a `state` and a Timestamp
// `timestamp`: every lifecycle event's state_transitions.
bool IsTransitionList(const FieldDescriptor& field) {
  if (!field.is_repeated() || field.is_map() || field.message_type() == nullptr) return false;
  const Descriptor& element = *field.message_type();
  const FieldDescriptor* state = element.FindFieldByName("state");
  const FieldDescriptor* timestamp = element.FindFieldByName("timestamp");
  return state != nullptr && !state->is_repeated() && timestamp != nullptr &&
         !timestamp->is_repeated() && timestamp->message_type() != nullptr &&
         timestamp->message_type()->full_name() == "google.protobuf.Timestamp";
}

// ProfileEvents.events: the spans of a task's profile.
bool IsSpanList(const FieldDescriptor& field) {
  return field.is_repeated() && field.name() == "events" &&
         field.containing_type()->full_name() == "ray.rpc.ProfileEvents";
}

// Messages that are one value, not a record: replaced whole, never merged
// field by field (a later Timestamp's seconds must not pair with an earlier
// one's nanos).
bool IsWholeValue(const Descriptor& type) {
  return type.file()->package() == "google.protobuf";
}

// (state, seconds, nanos) of a transition.
using TransitionKey = std::tuple<int64_t, int64_t, int32_t>;

TransitionKey KeyOf(const Message& transition) {
  const Descriptor& type = *transition.GetDescriptor();
  const Reflection& reflection = *transition.GetReflection();
  const FieldDescriptor& state = *type.FindFieldByName("state");
  const int64_t state_value = state.cpp_type() == FieldDescriptor::CPPTYPE_ENUM
                                  ? reflection.GetEnumValue(transition, &state)
                                  : reflection.GetInt32(transition, &state);
  const auto& timestamp = static_cast<const google::protobuf::Timestamp&>(
      reflection.GetMessage(transition, type.FindFieldByName("timestamp")));
  return {state_value, timestamp.seconds(), timestamp.nanos()};
}

void MergeInto(Message& from, Message& to, bool envelope);

// Appends `from`'s element `index` of `field` to `to`'s list (by swap).
void MoveElement(Message& from, int index, Message& to, const FieldDescriptor& field) {
  const Reflection& reflection = *to.GetReflection();
  Message* added = reflection.AddMessage(&to, &field);
  added->GetReflection()->Swap(added, reflection.MutableRepeatedMessage(&from, &field, index));
}

// Union of two transition lists, ordered by timestamp; ties keep received
// order (earlier event first, then each event's own order). A (state,
// timestamp) pair already present is not repeated: the later copy's other
// fields merge into it by the generic rule.
void UnionTransitions(Message& from, Message& to, const FieldDescriptor& field) {
  const Reflection& reflection = *to.GetReflection();
  const int original = reflection.FieldSize(to, &field);
  const int incoming = reflection.FieldSize(from, &field);
  std::vector<TransitionKey> keys;
  keys.reserve(static_cast<size_t>(original + incoming));
  for (int i = 0; i < original; ++i) keys.push_back(KeyOf(reflection.GetRepeatedMessage(to, &field, i)));
  for (int i = 0; i < incoming; ++i) {
    Message& transition = *reflection.MutableRepeatedMessage(&from, &field, i);
    const TransitionKey key = KeyOf(transition);
    const auto found = std::find(keys.begin(), keys.begin() + original, key);
    if (found != keys.begin() + original) {
      MergeInto(transition,
                *reflection.MutableRepeatedMessage(&to, &field, static_cast<int>(found - keys.begin())),
                false);
      continue;
    }
    // Repeats within the later event itself stay: they are not ours to fix.
    MoveElement(from, i, to, field);
    keys.push_back(key);
  }
  // Stable insertion sort by (seconds, nanos): lists are short and almost
  // always already in order, so this is one pass.
  const auto time_of = [](const TransitionKey& key) {
    return std::make_pair(std::get<1>(key), std::get<2>(key));
  };
  for (size_t i = 1; i < keys.size(); ++i) {
    for (size_t j = i; j > 0 && time_of(keys[j]) < time_of(keys[j - 1]); --j) {
      std::swap(keys[j], keys[j - 1]);
      reflection.SwapElements(&to, &field, static_cast<int>(j), static_cast<int>(j - 1));
    }
  }
}

// Union of profile spans: spans of the later event that are not already
// present are appended (Ray's recorder appends spans, it does not sort them).
void UnionSpans(Message& from, Message& to, const FieldDescriptor& field) {
  const Reflection& reflection = *to.GetReflection();
  const int original = reflection.FieldSize(to, &field);
  const int incoming = reflection.FieldSize(from, &field);
  for (int i = 0; i < incoming; ++i) {
    const Message& span = reflection.GetRepeatedMessage(from, &field, i);
    bool present = false;
    for (int j = 0; j < original && !present; ++j) {
      present = google::protobuf::util::MessageDifferencer::Equals(
          reflection.GetRepeatedMessage(to, &field, j), span);
    }
    if (!present) MoveElement(from, i, to, field);
  }
}

// Moves every field set in `from` into `to` by the rules of COALESCING.md.
// `from` is consumed (fields are swapped out of it, not copied).
void MergeInto(Message& from, Message& to, bool envelope) {
  const Reflection& reflection = *to.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  // Exactly the fields that count as set: present ones with explicit
  // presence (even at their default), non-default implicit scalars,
  // non-empty repeated fields and maps.
  reflection.ListFields(from, &fields);
  for (const FieldDescriptor* field : fields) {
    // The envelope keeps the first event's identity and time.
    if (envelope && (field->name() == "event_id" || field->name() == "timestamp")) continue;
    if (field->is_repeated()) {
      if (IsTransitionList(*field)) {
        UnionTransitions(from, to, *field);
      } else if (IsSpanList(*field)) {
        UnionSpans(from, to, *field);
      } else {
        // Lists and maps are one value: the latest non-empty one wins.
        reflection.ClearField(&to, field);
        reflection.SwapFields(&from, &to, {field});
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
               !IsWholeValue(*field->message_type()) && reflection.HasField(to, field)) {
      MergeInto(*reflection.MutableMessage(&from, field), *reflection.MutableMessage(&to, field),
                false);
    } else {
      // A scalar, a whole value, or a message `to` lacks. For a oneof member
      // this swaps the whole oneof, so a later case replaces an earlier one.
      reflection.SwapFields(&from, &to, {field});
    }
  }
  // Fields unknown to this build: append the later ones. On parse the last
  // occurrence of a singular field wins, which is the rule above.
  if (!reflection.GetUnknownFields(from).empty()) {
    reflection.MutableUnknownFields(&to)->MergeFrom(reflection.GetUnknownFields(from));
  }
}

}  // namespace

bool RayEventMerger::Merge(std::span<const std::string_view> parts, std::string& merged) {
  if (parts.empty() ||
      !earlier_.ParseFromArray(parts[0].data(), static_cast<int>(parts[0].size()))) {
    return false;
  }
  for (const std::string_view later : parts.subspan(1)) {
    if (!later_.ParseFromArray(later.data(), static_cast<int>(later.size()))) return false;
    // The log merges only events of one entity key, which includes the
    // payload kind; check the type too rather than trust a hash.
    if (earlier_.event_type() != later_.event_type()) return false;
    MergeInto(later_, earlier_, /*envelope=*/true);
  }
  merged.clear();
  return earlier_.SerializeToString(&merged);
}

EventMergerFactory RayEventMerger::Factory() {
  return [] { return std::make_unique<RayEventMerger>(); };
}

}  // namespace rayagg
