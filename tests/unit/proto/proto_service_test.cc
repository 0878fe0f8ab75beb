// Schema-level checks of the Ray-compatible protos: the gRPC method path of
// EventAggregatorService (ray-wire-spec.md §2.1), the RayEvent.EventType values (§4.3), and
// the JSON (camelCase) names of the RayEvent fields (§4.1, §7).

#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"
#include "src/ray/protobuf/events_event_aggregator_service.pb.h"
#include "src/ray/protobuf/public/events_actor_task_definition_event.pb.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "src/ray/protobuf/public/events_task_definition_event.pb.h"

namespace {

namespace events = ray::rpc::events;
using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;

TEST(ProtoServiceTest, AddEventsMethodPath) {
  EXPECT_STREQ(events::EventAggregatorService::service_full_name(),
               "ray.rpc.events.EventAggregatorService");
  const auto* service =
      DescriptorPool::generated_pool()->FindServiceByName("ray.rpc.events.EventAggregatorService");
  ASSERT_NE(service, nullptr);
  EXPECT_EQ(service->file()->name(), "src/ray/protobuf/events_event_aggregator_service.proto");
  ASSERT_EQ(service->method_count(), 1);
  const auto* method = service->method(0);
  EXPECT_EQ(method->full_name(), "ray.rpc.events.EventAggregatorService.AddEvents");
  EXPECT_EQ("/" + service->full_name() + "/" + method->name(),
            "/ray.rpc.events.EventAggregatorService/AddEvents");
  EXPECT_EQ(method->input_type(), events::AddEventsRequest::descriptor());
  EXPECT_EQ(method->output_type(), events::AddEventsReply::descriptor());
  EXPECT_FALSE(method->client_streaming());
  EXPECT_FALSE(method->server_streaming());
}

TEST(ProtoServiceTest, DescriptorFileNamesMirrorUpstream) {
  EXPECT_EQ(events::RayEvent::descriptor()->file()->name(),
            "src/ray/protobuf/public/events_base_event.proto");
  EXPECT_EQ(events::RayEvent::descriptor()->file()->package(), "ray.rpc.events");
  EXPECT_EQ(events::TaskEventsMetadata::descriptor()->FindFieldByNumber(1), nullptr);
  ASSERT_NE(events::TaskEventsMetadata::descriptor()->FindFieldByNumber(2), nullptr);
  EXPECT_EQ(events::TaskEventsMetadata::descriptor()->FindFieldByNumber(2)->name(),
            "dropped_task_attempts");
}

TEST(ProtoServiceTest, RuntimeEnvInfoIsReservedInTaskDefinitions) {
  const Descriptor* task = events::TaskDefinitionEvent::descriptor();
  EXPECT_EQ(task->FindFieldByNumber(8), nullptr);
  EXPECT_TRUE(task->IsReservedNumber(8));
  EXPECT_TRUE(task->IsReservedName("runtime_env_info"));
  const Descriptor* actor_task = events::ActorTaskDefinitionEvent::descriptor();
  EXPECT_EQ(actor_task->FindFieldByNumber(7), nullptr);
  EXPECT_TRUE(actor_task->IsReservedNumber(7));
  EXPECT_TRUE(actor_task->IsReservedName("runtime_env_info"));
}

TEST(ProtoServiceTest, EventTypeValuesAreExactlyTheSpecs) {
  const std::vector<std::string> expected = {
      "EVENT_TYPE_UNSPECIFIED",
      "TASK_DEFINITION_EVENT",
      "TASK_LIFECYCLE_EVENT",
      "ACTOR_TASK_DEFINITION_EVENT",
      "TASK_PROFILE_EVENT",
      "DRIVER_JOB_DEFINITION_EVENT",
      "DRIVER_JOB_LIFECYCLE_EVENT",
      "NODE_DEFINITION_EVENT",
      "NODE_LIFECYCLE_EVENT",
      "ACTOR_DEFINITION_EVENT",
      "ACTOR_LIFECYCLE_EVENT",
      "PLACEMENT_GROUP_DEFINITION_EVENT",
      "PLACEMENT_GROUP_LIFECYCLE_EVENT",
      "SUBMISSION_JOB_DEFINITION_EVENT",
      "SUBMISSION_JOB_LIFECYCLE_EVENT",
      "PLATFORM_EVENT",
      "WORKER_LIFECYCLE_EVENT",
      "WORKER_DEFINITION_EVENT",
      "AUTOSCALER_CONFIG_DEFINITION_EVENT",
      "AUTOSCALER_SCALING_DECISION_EVENT",
      "AUTOSCALER_NODE_PROVISIONING_EVENT",
  };
  const auto* type_enum = events::RayEvent::EventType_descriptor();
  ASSERT_EQ(type_enum->value_count(), static_cast<int>(expected.size()));
  for (int number = 0; number < static_cast<int>(expected.size()); ++number) {
    const auto* value = type_enum->FindValueByNumber(number);
    ASSERT_NE(value, nullptr) << number;
    EXPECT_EQ(value->name(), expected[number]);
  }
  EXPECT_EQ(type_enum->FindValueByNumber(21), nullptr);
}

struct PayloadField {
  const char* event_type;
  int field_number;
  const char* name;
  const char* json_name;
};

// §4.3 (payload field numbers) and §7 (JSON keys), newest names.
constexpr PayloadField kPayloads[] = {
    {"TASK_DEFINITION_EVENT", 8, "task_definition_event", "taskDefinitionEvent"},
    {"TASK_LIFECYCLE_EVENT", 9, "task_lifecycle_event", "taskLifecycleEvent"},
    {"ACTOR_TASK_DEFINITION_EVENT", 10, "actor_task_definition_event", "actorTaskDefinitionEvent"},
    {"TASK_PROFILE_EVENT", 11, "task_profile_events", "taskProfileEvents"},
    {"DRIVER_JOB_DEFINITION_EVENT", 12, "driver_job_definition_event", "driverJobDefinitionEvent"},
    {"DRIVER_JOB_LIFECYCLE_EVENT", 13, "driver_job_lifecycle_event", "driverJobLifecycleEvent"},
    {"NODE_DEFINITION_EVENT", 14, "node_definition_event", "nodeDefinitionEvent"},
    {"NODE_LIFECYCLE_EVENT", 15, "node_lifecycle_event", "nodeLifecycleEvent"},
    {"ACTOR_DEFINITION_EVENT", 16, "actor_definition_event", "actorDefinitionEvent"},
    {"ACTOR_LIFECYCLE_EVENT", 17, "actor_lifecycle_event", "actorLifecycleEvent"},
    {"PLACEMENT_GROUP_DEFINITION_EVENT", 19, "placement_group_definition_event",
     "placementGroupDefinitionEvent"},
    {"PLACEMENT_GROUP_LIFECYCLE_EVENT", 20, "placement_group_lifecycle_event",
     "placementGroupLifecycleEvent"},
    {"SUBMISSION_JOB_DEFINITION_EVENT", 21, "submission_job_definition_event",
     "submissionJobDefinitionEvent"},
    {"SUBMISSION_JOB_LIFECYCLE_EVENT", 22, "submission_job_lifecycle_event",
     "submissionJobLifecycleEvent"},
    {"PLATFORM_EVENT", 23, "platform_event", "platformEvent"},
    {"WORKER_LIFECYCLE_EVENT", 24, "worker_lifecycle_event", "workerLifecycleEvent"},
    {"WORKER_DEFINITION_EVENT", 25, "worker_definition_event", "workerDefinitionEvent"},
    {"AUTOSCALER_CONFIG_DEFINITION_EVENT", 26, "autoscaler_config_definition_event",
     "autoscalerConfigDefinitionEvent"},
    {"AUTOSCALER_SCALING_DECISION_EVENT", 27, "autoscaler_scaling_decision_event",
     "autoscalerScalingDecisionEvent"},
    {"AUTOSCALER_NODE_PROVISIONING_EVENT", 28, "autoscaler_node_provisioning_event",
     "autoscalerNodeProvisioningEvent"},
};

TEST(ProtoServiceTest, PayloadFieldsMatchTheSection7Table) {
  const Descriptor* event = events::RayEvent::descriptor();
  const auto* type_enum = events::RayEvent::EventType_descriptor();
  for (const PayloadField& payload : kPayloads) {
    SCOPED_TRACE(payload.event_type);
    EXPECT_NE(type_enum->FindValueByName(payload.event_type), nullptr);
    const FieldDescriptor* field = event->FindFieldByNumber(payload.field_number);
    ASSERT_NE(field, nullptr);
    EXPECT_EQ(field->name(), payload.name);
    EXPECT_EQ(field->json_name(), payload.json_name);
    EXPECT_EQ(field->type(), FieldDescriptor::TYPE_MESSAGE);
    EXPECT_FALSE(field->is_repeated());
    EXPECT_EQ(field->containing_oneof(), nullptr);
  }
}

TEST(ProtoServiceTest, EnvelopeFieldsMatchTheSection4Table) {
  const std::vector<std::pair<int, std::string>> envelope = {
      {1, "eventId"},         {2, "sourceType"}, {3, "eventType"},   {4, "timestamp"},
      {5, "severity"},        {6, "message"},    {7, "sessionName"}, {18, "nodeId"},
      {29, "sourceHostname"}, {30, "sourcePid"},
  };
  const Descriptor* event = events::RayEvent::descriptor();
  EXPECT_EQ(event->field_count(), 30);
  for (const auto& [number, json_name] : envelope) {
    const FieldDescriptor* field = event->FindFieldByNumber(number);
    ASSERT_NE(field, nullptr) << number;
    EXPECT_EQ(field->json_name(), json_name) << number;
  }
  for (int number = 1; number <= 30; ++number) {
    EXPECT_NE(event->FindFieldByNumber(number), nullptr) << number;
  }
}

}  // namespace
