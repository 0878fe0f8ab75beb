// A known Ray session for the end-to-end tests of the task history: one node,
// one job that finishes, one actor, and 16 task attempts of four functions
// that finish, fail with three error types, are retried, or are left RUNNING
// when their job ends. The events are built here, and so are the answers the
// history must give about them, from the same table (not from the reducer).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "src/ray/protobuf/common.pb.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/sample_events.h"

namespace rayagg::test::history_e2e {

using ray::rpc::events::RayEvent;

inline constexpr char kSessionName[] = "session_2099-01-01_00-00-00_101112_4242";
// Event times: T0 and offsets from it in milliseconds. In 2099, so that
// index.retention (a session is removed once its last event is older than
// that by the wall clock) never applies, whatever day the test runs.
inline constexpr int64_t kT0Ns = 4'070'908'800'000'000'000;

inline std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

struct ScenarioTask {
  std::string task_id;  // 24 raw bytes
  int attempt = 0;
  std::string function;
  ray::rpc::TaskStatus end_state = ray::rpc::FINISHED;  // RUNNING: never ends
  int error_type = -1;                                  // ray::rpc::ErrorType, or none
  std::string error_message;
  int64_t created_ms = 0;  // after T0
  int64_t pending_ms = 0;  // creation -> RUNNING
  int64_t running_ms = 0;  // RUNNING -> end
  int32_t worker_pid = 0;
};

struct Scenario {
  std::string node_id = std::string(28, '\x5a');
  std::string job_id = std::string("\x07\x00\x00\x00", 4);
  std::string actor_id = std::string(16, '\x3c');
  std::vector<ScenarioTask> tasks;
  // What is sent, in two parts: over gRPC AddEvents (tasks) and HTTP JSON
  // (the node, job and actor).
  std::vector<RayEvent> task_events;
  std::vector<RayEvent> cluster_events;

  // Task attempts the sender reports it dropped (AddEvents'
  // task_events_metadata, on the first request): "lost before export".
  static constexpr size_t kSenderDroppedTaskAttempts = 3;

  size_t event_count() const { return task_events.size() + cluster_events.size(); }

  // The state the history reports per attempt: the end state, or
  // UNKNOWN_JOB_FINISHED for an attempt left RUNNING (its job finished).
  static std::string ReportedState(const ScenarioTask& task) {
    if (task.end_state == ray::rpc::RUNNING) return "UNKNOWN_JOB_FINISHED";
    return ray::rpc::TaskStatus_Name(task.end_state);
  }
  // Ray's State API calls a reconciled task FAILED.
  static std::string RayState(const ScenarioTask& task) {
    return task.end_state == ray::rpc::RUNNING ? "FAILED" : ReportedState(task);
  }

  std::map<std::string, int64_t> CountsByState() const {
    std::map<std::string, int64_t> out;
    for (const ScenarioTask& task : tasks) ++out[ReportedState(task)];
    return out;
  }
  std::map<std::string, std::map<std::string, int64_t>> CountsByFunction() const {
    std::map<std::string, std::map<std::string, int64_t>> out;
    for (const ScenarioTask& task : tasks) ++out[task.function][ReportedState(task)];
    return out;
  }
  std::map<std::string, int64_t> CountsByErrorType() const {
    std::map<std::string, int64_t> out;
    for (const ScenarioTask& task : tasks) {
      if (task.error_type >= 0) {
        ++out[ray::rpc::ErrorType_Name(static_cast<ray::rpc::ErrorType>(task.error_type))];
      }
    }
    return out;
  }
};

inline void SetTime(google::protobuf::Timestamp* timestamp, int64_t ns) {
  timestamp->set_seconds(ns / 1'000'000'000);
  timestamp->set_nanos(static_cast<int32_t>(ns % 1'000'000'000));
}

inline Scenario MakeScenario() {
  Scenario s;
  auto add = [&s](int function_index, const std::string& function, int n, int attempt,
                  ray::rpc::TaskStatus end, int error_type, std::string message) {
    ScenarioTask task;
    task.task_id = std::string(23, static_cast<char>(0x10 + function_index));
    task.task_id.push_back(static_cast<char>(n));
    task.attempt = attempt;
    task.function = function;
    task.end_state = end;
    task.error_type = error_type;
    task.error_message = std::move(message);
    task.created_ms = 1000 * (function_index * 10 + n) + 500 * attempt;
    task.pending_ms = 100 + 10 * n;
    task.running_ms = 2000 + 250 * n;
    task.worker_pid = 4000 + function_index * 100 + n;
    s.tasks.push_back(std::move(task));
  };
  const std::string traceback =
      "Traceback (most recent call last):\n  File \"train.py\", line 3, in train\n"
      "ValueError: bad learning rate";
  for (int n = 0; n < 6; ++n) add(0, "prep", n, 0, ray::rpc::FINISHED, -1, "");
  for (int n = 0; n < 4; ++n) {
    if (n < 2) {
      add(1, "train", n, 0, ray::rpc::FINISHED, -1, "");
    } else {
      add(1, "train", n, 0, ray::rpc::FAILED, ray::rpc::TASK_EXECUTION_EXCEPTION, traceback);
    }
  }
  for (int n = 0; n < 3; ++n) {
    add(2, "fetch", n, 0, ray::rpc::FAILED, ray::rpc::OUT_OF_MEMORY,
        "Task was killed due to the node running low on memory.");
  }
  // Retried: the first attempt's worker died, the second finished.
  add(2, "fetch", 3, 0, ray::rpc::FAILED, ray::rpc::WORKER_DIED, "The worker died unexpectedly.");
  add(2, "fetch", 3, 1, ray::rpc::FINISHED, -1, "");
  // Left RUNNING when the job finished.
  add(3, "stuck", 0, 0, ray::rpc::RUNNING, -1, "");

  auto base = [&s](std::vector<RayEvent>& into, RayEvent::EventType type, int64_t at_ns) {
    RayEvent& event = into.emplace_back();
    event.set_event_id(NextEventId());
    event.set_event_type(type);
    event.set_source_type(RayEvent::CORE_WORKER);
    event.set_session_name(kSessionName);
    event.set_node_id(s.node_id);
    SetTime(event.mutable_timestamp(), at_ns);
    return &event;
  };
  const int64_t ms = 1'000'000;
  for (const ScenarioTask& task : s.tasks) {
    const int64_t created = kT0Ns + task.created_ms * ms;
    const int64_t running = created + task.pending_ms * ms;
    const int64_t ended = running + task.running_ms * ms;
    // The lifecycle in two events, the first sent before the definition.
    auto* first = base(s.task_events, RayEvent::TASK_LIFECYCLE_EVENT, created)
                      ->mutable_task_lifecycle_event();
    first->set_task_id(task.task_id);
    first->set_task_attempt(task.attempt);
    first->set_job_id(s.job_id);
    auto* pending = first->add_state_transitions();
    pending->set_state(ray::rpc::PENDING_ARGS_AVAIL);
    SetTime(pending->mutable_timestamp(), created);

    auto* definition = base(s.task_events, RayEvent::TASK_DEFINITION_EVENT, created)
                           ->mutable_task_definition_event();
    definition->set_task_id(task.task_id);
    definition->set_task_attempt(task.attempt);
    definition->set_job_id(s.job_id);
    definition->set_task_name(task.function + "-" + std::to_string(task.attempt));
    definition->mutable_task_func()->mutable_python_function_descriptor()->set_module_name(
        "pipeline");
    definition->mutable_task_func()->mutable_python_function_descriptor()->set_function_name(
        task.function);
    (*definition->mutable_required_resources())["CPU"] = 1;

    auto* second = base(s.task_events, RayEvent::TASK_LIFECYCLE_EVENT,
                        task.end_state == ray::rpc::RUNNING ? running : ended)
                       ->mutable_task_lifecycle_event();
    second->set_task_id(task.task_id);
    second->set_task_attempt(task.attempt);
    second->set_job_id(s.job_id);
    second->set_node_id(s.node_id);
    second->set_worker_id(std::string(28, static_cast<char>(task.worker_pid & 0xff)));
    second->set_worker_pid(task.worker_pid);
    auto* run = second->add_state_transitions();
    run->set_state(ray::rpc::RUNNING);
    SetTime(run->mutable_timestamp(), running);
    if (task.end_state != ray::rpc::RUNNING) {
      auto* end = second->add_state_transitions();
      end->set_state(task.end_state);
      SetTime(end->mutable_timestamp(), ended);
    }
    if (task.error_type >= 0) {
      second->mutable_ray_error_info()->set_error_type(
          static_cast<ray::rpc::ErrorType>(task.error_type));
      second->mutable_ray_error_info()->set_error_message(task.error_message);
    }
  }

  auto* node = base(s.cluster_events, RayEvent::NODE_DEFINITION_EVENT, kT0Ns)
                   ->mutable_node_definition_event();
  node->set_node_id(s.node_id);
  node->set_node_ip_address("10.1.2.3");
  auto* node_life =
      base(s.cluster_events, RayEvent::NODE_LIFECYCLE_EVENT, kT0Ns)->mutable_node_lifecycle_event();
  node_life->set_node_id(s.node_id);
  auto* alive = node_life->add_state_transitions();
  alive->set_state(ray::rpc::events::NodeLifecycleEvent::ALIVE);
  SetTime(alive->mutable_timestamp(), kT0Ns);

  auto* job = base(s.cluster_events, RayEvent::DRIVER_JOB_DEFINITION_EVENT, kT0Ns)
                  ->mutable_driver_job_definition_event();
  job->set_job_id(s.job_id);
  job->set_entrypoint("python pipeline.py");
  const int64_t job_end = kT0Ns + 100'000 * ms;  // after every task
  auto* job_life = base(s.cluster_events, RayEvent::DRIVER_JOB_LIFECYCLE_EVENT, job_end)
                       ->mutable_driver_job_lifecycle_event();
  job_life->set_job_id(s.job_id);
  auto* created = job_life->add_state_transitions();
  created->set_state(ray::rpc::events::DriverJobLifecycleEvent::CREATED);
  SetTime(created->mutable_timestamp(), kT0Ns);
  auto* finished = job_life->add_state_transitions();
  finished->set_state(ray::rpc::events::DriverJobLifecycleEvent::FINISHED);
  SetTime(finished->mutable_timestamp(), job_end);

  auto* actor = base(s.cluster_events, RayEvent::ACTOR_DEFINITION_EVENT, kT0Ns + ms)
                    ->mutable_actor_definition_event();
  actor->set_actor_id(s.actor_id);
  actor->set_job_id(s.job_id);
  actor->set_class_name("Trainer");
  auto* actor_life = base(s.cluster_events, RayEvent::ACTOR_LIFECYCLE_EVENT, kT0Ns + 2 * ms)
                         ->mutable_actor_lifecycle_event();
  actor_life->set_actor_id(s.actor_id);
  auto* actor_alive = actor_life->add_state_transitions();
  actor_alive->set_state(ray::rpc::events::ActorLifecycleEvent::ALIVE);
  SetTime(actor_alive->mutable_timestamp(), kT0Ns + 2 * ms);
  actor_alive->set_node_id(s.node_id);
  return s;
}

}  // namespace rayagg::test::history_e2e
