// Random Ray sessions for the history tests: jobs (some finished), nodes
// (some dead), tasks with definitions, lifecycles in several parts, retries
// (failed or lost attempts, then a finished or failed one), errors with
// stack traces, log info and profile spans.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::history {

using ray::rpc::events::RayEvent;

inline void SetTime(google::protobuf::Timestamp* t, int64_t ns) {
  t->set_seconds(ns / 1'000'000'000);
  t->set_nanos(static_cast<int32_t>(ns % 1'000'000'000));
}

inline std::string RawId(std::mt19937_64& random, size_t bytes) {
  std::string id(bytes, '\0');
  for (char& c : id) c = static_cast<char>(random() & 0xff);
  return id;
}

struct Session {
  std::vector<RayEvent> events;
  // Per task: the lifecycle events, to coalesce some of them.
};

// A random session: jobs (some finished), nodes (some dead), actors, and
// tasks with definitions, lifecycles in several parts, errors, profiles.
inline Session RandomSession(uint64_t seed) {
  std::mt19937_64 random(seed);
  auto coin = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(random) < p; };
  Session session;
  const int jobs = 1 + static_cast<int>(random() % 3);
  std::vector<std::string> job_ids, node_ids;
  int64_t now = 1'700'000'000'000'000'000 + static_cast<int64_t>(random() % 1'000'000'000);
  for (int j = 0; j < jobs; ++j) job_ids.push_back(RawId(random, 4));
  for (int n = 0; n < 3; ++n) node_ids.push_back(RawId(random, 28));
  auto base = [&](RayEvent::EventType type, int64_t at) {
    RayEvent event;
    event.set_event_id(RawId(random, 28));
    event.set_event_type(type);
    event.set_source_type(RayEvent::CORE_WORKER);
    SetTime(event.mutable_timestamp(), at);
    event.set_session_name("session_2026-01-01_00-00-00_000000_1");
    return event;
  };
  for (const std::string& job : job_ids) {
    RayEvent def = base(RayEvent::DRIVER_JOB_DEFINITION_EVENT, now);
    def.mutable_driver_job_definition_event()->set_job_id(job);
    def.mutable_driver_job_definition_event()->set_entrypoint("python main.py");
    session.events.push_back(def);
    RayEvent life = base(RayEvent::DRIVER_JOB_LIFECYCLE_EVENT, now);
    auto* created = life.mutable_driver_job_lifecycle_event()->add_state_transitions();
    created->set_state(ray::rpc::events::DriverJobLifecycleEvent::CREATED);
    SetTime(created->mutable_timestamp(), now);
    life.mutable_driver_job_lifecycle_event()->set_job_id(job);
    session.events.push_back(life);
  }
  for (const std::string& node : node_ids) {
    RayEvent def = base(RayEvent::NODE_DEFINITION_EVENT, now);
    def.mutable_node_definition_event()->set_node_id(node);
    def.mutable_node_definition_event()->set_node_ip_address("10.0.0.1");
    session.events.push_back(def);
  }
  const int tasks = 5 + static_cast<int>(random() % 40);
  for (int t = 0; t < tasks; ++t) {
    const std::string task_id = RawId(random, 24);
    const std::string& job = job_ids[random() % job_ids.size()];
    const std::string& node = node_ids[random() % node_ids.size()];
    // Retries: 2..4 attempts of one task id for a third of the tasks; an
    // attempt before the last failed (or never ended: lost with its worker)
    // and the last mostly finished, so tasks fail and then recover. Some
    // retried tasks lack their first attempt (lost before export).
    const int attempts = coin(0.35) ? 2 + static_cast<int>(random() % 3) : 1;
    const bool first_lost = attempts > 1 && coin(0.15);
    for (int attempt = first_lost ? 1 : 0; attempt < attempts; ++attempt) {
      const bool retried = attempt + 1 < attempts;
      int64_t at = now + static_cast<int64_t>(random() % 1'000'000'000);
      if (coin(0.9)) {
        const bool actor_task = coin(0.3);
        RayEvent def = base(
            actor_task ? RayEvent::ACTOR_TASK_DEFINITION_EVENT : RayEvent::TASK_DEFINITION_EVENT,
            at);
        if (actor_task) {
          auto* d = def.mutable_actor_task_definition_event();
          d->set_task_id(task_id);
          d->set_task_attempt(attempt);
          d->set_job_id(job);
          d->set_actor_id(RawId(random, 16));
          d->mutable_actor_func()->mutable_python_function_descriptor()->set_class_name(
              "mod.Actor");
          d->mutable_actor_func()->mutable_python_function_descriptor()->set_function_name(
              "method" + std::to_string(random() % 3));
          (*d->mutable_required_resources())["CPU"] = 1;
        } else {
          auto* d = def.mutable_task_definition_event();
          d->set_task_id(task_id);
          d->set_task_attempt(attempt);
          d->set_job_id(job);
          d->mutable_task_func()->mutable_python_function_descriptor()->set_function_name(
              "f" + std::to_string(random() % 4));
          d->set_task_name("name" + std::to_string(t));
          (*d->mutable_required_resources())["CPU"] = 0.5;
          d->set_serialized_runtime_env("{\"pip\":[\"x\"]}");
        }
        session.events.push_back(def);
      }
      // Lifecycle in 1..3 parts with the states of a run.
      std::vector<int32_t> states = {ray::rpc::PENDING_ARGS_AVAIL,
                                     ray::rpc::PENDING_NODE_ASSIGNMENT,
                                     ray::rpc::SUBMITTED_TO_WORKER, ray::rpc::RUNNING};
      int end = static_cast<int>(random() % 4);
      if (retried) end = coin(0.8) ? 2 : 3;                // failed, or lost
      if (attempts > 1 && !retried && coin(0.6)) end = 1;  // then finished
      if (end == 1) states.push_back(ray::rpc::FINISHED);
      if (end == 2) states.push_back(ray::rpc::FAILED);
      if (end == 3) states.resize(1 + random() % states.size());  // never ended
      size_t i = 0;
      while (i < states.size()) {
        const size_t take = 1 + random() % 3;
        RayEvent life = base(RayEvent::TASK_LIFECYCLE_EVENT, at);
        auto* l = life.mutable_task_lifecycle_event();
        l->set_task_id(task_id);
        l->set_task_attempt(attempt);
        l->set_job_id(job);
        for (size_t k = 0; k < take && i < states.size(); ++k, ++i) {
          auto* transition = l->add_state_transitions();
          transition->set_state(static_cast<ray::rpc::TaskStatus>(states[i]));
          at += 1 + static_cast<int64_t>(random() % 50'000'000);
          SetTime(transition->mutable_timestamp(), at);
          if (states[i] == ray::rpc::RUNNING) {
            l->set_node_id(node);
            l->set_worker_id(RawId(random, 28));
            l->set_worker_pid(static_cast<int32_t>(1000 + random() % 1000));
            l->mutable_task_log_info()->set_stdout_file("worker.out");
            l->mutable_task_log_info()->set_stdout_start(static_cast<int64_t>(random() % 100));
          }
          if (states[i] == ray::rpc::FAILED) {
            l->mutable_ray_error_info()->set_error_type(ray::rpc::TASK_EXECUTION_EXCEPTION);
            l->mutable_ray_error_info()->set_error_message(
                "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\nValueError: "
                "bad value");
          }
          if (states[i] == ray::rpc::FINISHED) {
            l->mutable_task_log_info()->set_stdout_end(static_cast<int64_t>(100 + random() % 100));
          }
        }
        session.events.push_back(life);
      }
      if (coin(0.3)) {
        RayEvent profile = base(RayEvent::TASK_PROFILE_EVENT, at);
        auto* p = profile.mutable_task_profile_events();
        p->set_task_id(task_id);
        p->set_attempt_number(attempt);
        p->set_job_id(job);
        p->mutable_profile_events()->set_component_type("worker");
        auto* entry = p->mutable_profile_events()->add_events();
        entry->set_event_name("task:execute");
        entry->set_start_time(at - 1000);
        entry->set_end_time(at);
        session.events.push_back(profile);
      }
    }
  }
  // Some jobs finish and some nodes die, at the end.
  now += 3'000'000'000;
  for (const std::string& job : job_ids) {
    if (!coin(0.5)) continue;
    RayEvent life = base(RayEvent::DRIVER_JOB_LIFECYCLE_EVENT, now);
    life.mutable_driver_job_lifecycle_event()->set_job_id(job);
    auto* finished = life.mutable_driver_job_lifecycle_event()->add_state_transitions();
    finished->set_state(ray::rpc::events::DriverJobLifecycleEvent::FINISHED);
    SetTime(finished->mutable_timestamp(), now);
    session.events.push_back(life);
  }
  if (coin(0.5)) {
    RayEvent life = base(RayEvent::NODE_LIFECYCLE_EVENT, now);
    life.mutable_node_lifecycle_event()->set_node_id(node_ids[0]);
    auto* dead = life.mutable_node_lifecycle_event()->add_state_transitions();
    dead->set_state(ray::rpc::events::NodeLifecycleEvent::DEAD);
    SetTime(dead->mutable_timestamp(), now);
    session.events.push_back(life);
  }
  return session;
}

}  // namespace rayagg::history
