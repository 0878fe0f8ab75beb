// Round-trip test for the Ray-compatible event protos: one RayEvent of every EventType
// (1-20) with every field of every reachable message set to a non-default value, serialized,
// parsed back and compared. A reflection walk asserts that the request really sets every
// field reachable from AddEventsRequest, so adding a field to a .proto without extending this
// test makes it fail.

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "src/ray/protobuf/common.pb.h"
#include "src/ray/protobuf/events_event_aggregator_service.pb.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "src/ray/protobuf/public/runtime_environment.pb.h"
#include "support/sample_events.h"

namespace {

namespace events = ray::rpc::events;
namespace rpc = ray::rpc;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;

// The request: every event of the shared sample set (all 20 types, every
// oneof member) plus dropped-attempt metadata.
events::AddEventsRequest BuildFullRequest() {
  events::AddEventsRequest request =
      rayagg::test::RequestOf(rayagg::test::EventsSettingEveryField());
  auto* dropped =
      request.mutable_events_data()->mutable_task_events_metadata()->add_dropped_task_attempts();
  dropped->set_task_id("dropped-task");
  dropped->set_attempt_number(9);
  return request;
}

// ---- Reflection helpers ----

// Map fields with scalar values are treated as leaves (their synthetic entry messages are
// not walked); a map whose value is a message recurses into the value type.
const Descriptor* ChildMessageType(const FieldDescriptor& field) {
  if (field.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return nullptr;
  const Descriptor* type = field.message_type();
  if (field.is_map()) {
    const FieldDescriptor* value = type->map_value();
    return value->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ? value->message_type() : nullptr;
  }
  return type;
}

void CollectReachableFields(const Descriptor& type, std::set<std::string>* visited_types,
                            std::set<std::string>* fields) {
  if (!visited_types->insert(type.full_name()).second) return;
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    fields->insert(field.full_name());
    if (const Descriptor* child = ChildMessageType(field)) {
      CollectReachableFields(*child, visited_types, fields);
    }
  }
}

// Records the full name of every field that is set (non-default / non-empty / present) in
// message or anywhere below it.
void CollectSetFields(const Message& message, std::set<std::string>* fields) {
  const auto* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> set_fields;
  reflection->ListFields(message, &set_fields);
  for (const FieldDescriptor* field : set_fields) {
    fields->insert(field->full_name());
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_map()) {
      if (ChildMessageType(*field) == nullptr) continue;
      const FieldDescriptor* value_field = field->message_type()->map_value();
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        const Message& entry = reflection->GetRepeatedMessage(message, field, i);
        CollectSetFields(entry.GetReflection()->GetMessage(entry, value_field), fields);
      }
    } else if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        CollectSetFields(reflection->GetRepeatedMessage(message, field, i), fields);
      }
    } else {
      CollectSetFields(reflection->GetMessage(message, field), fields);
    }
  }
}

// ---- Tests ----

TEST(ProtoRoundTripTest, FullRequestSurvivesSerializeAndParse) {
  const events::AddEventsRequest original = BuildFullRequest();
  std::string wire;
  ASSERT_TRUE(original.SerializeToString(&wire));
  ASSERT_FALSE(wire.empty());

  events::AddEventsRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(wire));
  std::string differences;
  MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&differences);
  EXPECT_TRUE(differencer.Compare(original, parsed)) << differences;
  EXPECT_TRUE(MessageDifferencer::Equals(original, parsed));
  EXPECT_EQ(parsed.ByteSizeLong(), wire.size());
  EXPECT_EQ(parsed.GetReflection()->GetUnknownFields(parsed).field_count(), 0);
}

TEST(ProtoRoundTripTest, EveryEventTypeIsPresentWithItsPayload) {
  const events::AddEventsRequest request = BuildFullRequest();
  const auto* event_type_enum = events::RayEvent::EventType_descriptor();
  std::set<int> seen_types;
  for (const auto& event : request.events_data().events()) {
    seen_types.insert(event.event_type());
    // Exactly one payload (message-typed field other than timestamp) is set.
    std::vector<const FieldDescriptor*> set_fields;
    event.GetReflection()->ListFields(event, &set_fields);
    int payloads = 0;
    for (const FieldDescriptor* field : set_fields) {
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && field->name() != "timestamp") {
        ++payloads;
      }
    }
    EXPECT_EQ(payloads, 1) << event_type_enum->FindValueByNumber(event.event_type())->name();
  }
  for (int type = 1; type <= 20; ++type) {
    EXPECT_TRUE(seen_types.count(type) == 1) << "missing event type " << type;
  }
}

TEST(ProtoRoundTripTest, EveryReachableFieldIsSetSomewhere) {
  std::set<std::string> visited_types;
  std::set<std::string> reachable;
  CollectReachableFields(*events::AddEventsRequest::descriptor(), &visited_types, &reachable);
  // Sanity: the walk reaches deep into ray.rpc.
  EXPECT_TRUE(reachable.count("ray.rpc.NodeDeathInfo.reason_message") == 1);
  EXPECT_TRUE(reachable.count("ray.rpc.LabelSelectorConstraint.operator") == 1);
  EXPECT_TRUE(reachable.count("google.protobuf.Timestamp.nanos") == 1);

  std::set<std::string> set_somewhere;
  CollectSetFields(BuildFullRequest(), &set_somewhere);

  for (const std::string& name : reachable) {
    EXPECT_TRUE(set_somewhere.count(name) == 1) << "field never set in the test request: " << name;
  }
  for (const std::string& name : set_somewhere) {
    EXPECT_TRUE(reachable.count(name) == 1) << "set field not found by the walk: " << name;
  }
}

// RuntimeEnvInfo is not reachable from AddEventsRequest (runtime_env_info is reserved) but is
// still defined; make sure its messages round-trip too.
TEST(ProtoRoundTripTest, RuntimeEnvInfoRoundTrips) {
  rpc::RuntimeEnvInfo info;
  info.set_serialized_runtime_env("{\"working_dir\":\"s3://bucket/x.zip\"}");
  info.mutable_uris()->set_working_dir_uri("s3://bucket/x.zip");
  info.mutable_uris()->add_py_modules_uris("gcs://mod.zip");
  info.mutable_runtime_env_config()->set_setup_timeout_seconds(600);
  info.mutable_runtime_env_config()->set_eager_install(true);
  info.mutable_runtime_env_config()->add_log_files("setup.log");

  std::set<std::string> visited_types;
  std::set<std::string> reachable;
  CollectReachableFields(*rpc::RuntimeEnvInfo::descriptor(), &visited_types, &reachable);
  std::set<std::string> set_somewhere;
  CollectSetFields(info, &set_somewhere);
  EXPECT_EQ(reachable, set_somewhere);

  rpc::RuntimeEnvInfo parsed;
  ASSERT_TRUE(parsed.ParseFromString(info.SerializeAsString()));
  EXPECT_TRUE(MessageDifferencer::Equals(info, parsed));
}

}  // namespace
