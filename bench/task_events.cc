#include "task_events.h"

#include <atomic>
#include <cstring>
#include <random>
#include <string>

namespace rayagg::bench {
namespace {

using ray::rpc::events::AddEventsRequest;
using ray::rpc::events::RayEvent;

// Ray's id widths: TaskID 24, JobID 4, NodeID/WorkerID/ObjectID 28. The event
// id has the width of a NodeID, as Ray's core worker generates it.
constexpr size_t kEventIdBytes = 28;
constexpr size_t kTaskIdBytes = 24;
constexpr size_t kJobIdBytes = 4;
constexpr size_t kUniqueIdBytes = 28;
constexpr size_t kSequenceBytes = 8;  // the stamped part of event and task ids
constexpr size_t kStackTraceBytes = 2048;

// Random once per process: part of every event and task id.
uint64_t ProcessSalt() {
  static const uint64_t salt = [] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }();
  return salt;
}

std::atomic<uint64_t> next_sequence{0};

std::string RandomBytes(std::mt19937_64& random, size_t size) {
  std::string bytes(size, '\0');
  for (char& byte : bytes) byte = static_cast<char>(random() & 0xff);
  return bytes;
}

// Little-endian on purpose: the low bytes, which change on every event, come
// first, so a hash over a prefix of the id still tells ids apart.
void WriteSequence(std::string* id, size_t offset, uint64_t sequence) {
  std::memcpy(id->data() + offset, &sequence, sizeof(sequence));
}

std::string MakeRuntimeEnv(uint64_t variant) {
  // About 200 characters, the shape Ray serializes a pip runtime env to.
  return "{\"pip\": {\"packages\": [\"pandas==2.2.2\", \"pyarrow==16.1.0\", "
         "\"scikit-learn==1.5.0\"], "
         "\"pip_check\": false}, \"env_vars\": {\"OMP_NUM_THREADS\": \"1\"}, \"working_dir\": "
         "\"gcs://_ray_pkg_5f1c2d3e4a5b" +
         std::to_string(100000 + variant % 900000) + ".zip\"}";
}

std::string MakeStackTrace() {
  std::string trace =
      "ray::preprocess_shard() (pid=48213, ip=10.0.12.34)\nTraceback (most recent call last):\n";
  for (int frame = 0; trace.size() < kStackTraceBytes; ++frame) {
    trace +=
        "  File \"/home/ray/anaconda3/lib/python3.11/site-packages/my_project/pipelines/stage_" +
        std::to_string(frame) + ".py\", line " + std::to_string(100 + 17 * frame) +
        ", in transform_batch\n    result = self._apply(batch, columns=columns)\n";
  }
  trace.resize(kStackTraceBytes - 40);
  trace += "\nValueError: shard 1234 has no rows left";
  return trace;
}

void SetTimestamp(google::protobuf::Timestamp* timestamp, std::chrono::nanoseconds since_epoch) {
  timestamp->set_seconds(since_epoch.count() / 1'000'000'000);
  timestamp->set_nanos(static_cast<int32_t>(since_epoch.count() % 1'000'000'000));
}

// Everything every event of this process shares.
struct Common {
  std::string session_name = "session_2025-01-15_10-23-45_123456_4711";
  std::string node_id;
  std::string job_id;
  std::string parent_task_id;
  std::string event_id_template;
  std::string task_id_template;
};

void FillHeader(const Common& common, RayEvent::EventType type, RayEvent& event) {
  event.set_event_id(common.event_id_template);
  event.set_source_type(RayEvent::CORE_WORKER);
  event.set_event_type(type);
  event.set_severity(RayEvent::INFO);
  event.set_session_name(common.session_name);
  event.set_node_id(common.node_id);
}

void AddDefinition(const Common& common, uint64_t variant, std::mt19937_64& random,
                   RayEvent& event) {
  FillHeader(common, RayEvent::TASK_DEFINITION_EVENT, event);
  auto* definition = event.mutable_task_definition_event();
  definition->set_task_id(common.task_id_template);
  definition->set_task_attempt(0);
  definition->set_task_type(ray::rpc::NORMAL_TASK);
  definition->set_language(ray::rpc::PYTHON);
  auto* function = definition->mutable_task_func()->mutable_python_function_descriptor();
  function->set_module_name("my_project.pipelines.preprocess");
  function->set_function_name("preprocess_shard_" + std::to_string(variant % 8));
  function->set_function_hash("9f2b1c4e7a0d4d1e8b3c5a6f7e8d9c0b1a2b3c4d");
  definition->set_task_name("preprocess_shard_" + std::to_string(variant % 8));
  (*definition->mutable_required_resources())["CPU"] = 1;
  (*definition->mutable_required_resources())["GPU"] = 0;
  definition->set_job_id(common.job_id);
  definition->set_parent_task_id(common.parent_task_id);
  (*definition->mutable_ref_ids())["arg_0"] = RandomBytes(random, kUniqueIdBytes);
  (*definition->mutable_ref_ids())["arg_1"] = RandomBytes(random, kUniqueIdBytes);
  (*definition->mutable_ref_ids())["return_0"] = RandomBytes(random, kUniqueIdBytes);
  definition->set_serialized_runtime_env(MakeRuntimeEnv(variant));
  definition->set_call_site("pipeline.py:88 (run_stage)");
  (*definition->mutable_label_selector())["ray.io/market-type"] = "on-demand";
  (*definition->mutable_label_selector())["ray.io/availability-zone"] = "us-west-2a";
}

// stage 0: pending; 1: submitted and running on a worker; 2: finished or failed.
void AddLifecycle(const Common& common, int stage, bool failed, const std::string& worker_id,
                  const std::string& stack_trace, RayEvent& event) {
  FillHeader(common, RayEvent::TASK_LIFECYCLE_EVENT, event);
  auto* lifecycle = event.mutable_task_lifecycle_event();
  lifecycle->set_task_id(common.task_id_template);
  lifecycle->set_task_attempt(0);
  lifecycle->set_job_id(common.job_id);
  auto add_state = [&](ray::rpc::TaskStatus state) {
    lifecycle->add_state_transitions()->set_state(state);
  };
  switch (stage) {
    case 0:
      add_state(ray::rpc::PENDING_ARGS_AVAIL);
      add_state(ray::rpc::PENDING_NODE_ASSIGNMENT);
      return;
    case 1:
      add_state(ray::rpc::SUBMITTED_TO_WORKER);
      add_state(ray::rpc::RUNNING);
      break;
    default:
      add_state(failed ? ray::rpc::FAILED : ray::rpc::FINISHED);
      if (failed) {
        auto* error = lifecycle->mutable_ray_error_info();
        error->set_error_type(ray::rpc::TASK_EXECUTION_EXCEPTION);
        error->set_error_message(stack_trace);
      }
      break;
  }
  lifecycle->set_node_id(common.node_id);
  lifecycle->set_worker_id(worker_id);
  lifecycle->set_worker_pid(48000 + static_cast<int32_t>(worker_id[0] & 0x7f));
}

}  // namespace

AddEventsRequest BuildTaskEventsRequest(size_t event_count, uint64_t variant) {
  std::mt19937_64 random(ProcessSalt() ^ (variant * 0x9e3779b97f4a7c15ull));
  Common common;
  common.node_id = RandomBytes(random, kUniqueIdBytes);
  common.job_id = std::string("\x02\x00\x00\x00", kJobIdBytes);
  common.parent_task_id = RandomBytes(random, kTaskIdBytes);
  common.event_id_template = RandomBytes(random, kEventIdBytes);
  // Not varied with `variant`: a task's reports may come from any request
  // of a pool, and must name the same task id as its definition.
  std::mt19937_64 same_for_every_variant(ProcessSalt());
  common.task_id_template = RandomBytes(same_for_every_variant, kTaskIdBytes);
  common.task_id_template.replace(kTaskIdBytes - kJobIdBytes, kJobIdBytes, common.job_id);
  const uint64_t salt = ProcessSalt();
  std::memcpy(common.event_id_template.data() + kSequenceBytes, &salt, sizeof(salt));
  std::memcpy(common.task_id_template.data() + kSequenceBytes, &salt, sizeof(salt));
  const std::string stack_trace = MakeStackTrace();
  std::vector<std::string> workers;
  for (int i = 0; i < 8; ++i) workers.push_back(RandomBytes(random, kUniqueIdBytes));

  AddEventsRequest request;
  auto* events = request.mutable_events_data()->mutable_events();
  events->Reserve(static_cast<int>(event_count));
  for (size_t i = 0; i < event_count; ++i) {
    const size_t task = i / kEventsPerTask;
    const size_t position = i % kEventsPerTask;
    RayEvent& event = *events->Add();
    if (position == 0) {
      AddDefinition(common, variant + task, random, event);
    } else {
      // Spread failures over the pool's requests instead of always task 0.
      const bool failed = (task + variant * 7) % kFailedTaskEvery == 0;
      AddLifecycle(common, static_cast<int>(position - 1), failed,
                   workers[(task + variant) % workers.size()], stack_trace, event);
    }
  }
  return request;
}

uint64_t ReserveSequences(uint64_t count) {
  return next_sequence.fetch_add(count, std::memory_order_relaxed);
}

void StampForSend(AddEventsRequest& request, uint64_t first_sequence,
                  std::chrono::system_clock::time_point now) {
  const auto since_epoch =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch());
  auto* events = request.mutable_events_data()->mutable_events();
  const uint64_t request_size = static_cast<uint64_t>(events->size());
  uint64_t task_sequence = first_sequence;
  uint64_t report = 0;  // lifecycle reports since the last definition
  for (int i = 0; i < events->size(); ++i) {
    RayEvent& event = events->at(i);
    const uint64_t sequence = first_sequence + static_cast<uint64_t>(i);
    WriteSequence(event.mutable_event_id(), 0, sequence);
    SetTimestamp(event.mutable_timestamp(), since_epoch);
    if (event.has_task_definition_event()) {
      // A task's id is the sequence of its definition event: unique.
      task_sequence = sequence;
      report = 0;
      WriteSequence(event.mutable_task_definition_event()->mutable_task_id(), 0, task_sequence);
    } else if (event.has_task_lifecycle_event()) {
      // As Ray's senders flush: report r of a task arrives r requests after
      // its definition (the one in this request's slot r requests back), so
      // a task's reports are spread over consecutive requests.
      ++report;
      const uint64_t back = report * request_size;
      const uint64_t reported_task = task_sequence >= back ? task_sequence - back : task_sequence;
      auto* lifecycle = event.mutable_task_lifecycle_event();
      WriteSequence(lifecycle->mutable_task_id(), 0, reported_task);
      auto* transitions = lifecycle->mutable_state_transitions();
      for (int t = 0; t < transitions->size(); ++t) {
        const auto before = std::chrono::milliseconds(transitions->size() - t);
        SetTimestamp(transitions->at(t).mutable_timestamp(), since_epoch - before);
      }
    }
  }
}

}  // namespace rayagg::bench
