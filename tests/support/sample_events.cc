#include "support/sample_events.h"

#include <google/protobuf/timestamp.pb.h>

#include <atomic>
#include <utility>

#include "src/ray/protobuf/public/runtime_environment.pb.h"

namespace rayagg::test {
namespace {

namespace events = ray::rpc::events;
namespace rpc = ray::rpc;

// The payload builders below are copied from
// tests/unit/proto/proto_roundtrip_test.cc, which proves (by a reflection
// walk) that together they set every field reachable from AddEventsRequest.

void SetTs(google::protobuf::Timestamp* ts, int64_t seconds) {
  ts->set_seconds(seconds);
  ts->set_nanos(123456789);
}

// ---- ray.rpc (common.proto, profile_events.proto) ----

// variant 0: python, 1: java, 2: cpp.
void FillFunctionDescriptor(rpc::FunctionDescriptor* fd, int variant) {
  switch (variant) {
    case 0: {
      auto* py = fd->mutable_python_function_descriptor();
      py->set_module_name("my_module");
      py->set_class_name("MyClass");
      py->set_function_name("my_func");
      py->set_function_hash("abc123");
      break;
    }
    case 1: {
      auto* java = fd->mutable_java_function_descriptor();
      java->set_class_name("io.ray.Foo");
      java->set_function_name("bar");
      java->set_signature("(I)V");
      break;
    }
    default: {
      auto* cpp = fd->mutable_cpp_function_descriptor();
      cpp->set_function_name("Plus");
      cpp->set_caller("PlusCaller");
      cpp->set_class_name("Counter");
      break;
    }
  }
}

void FillFallbackStrategy(rpc::FallbackStrategy* strategy) {
  auto* constraint = strategy->add_options()->mutable_label_selector()->add_label_constraints();
  constraint->set_label_key("region");
  constraint->set_operator_(rpc::LABEL_OPERATOR_NOT_IN);
  constraint->add_label_values("us-east-1");
  constraint->add_label_values("us-west-2");
}

void FillActorDiedErrorContext(rpc::ActorDiedErrorContext* ctx) {
  ctx->set_error_message("actor died");
  ctx->set_owner_id("owner-id");
  ctx->set_owner_ip_address("10.0.0.1");
  ctx->set_node_ip_address("10.0.0.2");
  ctx->set_pid(4242);
  ctx->set_name("my_actor");
  ctx->set_ray_namespace("ns");
  ctx->set_class_name("Counter");
  ctx->set_actor_id("actor-id");
  ctx->set_never_started(true);
  ctx->mutable_node_death_info()->set_reason(rpc::NodeDeathInfo::AUTOSCALER_DRAIN_PREEMPTED);
  ctx->mutable_node_death_info()->set_reason_message("preempted");
  ctx->set_reason(rpc::ActorDiedErrorContext::RAY_KILL);
}

// variant selects the oneof member (0-4, in field order).
void FillActorDeathCause(rpc::ActorDeathCause* cause, int variant) {
  switch (variant) {
    case 0: {
      auto* exception = cause->mutable_creation_task_failure_context();
      exception->set_language(rpc::JAVA);
      exception->set_serialized_exception(std::string("\x00\x01\x02", 3));
      exception->set_formatted_exception_string("Traceback ...");
      break;
    }
    case 1:
      cause->mutable_runtime_env_failed_context()->set_error_message("pip failed");
      break;
    case 2:
      FillActorDiedErrorContext(cause->mutable_actor_died_error_context());
      break;
    case 3:
      cause->mutable_actor_unschedulable_context()->set_error_message("infeasible");
      break;
    default:
      cause->mutable_oom_context()->set_error_message("oom");
      cause->mutable_oom_context()->set_fail_immediately(true);
      break;
  }
}

// variant selects the oneof member of RayErrorInfo (0-2, in field order).
void FillRayErrorInfo(rpc::RayErrorInfo* info, int variant) {
  switch (variant) {
    case 0:
      FillActorDeathCause(info->mutable_actor_died_error(), 2);
      break;
    case 1:
      info->mutable_runtime_env_setup_failed_error()->set_error_message("setup failed");
      break;
    default:
      info->mutable_actor_unavailable_error()->set_actor_id("unavailable-actor");
      break;
  }
  info->set_error_message("task failed");
  info->set_error_type(rpc::OBJECT_UNRECONSTRUCTABLE_BORROWED);
}

// ---- Payloads ----

void FillTaskDefinition(events::TaskDefinitionEvent* e, int descriptor_variant) {
  e->set_task_id("task-id");
  e->set_task_attempt(2);
  e->set_task_type(rpc::ACTOR_CREATION_TASK);
  e->set_language(rpc::CPP);
  FillFunctionDescriptor(e->mutable_task_func(), descriptor_variant);
  e->set_task_name("my_task");
  (*e->mutable_required_resources())["CPU"] = 1.5;
  (*e->mutable_required_resources())["GPU"] = 0.25;
  e->set_job_id("job");
  e->set_parent_task_id("parent");
  e->set_placement_group_id("pg");
  (*e->mutable_ref_ids())["ref"] = std::string("\xff\x00", 2);
  e->set_serialized_runtime_env("{\"pip\":[]}");
  e->set_call_site("driver.py:10");
  (*e->mutable_label_selector())["zone"] = "a";
  FillFallbackStrategy(e->mutable_fallback_strategy());
  e->set_is_detached_actor(true);
}

void FillActorTaskDefinition(events::ActorTaskDefinitionEvent* e) {
  e->set_task_id("actor-task-id");
  e->set_task_attempt(3);
  e->set_language(rpc::JAVA);
  FillFunctionDescriptor(e->mutable_actor_func(), 1);
  e->set_actor_task_name("Counter.incr");
  (*e->mutable_required_resources())["memory"] = 1024.0;
  e->set_job_id("job");
  e->set_actor_id("actor");
  e->set_parent_task_id("parent");
  e->set_placement_group_id("pg");
  (*e->mutable_ref_ids())["r1"] = "obj";
  e->set_serialized_runtime_env("{}");
  e->set_call_site("actor.py:3");
  (*e->mutable_label_selector())["gpu"] = "a100";
  FillFallbackStrategy(e->mutable_fallback_strategy());
  e->set_is_detached_actor(true);
}

void FillTaskLifecycle(events::TaskLifecycleEvent* e, int error_variant) {
  e->set_task_id("task-id");
  e->set_task_attempt(1);
  auto* running = e->add_state_transitions();
  running->set_state(rpc::RUNNING);
  SetTs(running->mutable_timestamp(), 100);
  auto* failed = e->add_state_transitions();
  failed->set_state(rpc::FAILED);
  SetTs(failed->mutable_timestamp(), 101);
  FillRayErrorInfo(e->mutable_ray_error_info(), error_variant);
  e->set_node_id("node");
  e->set_worker_id("worker");
  e->set_worker_pid(777);
  e->set_job_id("job");
  e->set_is_debugger_paused(true);
  e->set_actor_repr_name("Counter(1)");
  auto* log = e->mutable_task_log_info();
  log->set_stdout_file("worker.out");
  log->set_stderr_file("worker.err");
  log->set_stdout_start(1);
  log->set_stdout_end(2);
  log->set_stderr_start(3);
  log->set_stderr_end(4);
}

void FillTaskProfile(events::TaskProfileEvents* e) {
  e->set_task_id("task-id");
  e->set_attempt_number(5);
  e->set_job_id("job");
  auto* profile = e->mutable_profile_events();
  profile->set_component_type("worker");
  profile->set_component_id("worker-id");
  profile->set_node_ip_address("10.0.0.3");
  auto* entry = profile->add_events();
  entry->set_start_time(1000);
  entry->set_end_time(2000);
  entry->set_extra_data("{\"k\":1}");
  entry->set_event_name("task:execute");
}

void FillDriverJobDefinition(events::DriverJobDefinitionEvent* e) {
  e->set_job_id("job");
  e->set_driver_pid(31337);
  e->set_driver_node_id("node");
  e->set_entrypoint("python main.py");
  e->mutable_config()->set_serialized_runtime_env("{}");
  (*e->mutable_config()->mutable_metadata())["owner"] = "me";
}

void FillDriverJobLifecycle(events::DriverJobLifecycleEvent* e) {
  e->set_job_id("job");
  auto* t = e->add_state_transitions();
  t->set_state(events::DriverJobLifecycleEvent::FINISHED);
  SetTs(t->mutable_timestamp(), 200);
  t->set_message("done");
  t->set_error_type("JobFailed");
  t->set_exit_code(3);
}

void FillNodeDefinition(events::NodeDefinitionEvent* e) {
  e->set_node_id("node");
  e->set_node_ip_address("10.0.0.4");
  (*e->mutable_labels())["ray.io/node-group"] = "head";
  SetTs(e->mutable_start_timestamp(), 300);
  e->set_hostname("host-1");
  e->set_node_name("node-1");
  e->set_instance_id("i-123");
  e->set_instance_type_name("m5.large");
}

void FillNodeLifecycle(events::NodeLifecycleEvent* e) {
  e->set_node_id("node");
  auto* t = e->add_state_transitions();
  t->set_state(events::NodeLifecycleEvent::DEAD);
  SetTs(t->mutable_timestamp(), 400);
  (*t->mutable_resources())["CPU"] = 8.0;
  t->mutable_death_info()->set_reason(
      events::NodeLifecycleEvent::DeathInfo::UNEXPECTED_TERMINATION);
  t->mutable_death_info()->set_reason_message("heartbeat timeout");
  t->set_alive_sub_state(events::NodeLifecycleEvent::DRAINING);
}

void FillActorDefinition(events::ActorDefinitionEvent* e) {
  e->set_actor_id("actor");
  e->set_job_id("job");
  e->set_is_detached(true);
  e->set_name("counter");
  e->set_ray_namespace("ns");
  e->set_serialized_runtime_env("{}");
  e->set_class_name("Counter");
  (*e->mutable_required_resources())["CPU"] = 2.0;
  e->set_placement_group_id("pg");
  (*e->mutable_label_selector())["zone"] = "b";
  e->set_call_site("main.py:5");
  e->set_parent_id("parent");
  (*e->mutable_ref_ids())["x"] = "y";
}

void FillActorLifecycle(events::ActorLifecycleEvent* e) {
  e->set_actor_id("actor");
  // One transition per ActorDeathCause oneof member.
  for (int variant = 0; variant < 5; ++variant) {
    auto* t = e->add_state_transitions();
    t->set_state(events::ActorLifecycleEvent::DEAD);
    SetTs(t->mutable_timestamp(), 500 + variant);
    t->set_node_id("node");
    t->set_worker_id("worker");
    t->set_repr_name("Counter()");
    FillActorDeathCause(t->mutable_death_cause(), variant);
    t->set_pid(99);
    t->set_port(10001);
    t->set_restart_reason(events::ActorLifecycleEvent::NODE_PREEMPTION);
  }
}

void FillPlacementGroupDefinition(events::PlacementGroupDefinitionEvent* e) {
  e->set_placement_group_id("pg");
  e->set_name("my_pg");
  e->set_ray_namespace("ns");
  e->set_strategy(rpc::STRICT_SPREAD);
  e->set_is_detached(true);
  e->set_creator_job_id("job");
  e->set_creator_actor_id("actor");
  auto* bundle = e->add_bundles();
  bundle->set_bundle_index(1);
  (*bundle->mutable_unit_resources())["CPU"] = 4.0;
  (*bundle->mutable_label_selector())["zone"] = "c";
  e->set_soft_target_node_id("node");
  e->set_creation_request_received_ns(1234567890123);
}

void FillPlacementGroupLifecycle(events::PlacementGroupLifecycleEvent* e) {
  e->set_placement_group_id("pg");
  auto* t = e->add_state_transitions();
  t->set_state(events::PlacementGroupLifecycleEvent::PREPARED);
  SetTs(t->mutable_timestamp(), 600);
  t->set_scheduling_state(events::PlacementGroupLifecycleEvent::FAILED_TO_COMMIT_RESOURCES);
  t->set_scheduling_attempt(7);
  t->set_highest_retry_delay_ms(250.5);
  auto* placement = t->add_bundle_placements();
  placement->set_bundle_index(1);
  placement->set_node_id("node");
}

void FillSubmissionJobDefinition(events::SubmissionJobDefinitionEvent* e) {
  e->set_submission_id("raysubmit_abc");
  e->set_entrypoint("python job.py");
  e->mutable_config()->set_serialized_runtime_env("{}");
  (*e->mutable_config()->mutable_metadata())["team"] = "ml";
  auto* resources = e->mutable_entrypoint_resources();
  resources->set_num_cpus(1.0);
  resources->set_num_gpus(0.5);
  resources->set_memory(1 << 30);
  (*resources->mutable_custom_resources())["TPU"] = 4.0;
}

void FillSubmissionJobLifecycle(events::SubmissionJobLifecycleEvent* e) {
  e->set_submission_id("raysubmit_abc");
  auto* t = e->add_state_transitions();
  t->set_state(events::SubmissionJobLifecycleEvent::FAILED);
  SetTs(t->mutable_timestamp(), 700);
  t->set_message("failed");
  t->set_error_type("ENTRYPOINT_COMMAND_ERROR");
  t->set_driver_node_id("node");
  t->set_driver_agent_http_address("http://10.0.0.5:52365");
  t->set_driver_exit_code(1);
}

void FillPlatform(events::PlatformEvent* e) {
  auto* source = e->mutable_source();
  source->set_platform(events::Source::KUBERNETES);
  source->set_component("kuberay-operator");
  (*source->mutable_metadata())["cluster"] = "raycluster";
  e->set_object_kind("Pod");
  e->set_object_name("head-0");
  e->set_message("Back-off restarting");
  e->set_reason("BackOff");
  (*e->mutable_custom_fields())["count"] = "3";
}

void FillWorkerLifecycle(events::WorkerLifecycleEvent* e) {
  e->set_worker_id("worker");
  e->set_job_id("job");
  auto* t = e->add_state_transitions();
  t->set_state(events::WorkerLifecycleEvent::DEAD);
  SetTs(t->mutable_timestamp(), 800);
  t->set_worker_launch_time_ms(1);
  t->set_worker_launched_time_ms(2);
  t->set_start_time_ms(3);
  t->set_end_time_ms(4);
  t->mutable_death_info()->set_exit_type(rpc::NODE_OUT_OF_MEMORY);
  t->mutable_death_info()->set_exit_detail("killed by OOM killer");
  t->mutable_death_info()->set_memory_used_bytes(1 << 20);
}

void FillWorkerDefinition(events::WorkerDefinitionEvent* e) {
  e->set_worker_id("worker");
  e->set_node_id("node");
  e->set_worker_type(rpc::SPILL_WORKER);
  e->set_pid(555);
}

void FillAutoscalerConfigDefinition(events::AutoscalerConfigDefinitionEvent* e) {
  e->set_autoscaler_version(events::AutoscalerConfigDefinitionEvent::V2);
  e->set_cloud_provider_type("aws");
  e->set_max_workers(10);
  auto* node_type = e->add_available_node_types();
  node_type->set_node_type_name("gpu-worker");
  node_type->set_min_worker_nodes(1);
  node_type->set_max_worker_nodes(5);
  node_type->set_idle_timeout_s(-1);
  (*node_type->mutable_resources())["GPU"] = 8.0;
  (*node_type->mutable_labels())["accelerator"] = "a100";
  e->set_upscaling_speed(1.5);
}

void FillResourceBundle(events::AutoscalerScalingDecisionEvent::ResourceBundle* bundle) {
  (*bundle->mutable_resources())["CPU"] = 2.0;
  auto* constraint = bundle->add_label_constraints();
  constraint->set_label_key("zone");
  constraint->set_operator_("NOT_IN");
  constraint->add_values("z1");
  bundle->set_count(3);
}

void FillAutoscalerScalingDecision(events::AutoscalerScalingDecisionEvent* e) {
  auto* launch = e->add_launch_actions();
  launch->set_instance_type("m5.large");
  launch->set_count(2);
  auto* terminate = e->add_terminate_actions();
  terminate->set_cause(events::AutoscalerScalingDecisionEvent::TerminateAction::OUTDATED);
  terminate->set_instance_type("m5.xlarge");
  terminate->set_count(1);
  (*e->mutable_cluster_resources_after())["CPU"] = 16.0;
  FillResourceBundle(e->add_infeasible_resource_requests());
  auto* gang = e->add_infeasible_gang_resource_requests();
  FillResourceBundle(gang->add_bundles());
  gang->set_details("pg:abc");
  auto* request = e->add_infeasible_cluster_resource_constraints()->add_resource_requests();
  FillResourceBundle(request->mutable_request());
  request->set_count(4);
}

void FillAutoscalerNodeProvisioning(events::AutoscalerNodeProvisioningEvent* e) {
  auto* requested = e->add_requested_instances();
  requested->set_instance_type_name("m5.large");
  requested->set_ray_node_type_name("cpu-worker");
  requested->set_count(2);
  SetTs(requested->mutable_request_ts(), 900);
  auto* allocated = e->add_allocated_instances();
  allocated->set_instance_type_name("m5.large");
  allocated->set_ray_node_type_name("cpu-worker");
  allocated->set_instance_id("i-456");
  allocated->set_ip_address("10.0.0.6");
  auto* failed = e->add_failed_instances();
  failed->set_instance_type_name("p4d.24xlarge");
  failed->set_ray_node_type_name("gpu-worker");
  failed->set_count(1);
  failed->set_reason("InsufficientInstanceCapacity");
  SetTs(failed->mutable_start_ts(), 901);
  SetTs(failed->mutable_failed_ts(), 902);
}

// ---- Envelope ----

// Fills the envelope like proto_roundtrip_test.cc, but with a distinct id.
RayEvent Envelope(RayEvent::EventType type) {
  RayEvent event;
  event.set_event_id(NextEventId());
  event.set_source_type(RayEvent::GCS);
  event.set_event_type(type);
  SetTs(event.mutable_timestamp(), 1700000000 + type);
  event.set_severity(RayEvent::WARNING);
  event.set_message("message");
  event.set_session_name("session_2026-01-01_00-00-00_000000_1");
  event.set_node_id("emitting-node");
  event.set_source_hostname("host-1");
  event.set_source_pid(4321);
  return event;
}

// The event of type `type` whose oneof members take their `variant`-th choice
// (task definition: function descriptor; task lifecycle: error info).
RayEvent FullEvent(RayEvent::EventType type, int variant) {
  RayEvent e = Envelope(type);
  switch (type) {
    case RayEvent::TASK_DEFINITION_EVENT:
      FillTaskDefinition(e.mutable_task_definition_event(), variant);
      break;
    case RayEvent::TASK_LIFECYCLE_EVENT:
      FillTaskLifecycle(e.mutable_task_lifecycle_event(), variant);
      break;
    case RayEvent::ACTOR_TASK_DEFINITION_EVENT:
      FillActorTaskDefinition(e.mutable_actor_task_definition_event());
      break;
    case RayEvent::TASK_PROFILE_EVENT:
      FillTaskProfile(e.mutable_task_profile_events());
      break;
    case RayEvent::DRIVER_JOB_DEFINITION_EVENT:
      FillDriverJobDefinition(e.mutable_driver_job_definition_event());
      break;
    case RayEvent::DRIVER_JOB_LIFECYCLE_EVENT:
      FillDriverJobLifecycle(e.mutable_driver_job_lifecycle_event());
      break;
    case RayEvent::NODE_DEFINITION_EVENT:
      FillNodeDefinition(e.mutable_node_definition_event());
      break;
    case RayEvent::NODE_LIFECYCLE_EVENT:
      FillNodeLifecycle(e.mutable_node_lifecycle_event());
      break;
    case RayEvent::ACTOR_DEFINITION_EVENT:
      FillActorDefinition(e.mutable_actor_definition_event());
      break;
    case RayEvent::ACTOR_LIFECYCLE_EVENT:
      FillActorLifecycle(e.mutable_actor_lifecycle_event());
      break;
    case RayEvent::PLACEMENT_GROUP_DEFINITION_EVENT:
      FillPlacementGroupDefinition(e.mutable_placement_group_definition_event());
      break;
    case RayEvent::PLACEMENT_GROUP_LIFECYCLE_EVENT:
      FillPlacementGroupLifecycle(e.mutable_placement_group_lifecycle_event());
      break;
    case RayEvent::SUBMISSION_JOB_DEFINITION_EVENT:
      FillSubmissionJobDefinition(e.mutable_submission_job_definition_event());
      break;
    case RayEvent::SUBMISSION_JOB_LIFECYCLE_EVENT:
      FillSubmissionJobLifecycle(e.mutable_submission_job_lifecycle_event());
      break;
    case RayEvent::PLATFORM_EVENT:
      FillPlatform(e.mutable_platform_event());
      break;
    case RayEvent::WORKER_LIFECYCLE_EVENT:
      FillWorkerLifecycle(e.mutable_worker_lifecycle_event());
      break;
    case RayEvent::WORKER_DEFINITION_EVENT:
      FillWorkerDefinition(e.mutable_worker_definition_event());
      break;
    case RayEvent::AUTOSCALER_CONFIG_DEFINITION_EVENT:
      FillAutoscalerConfigDefinition(e.mutable_autoscaler_config_definition_event());
      break;
    case RayEvent::AUTOSCALER_SCALING_DECISION_EVENT:
      FillAutoscalerScalingDecision(e.mutable_autoscaler_scaling_decision_event());
      break;
    case RayEvent::AUTOSCALER_NODE_PROVISIONING_EVENT:
      FillAutoscalerNodeProvisioning(e.mutable_autoscaler_node_provisioning_event());
      break;
    default:
      break;  // no payload: an envelope only
  }
  return e;
}

constexpr int kFirstEventType = RayEvent::TASK_DEFINITION_EVENT;
constexpr int kLastEventType = RayEvent::AUTOSCALER_NODE_PROVISIONING_EVENT;

}  // namespace

std::string NextEventId() {
  static std::atomic<uint64_t> next{1};
  const uint64_t n = next.fetch_add(1, std::memory_order_relaxed);
  std::string id = "rayagg-test-event-id";  // 20 bytes
  for (int shift = 56; shift >= 0; shift -= 8) id.push_back(static_cast<char>((n >> shift) & 0xff));
  return id;
}

std::vector<RayEvent> OneEventOfEveryType() {
  std::vector<RayEvent> result;
  for (int type = kFirstEventType; type <= kLastEventType; ++type) {
    result.push_back(FullEvent(static_cast<RayEvent::EventType>(type), 0));
  }
  return result;
}

std::vector<RayEvent> MinimalEventOfEveryType() {
  std::vector<RayEvent> result;
  for (int type = kFirstEventType; type <= kLastEventType; ++type) {
    RayEvent event;
    event.set_event_id(NextEventId());
    event.set_event_type(static_cast<RayEvent::EventType>(type));
    // RayEvent field numbers of the payloads: types 1-10 are fields 8-17,
    // types 11-20 fields 19-28 (18 is node_id).
    const int payload_field = type <= 10 ? type + 7 : type + 8;
    const auto* field = RayEvent::descriptor()->FindFieldByNumber(payload_field);
    event.GetReflection()->MutableMessage(&event, field);  // present, empty
    result.push_back(std::move(event));
  }
  return result;
}

std::vector<RayEvent> EventsSettingEveryField() {
  std::vector<RayEvent> result = OneEventOfEveryType();
  for (int variant = 1; variant < 3; ++variant) {
    result.push_back(FullEvent(RayEvent::TASK_DEFINITION_EVENT, variant));
    result.push_back(FullEvent(RayEvent::TASK_LIFECYCLE_EVENT, variant));
  }
  return result;
}

RayEvent TaskLifecycleEvent(std::string task_id, int attempt, rpc::TaskStatus state) {
  RayEvent event;
  event.set_event_id(NextEventId());
  event.set_source_type(RayEvent::CORE_WORKER);
  event.set_event_type(RayEvent::TASK_LIFECYCLE_EVENT);
  SetTs(event.mutable_timestamp(), 1700000100);
  event.set_severity(RayEvent::INFO);
  event.set_session_name("session_test");
  event.set_node_id("node");
  auto* payload = event.mutable_task_lifecycle_event();
  payload->set_task_id(std::move(task_id));
  payload->set_task_attempt(attempt);
  payload->set_job_id("job");
  auto* transition = payload->add_state_transitions();
  transition->set_state(state);
  SetTs(transition->mutable_timestamp(), 1700000100);
  return event;
}

RayEvent TaskDefinitionEvent(std::string task_id, int attempt) {
  RayEvent event;
  event.set_event_id(NextEventId());
  event.set_source_type(RayEvent::CORE_WORKER);
  event.set_event_type(RayEvent::TASK_DEFINITION_EVENT);
  SetTs(event.mutable_timestamp(), 1700000100);
  event.set_severity(RayEvent::INFO);
  event.set_session_name("session_test");
  event.set_node_id("node");
  auto* payload = event.mutable_task_definition_event();
  payload->set_task_id(std::move(task_id));
  payload->set_task_attempt(attempt);
  payload->set_task_type(rpc::NORMAL_TASK);
  payload->set_language(rpc::PYTHON);
  payload->set_task_name("f");
  payload->set_job_id("job");
  return event;
}

std::vector<RayEvent> TaskLifecycleEvents(size_t count, std::string_view prefix) {
  std::vector<RayEvent> result;
  result.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    result.push_back(TaskLifecycleEvent(std::string(prefix) + "-" + std::to_string(i), 0));
  }
  return result;
}

AddEventsRequest RequestOf(std::span<const RayEvent> events) {
  AddEventsRequest request;
  auto* data = request.mutable_events_data();
  for (const RayEvent& event : events) *data->add_events() = event;
  return request;
}

void AddDroppedTaskAttempts(AddEventsRequest& request, size_t count) {
  auto* metadata = request.mutable_events_data()->mutable_task_events_metadata();
  for (size_t i = 0; i < count; ++i) {
    auto* attempt = metadata->add_dropped_task_attempts();
    attempt->set_task_id("dropped-task-" + std::to_string(i));
    attempt->set_attempt_number(static_cast<int32_t>(i));
  }
}

}  // namespace rayagg::test
