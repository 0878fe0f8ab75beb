#include "merge/merge_plan.h"

#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

namespace rayagg {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Messages that are one value, not a record: replaced whole, never merged
// field by field (a later Timestamp's seconds must not pair with an earlier
// one's nanos).
bool IsWholeValue(const Descriptor& type) { return type.file()->package() == "google.protobuf"; }

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

// (state, seconds, nanos) of a transition.
std::tuple<int64_t, int64_t, int32_t> KeyOf(const Message& transition, const FieldDescriptor& state,
                                            const FieldDescriptor& timestamp_field) {
  const Reflection& reflection = *transition.GetReflection();
  const int64_t state_value = state.cpp_type() == FieldDescriptor::CPPTYPE_ENUM
                                  ? reflection.GetEnumValue(transition, &state)
                                  : reflection.GetInt32(transition, &state);
  const auto& timestamp = static_cast<const google::protobuf::Timestamp&>(
      reflection.GetMessage(transition, &timestamp_field));
  return {state_value, timestamp.seconds(), timestamp.nanos()};
}

// Appends `from`'s element `index` of `field` to `to`'s list (by swap).
void MoveElement(Message& from, int index, Message& to, const FieldDescriptor& field) {
  const Reflection& reflection = *to.GetReflection();
  Message* added = reflection.AddMessage(&to, &field);
  added->GetReflection()->Swap(added, reflection.MutableRepeatedMessage(&from, &field, index));
}

}  // namespace

const MergePlans::Plan& MergePlans::PlanFor(const Descriptor& type) {
  if (const auto found = plans_.find(&type); found != plans_.end()) return *found->second;
  // Inserted before its fields are looked at: a recursive type finds itself
  // here (then, conservatively, it counts as having fixups).
  Plan& plan = *plans_.emplace(&type, std::make_unique<Plan>()).first->second;
  plan.in_progress = true;
  const auto add = [&plan](const FieldFixup& fixup) {
    if (const auto* oneof = fixup.field->real_containing_oneof()) {
      plan.oneof_fixups.emplace(fixup.field, fixup);
      if (std::find(plan.oneofs.begin(), plan.oneofs.end(), oneof) == plan.oneofs.end()) {
        plan.oneofs.push_back(oneof);
      }
    } else {
      plan.fixups.push_back(fixup);
    }
  };
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor* field = type.field(i);
    if (field->is_repeated()) {
      if (IsTransitionList(*field)) {
        const Descriptor& element = *field->message_type();
        add({field, Fixup::kTransitions, element.FindFieldByName("state"),
             element.FindFieldByName("timestamp")});
      } else {
        add({field, IsSpanList(*field) ? Fixup::kSpans : Fixup::kReplaceList});
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      const Descriptor& sub = *field->message_type();
      if (IsWholeValue(sub)) {
        add({field, Fixup::kWholeValue});
      } else {
        const Plan& sub_plan = PlanFor(sub);
        if (sub_plan.in_progress || !sub_plan.fixups.empty() || !sub_plan.oneofs.empty()) {
          add({field, Fixup::kNested});
        }
      }
    }
  }
  for (const char* name : {"event_id", "timestamp"}) {
    if (const FieldDescriptor* field = type.FindFieldByName(name)) {
      plan.envelope_identity.push_back(field);
    }
  }
  plan.in_progress = false;
  return plan;
}

void MergePlans::Prepare(Message& from, Message& to, bool envelope) {
  const Plan& plan = PlanFor(*to.GetDescriptor());
  if (envelope) {
    // The envelope keeps the first event's identity and time: MergeFrom
    // must not see the later ones.
    for (const FieldDescriptor* field : plan.envelope_identity) {
      from.GetReflection()->ClearField(&from, field);
    }
  }
  Apply(plan, from, to);
}

void MergePlans::Apply(const Plan& plan, Message& from, Message& to) {
  for (const FieldFixup& fixup : plan.fixups) ApplyOne(fixup, from, to);
  const Reflection& reflection = *from.GetReflection();
  for (const auto* oneof : plan.oneofs) {
    const FieldDescriptor* set = reflection.GetOneofFieldDescriptor(from, oneof);
    if (set == nullptr) continue;
    if (const auto fixup = plan.oneof_fixups.find(set); fixup != plan.oneof_fixups.end()) {
      ApplyOne(fixup->second, from, to);
    }
  }
}

void MergePlans::ApplyOne(const FieldFixup& fixup, Message& from, Message& to) {
  const Reflection& reflection = *to.GetReflection();
  const FieldDescriptor& field = *fixup.field;
  switch (fixup.fixup) {
    case Fixup::kReplaceList:
      if (reflection.FieldSize(from, &field) > 0) reflection.ClearField(&to, &field);
      break;
    case Fixup::kWholeValue:
      if (reflection.HasField(from, &field)) reflection.ClearField(&to, &field);
      break;
    case Fixup::kNested:
      if (reflection.HasField(from, &field) && reflection.HasField(to, &field)) {
        Message& sub_to = *reflection.MutableMessage(&to, &field);
        Apply(PlanFor(*sub_to.GetDescriptor()), *reflection.MutableMessage(&from, &field), sub_to);
      }
      break;
    case Fixup::kTransitions:
      // Even with nothing incoming the merged list is put in time order.
      if (reflection.FieldSize(from, &field) > 0 || reflection.FieldSize(to, &field) > 1) {
        UnionTransitions(fixup, from, to);
        reflection.ClearField(&from, &field);
      }
      break;
    case Fixup::kSpans:
      if (reflection.FieldSize(from, &field) > 0) {
        UnionSpans(field, from, to);
        reflection.ClearField(&from, &field);
      }
      break;
  }
}

// Union of two transition lists, ordered by timestamp; ties keep received
// order (earlier event first, then each event's own order). A (state,
// timestamp) pair already present is not repeated: the later copy's other
// fields merge into it by the same rules.
void MergePlans::UnionTransitions(const FieldFixup& fixup, Message& from, Message& to) {
  const FieldDescriptor& field = *fixup.field;
  const Reflection& reflection = *to.GetReflection();
  const int original = reflection.FieldSize(to, &field);
  const int incoming = reflection.FieldSize(from, &field);
  std::vector<TransitionKey> keys;
  keys.reserve(static_cast<size_t>(original + incoming));
  for (int i = 0; i < original; ++i) {
    keys.push_back(
        KeyOf(reflection.GetRepeatedMessage(to, &field, i), *fixup.state, *fixup.timestamp));
  }
  for (int i = 0; i < incoming; ++i) {
    Message& transition = *reflection.MutableRepeatedMessage(&from, &field, i);
    const TransitionKey key = KeyOf(transition, *fixup.state, *fixup.timestamp);
    const auto found = std::find(keys.begin(), keys.begin() + original, key);
    if (found != keys.begin() + original) {
      Message& existing =
          *reflection.MutableRepeatedMessage(&to, &field, static_cast<int>(found - keys.begin()));
      Apply(PlanFor(*existing.GetDescriptor()), transition, existing);
      existing.MergeFrom(transition);
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
void MergePlans::UnionSpans(const FieldDescriptor& field, Message& from, Message& to) {
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

}  // namespace rayagg
