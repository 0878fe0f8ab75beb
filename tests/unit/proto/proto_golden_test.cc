// Golden wire-format test: an AddEventsRequest is assembled byte by byte from the field
// numbers in ray-wire-spec.md (§3, §4.1, §5, §6) with a small local encoder, independent of
// the generated serializer, then parsed with the generated code. Also checks that unknown
// fields and unknown enum numbers survive a parse/serialize round trip.

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "src/ray/protobuf/common.pb.h"
#include "src/ray/protobuf/events_event_aggregator_service.pb.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace {

namespace events = ray::rpc::events;
namespace rpc = ray::rpc;

// Minimal protobuf wire encoder: fields are appended in call order.
class Wire {
 public:
  Wire& Varint(uint32_t field, uint64_t value) {
    Tag(field, 0);
    RawVarint(value);
    return *this;
  }
  Wire& Bytes(uint32_t field, const std::string& value) {
    Tag(field, 2);
    RawVarint(value.size());
    out_ += value;
    return *this;
  }
  Wire& Message(uint32_t field, const Wire& message) { return Bytes(field, message.out_); }
  Wire& Double(uint32_t field, double value) {
    Tag(field, 1);
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  void Tag(uint32_t field, uint32_t wire_type) { RawVarint((uint64_t{field} << 3) | wire_type); }
  void RawVarint(uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }

  std::string out_;
};

Wire Timestamp(int64_t seconds, int32_t nanos) {
  return Wire().Varint(1, static_cast<uint64_t>(seconds)).Varint(2, static_cast<uint64_t>(nanos));
}

// RayEvent envelope fields 1-7 (in field order); payload and 18/29/30 follow.
Wire Envelope(const std::string& event_id, uint64_t event_type) {
  return Wire()
      .Bytes(1, event_id)
      .Varint(2, 2)  // source_type = GCS
      .Varint(3, event_type)
      .Message(4, Timestamp(1767225600, 500))
      .Varint(5, 3)  // severity = INFO
      .Bytes(7, "session_golden");
}

// RayEvent fields 18, 29, 30.
void AddTrailer(Wire* event) {
  event->Bytes(18, "emitter-node").Bytes(29, "golden-host").Varint(30, 8080);
}

Wire TaskLifecycleEvent() {
  Wire payload;
  payload.Bytes(1, "task-1")
      .Varint(2, 1)
      .Message(3, Wire().Varint(1, 8).Message(2, Timestamp(100, 1)))   // RUNNING
      .Message(3, Wire().Varint(1, 12).Message(2, Timestamp(200, 2)))  // FAILED
      .Message(4, Wire().Bytes(5, "boom").Varint(11, 3))               // TASK_EXECUTION_EXCEPTION
      .Bytes(5, "node-1")
      .Message(11, Wire().Bytes(1, "/tmp/out.log").Varint(3, 0).Varint(6, 4096));
  Wire event = Envelope("event-tl", 2);
  event.Message(9, payload);
  AddTrailer(&event);
  return event;
}

Wire TaskDefinitionEvent() {
  Wire python;
  python.Bytes(1, "mod").Bytes(2, "Cls").Bytes(3, "fn").Bytes(4, "hash");
  Wire payload;
  payload.Bytes(1, "task-1")
      .Varint(3, 1)  // ACTOR_CREATION_TASK
      .Message(5, Wire().Message(2, python))
      .Bytes(6, "Cls.__init__")
      .Message(7, Wire().Bytes(1, "CPU").Double(2, 1.5));
  Wire event = Envelope("event-td", 1);
  event.Message(8, payload);
  return event;
}

Wire NodeDefinitionEvent() {
  Wire payload;
  payload.Bytes(1, "node-1").Bytes(5, "ip-10-0-0-1").Bytes(8, "m5.large");
  Wire event = Envelope("event-nd", 7);
  event.Message(14, payload);
  return event;
}

Wire ActorLifecycleEvent() {
  Wire node_death_info;
  node_death_info.Varint(1, 2).Bytes(2, "node lost");  // UNEXPECTED_TERMINATION
  Wire died;
  died.Bytes(1, "actor died").Varint(5, 4242).Message(11, node_death_info).Varint(12, 3);
  Wire transition;
  transition
      .Varint(1, 4)  // DEAD
      .Message(2, Timestamp(300, 3))
      .Message(6, Wire().Message(3, died));
  Wire payload;
  payload.Bytes(1, "actor-1").Message(2, transition);
  Wire event = Envelope("event-al", 10);
  event.Message(17, payload);
  return event;
}

Wire PlacementGroupLifecycleEvent() {
  Wire transition;
  transition
      .Varint(1, 1)  // PREPARED
      .Message(2, Timestamp(400, 4))
      .Message(6, Wire().Varint(1, 2).Bytes(2, "node-2"));
  Wire payload;
  payload.Bytes(1, "pg-1").Message(2, transition);
  Wire event = Envelope("event-pgl", 12);
  event.Message(20, payload);
  return event;
}

std::string GoldenRequest() {
  Wire metadata;
  metadata.Message(2, Wire().Bytes(1, "dropped-task").Varint(2, 7));
  Wire data;
  data.Message(1, TaskLifecycleEvent())
      .Message(1, TaskDefinitionEvent())
      .Message(1, NodeDefinitionEvent())
      .Message(1, ActorLifecycleEvent())
      .Message(1, PlacementGroupLifecycleEvent())
      .Message(2, metadata);
  return Wire().Message(1, data).str();
}

std::string DeterministicSerialize(const google::protobuf::MessageLite& message) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

TEST(ProtoGoldenTest, HandEncodedRequestLandsInTheRightFields) {
  events::AddEventsRequest request;
  ASSERT_TRUE(request.ParseFromString(GoldenRequest()));
  const auto& data = request.events_data();
  ASSERT_EQ(data.events_size(), 5);

  // Task lifecycle.
  const auto& tl_event = data.events(0);
  EXPECT_EQ(tl_event.event_id(), "event-tl");
  EXPECT_EQ(tl_event.source_type(), events::RayEvent::GCS);
  EXPECT_EQ(tl_event.event_type(), events::RayEvent::TASK_LIFECYCLE_EVENT);
  EXPECT_EQ(tl_event.timestamp().seconds(), 1767225600);
  EXPECT_EQ(tl_event.timestamp().nanos(), 500);
  EXPECT_EQ(tl_event.severity(), events::RayEvent::INFO);
  EXPECT_EQ(tl_event.session_name(), "session_golden");
  EXPECT_EQ(tl_event.node_id(), "emitter-node");
  EXPECT_EQ(tl_event.source_hostname(), "golden-host");
  EXPECT_EQ(tl_event.source_pid(), 8080);
  ASSERT_TRUE(tl_event.has_task_lifecycle_event());
  const auto& tl = tl_event.task_lifecycle_event();
  EXPECT_EQ(tl.task_id(), "task-1");
  EXPECT_EQ(tl.task_attempt(), 1);
  ASSERT_EQ(tl.state_transitions_size(), 2);
  EXPECT_EQ(tl.state_transitions(0).state(), rpc::RUNNING);
  EXPECT_EQ(tl.state_transitions(0).timestamp().seconds(), 100);
  EXPECT_EQ(tl.state_transitions(0).timestamp().nanos(), 1);
  EXPECT_EQ(tl.state_transitions(1).state(), rpc::FAILED);
  EXPECT_EQ(tl.state_transitions(1).timestamp().seconds(), 200);
  EXPECT_EQ(tl.ray_error_info().error_message(), "boom");
  EXPECT_EQ(tl.ray_error_info().error_type(), rpc::TASK_EXECUTION_EXCEPTION);
  EXPECT_EQ(tl.ray_error_info().error_case(), rpc::RayErrorInfo::ERROR_NOT_SET);
  EXPECT_EQ(tl.node_id(), "node-1");
  EXPECT_FALSE(tl.has_is_debugger_paused());
  EXPECT_FALSE(tl.has_actor_repr_name());
  const auto& log = tl.task_log_info();
  EXPECT_TRUE(log.has_stdout_file());
  EXPECT_EQ(log.stdout_file(), "/tmp/out.log");
  EXPECT_FALSE(log.has_stderr_file());
  // Explicit presence: a zero start offset is distinguishable from "not sent".
  EXPECT_TRUE(log.has_stdout_start());
  EXPECT_EQ(log.stdout_start(), 0);
  EXPECT_FALSE(log.has_stdout_end());
  EXPECT_FALSE(log.has_stderr_start());
  EXPECT_TRUE(log.has_stderr_end());
  EXPECT_EQ(log.stderr_end(), 4096);

  // Task definition.
  const auto& td_event = data.events(1);
  EXPECT_EQ(td_event.event_type(), events::RayEvent::TASK_DEFINITION_EVENT);
  ASSERT_TRUE(td_event.has_task_definition_event());
  const auto& td = td_event.task_definition_event();
  EXPECT_EQ(td.task_id(), "task-1");
  EXPECT_EQ(td.task_type(), rpc::ACTOR_CREATION_TASK);
  ASSERT_TRUE(td.task_func().has_python_function_descriptor());
  const auto& python = td.task_func().python_function_descriptor();
  EXPECT_EQ(python.module_name(), "mod");
  EXPECT_EQ(python.class_name(), "Cls");
  EXPECT_EQ(python.function_name(), "fn");
  EXPECT_EQ(python.function_hash(), "hash");
  EXPECT_EQ(td.task_name(), "Cls.__init__");
  ASSERT_EQ(td.required_resources_size(), 1);
  EXPECT_DOUBLE_EQ(td.required_resources().at("CPU"), 1.5);
  EXPECT_FALSE(td.has_call_site());
  EXPECT_FALSE(td.has_fallback_strategy());

  // Node definition (2026 layout: hostname = 5, instance_type_name = 8).
  const auto& nd_event = data.events(2);
  EXPECT_EQ(nd_event.event_type(), events::RayEvent::NODE_DEFINITION_EVENT);
  ASSERT_TRUE(nd_event.has_node_definition_event());
  const auto& nd = nd_event.node_definition_event();
  EXPECT_EQ(nd.node_id(), "node-1");
  EXPECT_EQ(nd.hostname(), "ip-10-0-0-1");
  EXPECT_EQ(nd.instance_type_name(), "m5.large");
  EXPECT_EQ(nd.node_name(), "");
  EXPECT_EQ(nd.instance_id(), "");

  // Actor lifecycle with death_cause -> actor_died_error_context -> node_death_info.
  const auto& al_event = data.events(3);
  EXPECT_EQ(al_event.event_type(), events::RayEvent::ACTOR_LIFECYCLE_EVENT);
  ASSERT_TRUE(al_event.has_actor_lifecycle_event());
  const auto& al = al_event.actor_lifecycle_event();
  EXPECT_EQ(al.actor_id(), "actor-1");
  ASSERT_EQ(al.state_transitions_size(), 1);
  const auto& al_transition = al.state_transitions(0);
  EXPECT_EQ(al_transition.state(), events::ActorLifecycleEvent::DEAD);
  EXPECT_EQ(al_transition.timestamp().seconds(), 300);
  ASSERT_EQ(al_transition.death_cause().context_case(),
            rpc::ActorDeathCause::kActorDiedErrorContext);
  const auto& died = al_transition.death_cause().actor_died_error_context();
  EXPECT_EQ(died.error_message(), "actor died");
  EXPECT_EQ(died.pid(), 4242u);
  EXPECT_EQ(died.reason(), rpc::ActorDiedErrorContext::NODE_DIED);
  ASSERT_TRUE(died.has_node_death_info());
  EXPECT_EQ(died.node_death_info().reason(), rpc::NodeDeathInfo::UNEXPECTED_TERMINATION);
  EXPECT_EQ(died.node_death_info().reason_message(), "node lost");

  // Placement group lifecycle with a bundle placement (field 6).
  const auto& pgl_event = data.events(4);
  EXPECT_EQ(pgl_event.event_type(), events::RayEvent::PLACEMENT_GROUP_LIFECYCLE_EVENT);
  ASSERT_TRUE(pgl_event.has_placement_group_lifecycle_event());
  const auto& pgl = pgl_event.placement_group_lifecycle_event();
  EXPECT_EQ(pgl.placement_group_id(), "pg-1");
  ASSERT_EQ(pgl.state_transitions_size(), 1);
  EXPECT_EQ(pgl.state_transitions(0).state(), events::PlacementGroupLifecycleEvent::PREPARED);
  ASSERT_EQ(pgl.state_transitions(0).bundle_placements_size(), 1);
  EXPECT_EQ(pgl.state_transitions(0).bundle_placements(0).bundle_index(), 2);
  EXPECT_EQ(pgl.state_transitions(0).bundle_placements(0).node_id(), "node-2");

  // Metadata.
  ASSERT_EQ(data.task_events_metadata().dropped_task_attempts_size(), 1);
  EXPECT_EQ(data.task_events_metadata().dropped_task_attempts(0).task_id(), "dropped-task");
  EXPECT_EQ(data.task_events_metadata().dropped_task_attempts(0).attempt_number(), 7);

  // Nothing was unknown to the generated code.
  for (const auto& event : data.events()) {
    EXPECT_EQ(event.GetReflection()->GetUnknownFields(event).field_count(), 0);
  }
}

// The hand encoding writes fields in ascending number order with no defaults, which is the
// canonical order the generated serializer uses, so re-serializing must reproduce it exactly.
TEST(ProtoGoldenTest, ReserializationReproducesTheGoldenBytes) {
  const std::string golden = GoldenRequest();
  events::AddEventsRequest request;
  ASSERT_TRUE(request.ParseFromString(golden));
  EXPECT_EQ(DeterministicSerialize(request), golden);
}

TEST(ProtoGoldenTest, UnknownFieldSurvivesRoundTrip) {
  Wire event = Envelope("event-unknown", 1);
  event.Bytes(99, "from-the-future");
  events::RayEvent parsed;
  ASSERT_TRUE(parsed.ParseFromString(event.str()));
  EXPECT_EQ(parsed.event_id(), "event-unknown");
  const auto& unknown = parsed.GetReflection()->GetUnknownFields(parsed);
  ASSERT_EQ(unknown.field_count(), 1);
  EXPECT_EQ(unknown.field(0).number(), 99);
  ASSERT_EQ(unknown.field(0).type(), google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED);
  EXPECT_EQ(unknown.field(0).length_delimited(), "from-the-future");

  // Kept on re-serialization, also when the event is nested in a request.
  EXPECT_EQ(parsed.SerializeAsString(), event.str());
  events::AddEventsRequest request;
  *request.mutable_events_data()->add_events() = parsed;
  events::AddEventsRequest reparsed;
  ASSERT_TRUE(reparsed.ParseFromString(request.SerializeAsString()));
  const auto& again = reparsed.events_data().events(0);
  ASSERT_EQ(again.GetReflection()->GetUnknownFields(again).field_count(), 1);
  EXPECT_EQ(again.GetReflection()->GetUnknownFields(again).field(0).number(), 99);
}

TEST(ProtoGoldenTest, UnknownEnumValuesArePreservedAsNumbers) {
  Wire payload;
  payload.Bytes(1, "task-x").Message(3, Wire().Varint(1, 99).Message(2, Timestamp(1, 5)));
  Wire event = Envelope("event-enum", 77);
  event.Message(9, payload);

  events::RayEvent parsed;
  ASSERT_TRUE(parsed.ParseFromString(event.str()));
  EXPECT_EQ(static_cast<int>(parsed.event_type()), 77);
  EXPECT_FALSE(events::RayEvent::EventType_IsValid(parsed.event_type()));
  ASSERT_EQ(parsed.task_lifecycle_event().state_transitions_size(), 1);
  EXPECT_EQ(static_cast<int>(parsed.task_lifecycle_event().state_transitions(0).state()), 99);
  EXPECT_FALSE(rpc::TaskStatus_IsValid(parsed.task_lifecycle_event().state_transitions(0).state()));
  // proto3 enums are open: the numbers stay in the fields, not in the unknown field set.
  EXPECT_EQ(parsed.GetReflection()->GetUnknownFields(parsed).field_count(), 0);
  EXPECT_EQ(parsed.SerializeAsString(), event.str());
}

}  // namespace
