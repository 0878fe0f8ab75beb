#include "demo/sim_events.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <string_view>

#include "demo/sim_expectation.h"
#include "demo/sim_random.h"

namespace rayagg::demo {
namespace {

using ray::rpc::events::RayEvent;

enum EventTag : uint64_t { kTaskEventId = 101, kClusterEventId, kFunctionHash, kObjectRef };

void SetTime(google::protobuf::Timestamp* timestamp, int64_t ns) {
  timestamp->set_seconds(ns / kSecond);
  timestamp->set_nanos(static_cast<int32_t>(ns % kSecond));
}

void Header(const SimLayout& layout, RayEvent::SourceType source, RayEvent::EventType type,
            int64_t at, size_t node, std::string event_id, RayEvent& event) {
  event.set_event_id(std::move(event_id));
  event.set_source_type(source);
  event.set_event_type(type);
  SetTime(event.mutable_timestamp(), layout.options().epoch_ns + at);
  event.set_severity(RayEvent::INFO);
  event.set_session_name(layout.session_name());
  event.set_node_id(layout.nodes()[node].id);
}

void AddTransition(ray::rpc::events::TaskLifecycleEvent* lifecycle, const SimLayout& layout,
                   ray::rpc::TaskStatus state, int64_t at) {
  auto* transition = lifecycle->add_state_transitions();
  transition->set_state(state);
  SetTime(transition->mutable_timestamp(), layout.options().epoch_ns + at);
}

void FillResources(const TaskPlan& plan, google::protobuf::Map<std::string, double>& resources) {
  if (plan.kind == TaskKind::kNormal) {
    const Function& f = Functions()[plan.function];
    resources["CPU"] = f.cpus;
    if (f.gpus > 0) resources["GPU"] = f.gpus;
    resources["memory"] = f.memory_gib * 1024 * 1024 * 1024;
  } else {
    const ActorClass& c = ActorClasses()[plan.function];
    if (plan.kind == TaskKind::kActorCreation) resources["CPU"] = c.cpus;
  }
}

void BuildDefinition(const SimLayout& layout, const TaskPlan& plan, int attempt, RayEvent& event) {
  const uint64_t seed = layout.options().seed;
  const SimJob& job = layout.jobs()[plan.job];
  const std::string call_site =
      plan.kind == TaskKind::kNormal
          ? "pipeline/driver.py:" + std::to_string(40 + plan.function * 7) + " (run_stage)"
          : "train.py:" + std::to_string(64 + plan.function) + " (main)";
  if (plan.kind == TaskKind::kActorTask) {
    const ActorClass& c = ActorClasses()[plan.function];
    event.set_event_type(RayEvent::ACTOR_TASK_DEFINITION_EVENT);
    auto* d = event.mutable_actor_task_definition_event();
    d->set_task_id(layout.TaskId(plan));
    d->set_task_attempt(attempt);
    d->set_language(ray::rpc::PYTHON);
    auto* f = d->mutable_actor_func()->mutable_python_function_descriptor();
    f->set_module_name(c.module);
    f->set_class_name(c.name);
    f->set_function_name(c.method);
    f->set_function_hash(HexId(IdBytes(seed, kFunctionHash, 100 + plan.function, 16)));
    d->set_actor_task_name(layout.TaskName(plan));
    d->set_job_id(job.id);
    d->set_actor_id(layout.actors()[static_cast<size_t>(plan.actor)].id);
    d->set_parent_task_id(job.driver_task_id);
    d->set_serialized_runtime_env(layout.RuntimeEnv(plan));
    d->set_call_site(call_site);
    (*d->mutable_ref_ids())["arg_0"] = IdBytes(seed, kObjectRef, plan.index, 28);
    return;
  }
  event.set_event_type(RayEvent::TASK_DEFINITION_EVENT);
  auto* d = event.mutable_task_definition_event();
  d->set_task_id(layout.TaskId(plan));
  d->set_task_attempt(attempt);
  d->set_task_type(plan.kind == TaskKind::kActorCreation ? ray::rpc::ACTOR_CREATION_TASK
                                                         : ray::rpc::NORMAL_TASK);
  d->set_language(ray::rpc::PYTHON);
  auto* f = d->mutable_task_func()->mutable_python_function_descriptor();
  if (plan.kind == TaskKind::kActorCreation) {
    const ActorClass& c = ActorClasses()[plan.function];
    f->set_module_name(c.module);
    f->set_class_name(c.name);
    f->set_function_name("__init__");
  } else {
    f->set_module_name(Functions()[plan.function].module);
    f->set_function_name(Functions()[plan.function].name);
  }
  f->set_function_hash(HexId(IdBytes(seed, kFunctionHash, plan.function, 16)));
  d->set_task_name(layout.TaskName(plan));
  FillResources(plan, *d->mutable_required_resources());
  d->set_job_id(job.id);
  d->set_parent_task_id(job.driver_task_id);
  d->set_serialized_runtime_env(layout.RuntimeEnv(plan));
  d->set_call_site(call_site);
  if (plan.kind == TaskKind::kNormal) {
    (*d->mutable_ref_ids())["arg_0"] = IdBytes(seed, kObjectRef, plan.index, 28);
    if (Functions()[plan.function].gpus > 0) {
      (*d->mutable_label_selector())["ray.io/accelerator-type"] = "A10G";
    }
  }
}

void BuildLifecycle(const SimLayout& layout, const TaskPlan& plan, int attempt, int stage,
                    RayEvent& event) {
  const AttemptPlan& p = plan.attempts[static_cast<size_t>(attempt)];
  const SimNode& node = layout.nodes()[p.node];
  event.set_event_type(RayEvent::TASK_LIFECYCLE_EVENT);
  auto* l = event.mutable_task_lifecycle_event();
  l->set_task_id(layout.TaskId(plan));
  l->set_task_attempt(attempt);
  l->set_job_id(layout.jobs()[plan.job].id);
  switch (stage) {
    case 1:
      AddTransition(l, layout, ray::rpc::PENDING_ARGS_AVAIL, p.created);
      if (p.args_ready != kNever && plan.kind != TaskKind::kActorTask) {
        AddTransition(l, layout, ray::rpc::PENDING_NODE_ASSIGNMENT, p.args_ready);
      }
      return;
    case 2:
      AddTransition(l, layout, ray::rpc::SUBMITTED_TO_WORKER, p.submitted);
      return;
    case 3: {
      AddTransition(l, layout, ray::rpc::RUNNING, p.running);
      const std::string worker = layout.WorkerId(p.node, p.worker_slot);
      const int32_t pid = layout.WorkerPid(p.node, p.worker_slot);
      l->set_node_id(node.id);
      l->set_worker_id(worker);
      l->set_worker_pid(pid);
      if (plan.actor >= 0) {
        l->set_actor_repr_name(std::string(ActorClasses()[plan.function].name) + "(" +
                               layout.actors()[static_cast<size_t>(plan.actor)].name + ")");
      }
      auto* logs = l->mutable_task_log_info();
      logs->set_stdout_file("worker-" + HexId(worker) + "-" + HexId(layout.jobs()[plan.job].id) +
                            "-" + std::to_string(pid) + ".out");
      logs->set_stderr_file("worker-" + HexId(worker) + "-" + HexId(layout.jobs()[plan.job].id) +
                            "-" + std::to_string(pid) + ".err");
      logs->set_stdout_start(static_cast<int64_t>(plan.index % 100'000) * 64);
      logs->set_stderr_start(0);
      return;
    }
    default:
      break;
  }
  AddTransition(l, layout, p.failure == Failure::kNone ? ray::rpc::FINISHED : ray::rpc::FAILED,
                p.ended);
  if (p.failure == Failure::kNone) return;
  FailureContext context;
  context.function = plan.kind == TaskKind::kActorTask ? ActorClasses()[plan.function].name
                                                       : layout.FunctionName(plan);
  context.token = layout.Token(plan, attempt);
  context.pid = layout.WorkerPid(p.node, p.worker_slot);
  context.node_ip = node.ip;
  context.task_id_hex = HexId(layout.TaskId(plan));
  context.worker_id_hex = HexId(layout.WorkerId(p.node, p.worker_slot));
  context.node_id_hex = HexId(node.id);
  context.actor_killed =
      plan.actor >= 0 && layout.actors()[static_cast<size_t>(plan.actor)].killed <= p.ended;
  auto* error = l->mutable_ray_error_info();
  error->set_error_type(static_cast<ray::rpc::ErrorType>(ErrorTypeOf(p.failure)));
  error->set_error_message(FailureMessage(p.failure, context));
}

}  // namespace

void SerializeDeterministic(const RayEvent& event, std::string& out) {
  out.clear();
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  event.SerializeToCodedStream(&coded);
}

StageSlot StageOf(const SimLayout& layout, const TaskPlan& plan, int attempt, int stage) {
  if (attempt >= plan.attempt_count) return {};
  const AttemptPlan& p = plan.attempts[static_cast<size_t>(attempt)];
  StageSlot slot;
  slot.node = p.owner;
  switch (stage) {
    case 0:
      slot.at = p.created;
      break;
    case 1:
      slot.at = plan.kind == TaskKind::kActorTask ? p.created : p.args_ready;
      break;
    case 2:
      slot.at = p.submitted;
      break;
    case 3:
      slot.at = p.running;
      slot.node = p.node;
      break;
    default:
      slot.at = p.ended;
      break;
  }
  if (!layout.Sent(slot.at, slot.node, plan.job)) slot.at = kNever;
  return slot;
}

void BuildTaskEvent(const SimLayout& layout, const TaskPlan& plan, int attempt, int stage,
                    uint64_t event_salt, RayEvent& event) {
  const StageSlot slot = StageOf(layout, plan, attempt, stage);
  const uint64_t key =
      plan.index << 5 | static_cast<uint64_t>(attempt) << 3 | static_cast<uint64_t>(stage);
  Header(layout, RayEvent::CORE_WORKER, RayEvent::TASK_LIFECYCLE_EVENT, slot.at, slot.node,
         IdBytes(layout.options().seed ^ event_salt, kTaskEventId, key, 28), event);
  if (stage == 0) {
    BuildDefinition(layout, plan, attempt, event);
  } else {
    BuildLifecycle(layout, plan, attempt, stage, event);
  }
}

std::vector<TimedEvent> BuildClusterEvents(const SimLayout& layout, uint64_t event_salt) {
  std::vector<TimedEvent> out;
  const uint64_t seed = layout.options().seed ^ event_salt;
  const std::string& head = layout.nodes()[0].id;
  auto add = [&](int64_t at, RayEvent::EventType type) -> RayEvent* {
    if (at >= layout.end_ns()) return nullptr;
    TimedEvent& timed = out.emplace_back();
    timed.at = at;
    timed.node = 0;  // the GCS, on the head node
    Header(layout, RayEvent::GCS, type, at, 0, IdBytes(seed, kClusterEventId, out.size(), 28),
           timed.event);
    return &timed.event;
  };
  auto time_of = [&](int64_t at) {
    google::protobuf::Timestamp t;
    SetTime(&t, layout.options().epoch_ns + at);
    return t;
  };

  for (size_t n = 0; n < layout.nodes().size(); ++n) {
    const SimNode& node = layout.nodes()[n];
    const int64_t up = static_cast<int64_t>(n) * kSecond / 5;
    if (RayEvent* e = add(up, RayEvent::NODE_DEFINITION_EVENT)) {
      auto* d = e->mutable_node_definition_event();
      d->set_node_id(node.id);
      d->set_node_ip_address(node.ip);
      (*d->mutable_labels())["ray.io/node-type"] = node.head ? "head" : "worker";
      (*d->mutable_labels())["ray.io/node-group"] =
          node.head ? "headgroup" : (node.gpus > 0 ? "gpu-workers" : "cpu-workers");
      (*d->mutable_labels())["ray.io/market-type"] = n == layout.dead_node() ? "spot" : "on-demand";
      *d->mutable_start_timestamp() = time_of(up);
      d->set_hostname(node.hostname);
      d->set_node_name(node.hostname);
      d->set_instance_id(node.instance_id);
      d->set_instance_type_name(node.instance_type);
    }
    if (RayEvent* e = add(up + kSecond / 10, RayEvent::NODE_LIFECYCLE_EVENT)) {
      auto* l = e->mutable_node_lifecycle_event();
      l->set_node_id(node.id);
      auto* t = l->add_state_transitions();
      t->set_state(ray::rpc::events::NodeLifecycleEvent::ALIVE);
      *t->mutable_timestamp() = time_of(up + kSecond / 10);
      (*t->mutable_resources())["CPU"] = node.cpus;
      if (node.gpus > 0) (*t->mutable_resources())["GPU"] = node.gpus;
      (*t->mutable_resources())["memory"] = node.memory_gib * 0.7 * 1024 * 1024 * 1024;
      (*t->mutable_resources())["object_store_memory"] = node.memory_gib * 0.3 * 1024 * 1024 * 1024;
    }
    if (node.dies_at != kNever) {
      const int64_t at = node.dies_at + kSecond;  // the GCS's health check notices
      if (RayEvent* e = add(at, RayEvent::NODE_LIFECYCLE_EVENT)) {
        auto* l = e->mutable_node_lifecycle_event();
        l->set_node_id(node.id);
        auto* t = l->add_state_transitions();
        t->set_state(ray::rpc::events::NodeLifecycleEvent::DEAD);
        *t->mutable_timestamp() = time_of(at);
        t->mutable_death_info()->set_reason(
            ray::rpc::events::NodeLifecycleEvent::DeathInfo::UNEXPECTED_TERMINATION);
        t->mutable_death_info()->set_reason_message(
            "health check failed: the raylet at " + node.ip +
            " stopped responding (the spot instance was preempted)");
      }
    }
  }

  for (size_t j = 0; j < layout.jobs().size(); ++j) {
    const SimJob& job = layout.jobs()[j];
    TaskPlan as_job;
    as_job.job = static_cast<uint16_t>(j);
    as_job.index = ~uint64_t{0};
    if (RayEvent* e = add(job.start, RayEvent::DRIVER_JOB_DEFINITION_EVENT)) {
      auto* d = e->mutable_driver_job_definition_event();
      d->set_job_id(job.id);
      d->set_driver_pid(job.driver_pid);
      d->set_driver_node_id(head);
      d->set_entrypoint(job.entrypoint);
      d->mutable_config()->set_serialized_runtime_env(layout.RuntimeEnv(as_job));
      (*d->mutable_config()->mutable_metadata())["job_submission_id"] = job.submission_id;
      (*d->mutable_config()->mutable_metadata())["team"] = j == 1 ? "ml-platform" : "data";
    }
    if (RayEvent* e = add(job.start + kSecond / 20, RayEvent::DRIVER_JOB_LIFECYCLE_EVENT)) {
      auto* l = e->mutable_driver_job_lifecycle_event();
      l->set_job_id(job.id);
      auto* t = l->add_state_transitions();
      t->set_state(ray::rpc::events::DriverJobLifecycleEvent::CREATED);
      *t->mutable_timestamp() = time_of(job.start + kSecond / 20);
    }
    if (job.end != kNever) {
      if (RayEvent* e = add(job.end, RayEvent::DRIVER_JOB_LIFECYCLE_EVENT)) {
        auto* l = e->mutable_driver_job_lifecycle_event();
        l->set_job_id(job.id);
        auto* t = l->add_state_transitions();
        t->set_state(ray::rpc::events::DriverJobLifecycleEvent::FINISHED);
        *t->mutable_timestamp() = time_of(job.end);
        t->set_message("Job finished successfully.");
        t->set_exit_code(0);
      }
    }
  }

  for (size_t a = 0; a < layout.actors().size(); ++a) {
    const SimActor& actor = layout.actors()[a];
    const ActorClass& c = ActorClasses()[actor.class_index];
    TaskPlan as_actor;
    as_actor.job = static_cast<uint16_t>(actor.job);
    as_actor.index = ~uint64_t{0};
    if (RayEvent* e = add(actor.created, RayEvent::ACTOR_DEFINITION_EVENT)) {
      auto* d = e->mutable_actor_definition_event();
      d->set_actor_id(actor.id);
      d->set_job_id(layout.jobs()[actor.job].id);
      d->set_name(actor.name);
      d->set_ray_namespace("demo");
      d->set_serialized_runtime_env(layout.RuntimeEnv(as_actor));
      d->set_class_name(c.name);
      (*d->mutable_required_resources())["CPU"] = c.cpus;
      d->set_call_site("train.py:" + std::to_string(64 + actor.class_index) + " (main)");
      d->set_parent_id(layout.jobs()[actor.job].driver_task_id);
    }
    auto lifecycle = [&](int64_t at) -> ray::rpc::events::ActorLifecycleEvent* {
      RayEvent* e = add(at, RayEvent::ACTOR_LIFECYCLE_EVENT);
      if (e == nullptr) return nullptr;
      e->mutable_actor_lifecycle_event()->set_actor_id(actor.id);
      return e->mutable_actor_lifecycle_event();
    };
    using State = ray::rpc::events::ActorLifecycleEvent;
    if (auto* l = lifecycle(actor.created + 1'000'000)) {
      auto* t = l->add_state_transitions();
      t->set_state(State::DEPENDENCIES_UNREADY);
      *t->mutable_timestamp() = time_of(actor.created);
      t = l->add_state_transitions();
      t->set_state(State::PENDING_CREATION);
      *t->mutable_timestamp() = time_of(actor.created + 1'000'000);
    }
    auto alive = [&](int64_t at, size_t node, uint32_t slot) {
      if (auto* l = lifecycle(at)) {
        auto* t = l->add_state_transitions();
        t->set_state(State::ALIVE);
        *t->mutable_timestamp() = time_of(at);
        t->set_node_id(layout.nodes()[node].id);
        t->set_worker_id(layout.WorkerId(static_cast<uint16_t>(node), slot));
        t->set_pid(static_cast<uint32_t>(layout.WorkerPid(static_cast<uint16_t>(node), slot)));
        t->set_port(10002 + static_cast<int32_t>(slot));
        t->set_repr_name(std::string(c.name) + "(" + actor.name + ")");
      }
    };
    alive(actor.alive, actor.node, actor.worker_slot);
    if (actor.restarting != kNever) {
      if (auto* l = lifecycle(actor.restarting)) {
        auto* t = l->add_state_transitions();
        t->set_state(State::RESTARTING);
        *t->mutable_timestamp() = time_of(actor.restarting);
        t->set_restart_reason(State::NODE_PREEMPTION);
      }
      alive(actor.alive_again, actor.node_after_restart, actor.worker_slot_after_restart);
    }
    if (actor.killed != kNever) {
      if (auto* l = lifecycle(actor.killed)) {
        auto* t = l->add_state_transitions();
        t->set_state(State::DEAD);
        *t->mutable_timestamp() = time_of(actor.killed);
        auto* died = t->mutable_death_cause()->mutable_actor_died_error_context();
        died->set_error_message(
            "The actor was killed by `ray.kill`: the driver no longer needs it.");
        died->set_actor_id(actor.id);
        died->set_class_name(c.name);
        died->set_name(actor.name);
        died->set_ray_namespace("demo");
        died->set_node_ip_address(layout.nodes()[actor.node].ip);
        died->set_pid(static_cast<uint32_t>(
            layout.WorkerPid(static_cast<uint16_t>(actor.node), actor.worker_slot)));
        died->set_reason(ray::rpc::ActorDiedErrorContext::RAY_KILL);
      }
    }
  }
  return out;
}

}  // namespace rayagg::demo
