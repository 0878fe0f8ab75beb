#include "history/fold/reducer.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::history {
namespace {

using ray::rpc::events::RayEvent;

// A Timestamp may hold any second of years 1 to 9999 (proto3 JSON accepts
// them all), beyond int64 nanoseconds (1678 to 2262): a time outside 1970 to
// 2200 is clamped to that range, so neither it nor a difference of two such
// times overflows (a bucket's objects are anyone's input).
int64_t Nanos(const google::protobuf::Timestamp& t) {
  constexpr int64_t kLatestSeconds = 7'258'118'400;  // 2200-01-01T00:00:00Z
  if (t.seconds() < 0) return 0;
  if (t.seconds() >= kLatestSeconds) return kLatestSeconds * 1'000'000'000;
  return t.seconds() * 1'000'000'000 + t.nanos();
}

// A JSON object of a string-keyed map, written directly: a definition event
// carries one or two per task, so this is on the indexing hot path.
void AppendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20) {
      static constexpr char kHex[] = "0123456789abcdef";
      out.append("\\u00");
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}
void AppendJsonValue(std::string& out, const std::string& value) { AppendJsonString(out, value); }
void AppendJsonValue(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out.append("null");
    return;
  }
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

template <typename Map>
std::string MapJson(const Map& map) {
  if (map.empty()) return "";
  // Sorted keys: the same map always gives the same text (protobuf maps
  // iterate in no fixed order), so a re-read definition compares equal.
  std::vector<const typename Map::value_type*> entries;
  entries.reserve(map.size());
  for (const auto& entry : map) entries.push_back(&entry);
  std::sort(entries.begin(), entries.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string out = "{";
  for (const auto* entry : entries) {
    if (out.size() > 1) out.push_back(',');
    AppendJsonString(out, entry->first);
    out.push_back(':');
    AppendJsonValue(out, entry->second);
  }
  out.push_back('}');
  return out;
}

// How Ray's State API names a function (func_or_class_name).
std::string FunctionName(const ray::rpc::FunctionDescriptor& descriptor) {
  switch (descriptor.function_descriptor_case()) {
    case ray::rpc::FunctionDescriptor::kPythonFunctionDescriptor: {
      const auto& python = descriptor.python_function_descriptor();
      std::string_view class_name = python.class_name();
      if (class_name.empty()) return python.function_name();
      size_t dot = class_name.rfind('.');
      if (dot != std::string_view::npos) class_name.remove_prefix(dot + 1);
      return std::string(class_name) + "." + python.function_name();
    }
    case ray::rpc::FunctionDescriptor::kJavaFunctionDescriptor: {
      const auto& java = descriptor.java_function_descriptor();
      if (java.class_name().empty()) return java.function_name();
      return java.class_name() + "." + java.function_name();
    }
    case ray::rpc::FunctionDescriptor::kCppFunctionDescriptor:
      return descriptor.cpp_function_descriptor().function_name();
    default:
      return "";
  }
}

std::string MessageJson(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = false;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

TaskRecord& TaskFor(FoldedSession& into, std::string_view raw_id, int32_t attempt) {
  TaskKey key{HexId(raw_id), attempt};
  auto [it, inserted] = into.tasks.try_emplace(key);
  if (inserted) {
    it->second.task_id = key.task_id;
    it->second.attempt = attempt;
  }
  return it->second;
}

void FoldTaskDefinition(const ray::rpc::events::TaskDefinitionEvent& def, int64_t at,
                        FoldedSession& into) {
  TaskRecord& task = TaskFor(into, def.task_id(), def.task_attempt());
  TaskDefinition d;
  d.task_type = def.task_type();
  d.language = def.language();
  d.func_name = FunctionName(def.task_func());
  d.task_name = def.task_name();
  d.job_id = HexId(def.job_id());
  d.parent_task_id = HexId(def.parent_task_id());
  d.placement_group_id = HexId(def.placement_group_id());
  d.required_resources = MapJson(def.required_resources());
  d.serialized_runtime_env = def.serialized_runtime_env();
  d.label_selector = MapJson(def.label_selector());
  d.call_site = def.call_site();
  d.is_detached_actor = def.is_detached_actor();
  task.definition.Offer(at, d);
}

void FoldActorTaskDefinition(const ray::rpc::events::ActorTaskDefinitionEvent& def, int64_t at,
                             FoldedSession& into) {
  TaskRecord& task = TaskFor(into, def.task_id(), def.task_attempt());
  TaskDefinition d;
  d.task_type = ray::rpc::ACTOR_TASK;
  d.language = def.language();
  d.func_name = FunctionName(def.actor_func());
  d.task_name = def.actor_task_name();
  d.job_id = HexId(def.job_id());
  d.actor_id = HexId(def.actor_id());
  d.parent_task_id = HexId(def.parent_task_id());
  d.placement_group_id = HexId(def.placement_group_id());
  d.required_resources = MapJson(def.required_resources());
  d.serialized_runtime_env = def.serialized_runtime_env();
  d.label_selector = MapJson(def.label_selector());
  d.call_site = def.call_site();
  d.is_detached_actor = def.is_detached_actor();
  task.definition.Offer(at, d);
}

void FoldTaskLifecycle(const ray::rpc::events::TaskLifecycleEvent& life, int64_t event_ns,
                       FoldedSession& into) {
  TaskRecord& task = TaskFor(into, life.task_id(), life.task_attempt());
  // The event's version: its latest transition (a coalesced event carries
  // the time of its first part), else its own time.
  int64_t at = event_ns;
  for (const auto& transition : life.state_transitions()) {
    const int64_t t = Nanos(transition.timestamp());
    task.AddTransition({transition.state(), t});
    at = std::max(at, t);
  }
  if (!life.job_id().empty()) task.lifecycle_job_id.Offer(at, HexId(life.job_id()));
  if (!life.node_id().empty()) task.node_id.Offer(at, HexId(life.node_id()));
  if (!life.worker_id().empty()) task.worker_id.Offer(at, HexId(life.worker_id()));
  if (life.worker_pid() != 0) task.worker_pid.Offer(at, life.worker_pid());
  if (life.has_ray_error_info()) {
    const auto& info = life.ray_error_info();
    task.error.Offer(at, TaskError{info.error_type(), info.error_message()});
  }
  if (life.has_actor_repr_name()) task.actor_repr_name.Offer(at, life.actor_repr_name());
  if (life.has_is_debugger_paused()) task.is_debugger_paused.Offer(at, life.is_debugger_paused());
  if (life.has_task_log_info()) {
    const auto& log = life.task_log_info();
    if (log.has_stdout_file()) task.stdout_file.Offer(at, log.stdout_file());
    if (log.has_stderr_file()) task.stderr_file.Offer(at, log.stderr_file());
    if (log.has_stdout_start()) task.stdout_start.Offer(at, log.stdout_start());
    if (log.has_stdout_end()) task.stdout_end.Offer(at, log.stdout_end());
    if (log.has_stderr_start()) task.stderr_start.Offer(at, log.stderr_start());
    if (log.has_stderr_end()) task.stderr_end.Offer(at, log.stderr_end());
  }
}

void FoldProfile(const ray::rpc::events::TaskProfileEvents& profile, FoldedSession& into) {
  TaskRecord& task = TaskFor(into, profile.task_id(), profile.attempt_number());
  if (!profile.job_id().empty()) {
    // A profile event is not a lifecycle event: it only fills the job id
    // when nothing else will (version kNoTime + 1 loses to any lifecycle).
    task.lifecycle_job_id.Offer(kNoTime + 1, HexId(profile.job_id()));
  }
  const auto& events = profile.profile_events();
  for (const auto& entry : events.events()) {
    ProfileSpan span;
    span.event_name = entry.event_name();
    span.start_ns = entry.start_time();
    span.end_ns = entry.end_time();
    span.extra_data = entry.extra_data();
    span.component_type = events.component_type();
    span.component_id = HexId(events.component_id());
    span.node_ip = events.node_ip_address();
    task.AddSpan(std::move(span));
  }
}

void FoldActorDefinition(const ray::rpc::events::ActorDefinitionEvent& def, int64_t at,
                         FoldedSession& into) {
  ActorRecord& actor = into.actors[HexId(def.actor_id())];
  actor.actor_id = HexId(def.actor_id());
  ActorDefinition d;
  d.job_id = HexId(def.job_id());
  d.name = def.name();
  d.ray_namespace = def.ray_namespace();
  d.class_name = def.class_name();
  d.serialized_runtime_env = def.serialized_runtime_env();
  d.required_resources = MapJson(def.required_resources());
  d.placement_group_id = HexId(def.placement_group_id());
  d.label_selector = MapJson(def.label_selector());
  d.call_site = def.call_site();
  d.parent_id = HexId(def.parent_id());
  d.is_detached = def.is_detached();
  actor.definition.Offer(at, d);
}

void FoldActorLifecycle(const ray::rpc::events::ActorLifecycleEvent& life, FoldedSession& into) {
  ActorRecord& actor = into.actors[HexId(life.actor_id())];
  actor.actor_id = HexId(life.actor_id());
  for (const auto& t : life.state_transitions()) {
    ActorTransition transition;
    transition.state = t.state();
    transition.time_ns = Nanos(t.timestamp());
    transition.node_id = HexId(t.node_id());
    transition.worker_id = HexId(t.worker_id());
    transition.repr_name = t.repr_name();
    transition.pid = t.pid();
    transition.port = t.port();
    transition.restart_reason = t.restart_reason();
    if (t.has_death_cause()) transition.death_cause = MessageJson(t.death_cause());
    actor.AddTransition(std::move(transition));
  }
}

void FoldJobDefinition(const ray::rpc::events::DriverJobDefinitionEvent& def, int64_t at,
                       FoldedSession& into) {
  JobRecord& job = into.jobs[HexId(def.job_id())];
  job.job_id = HexId(def.job_id());
  JobDefinition d;
  d.entrypoint = def.entrypoint();
  d.driver_node_id = HexId(def.driver_node_id());
  d.driver_pid = def.driver_pid();
  d.serialized_runtime_env = def.config().serialized_runtime_env();
  d.metadata = MapJson(def.config().metadata());
  job.definition.Offer(at, d);
}

void FoldJobLifecycle(const ray::rpc::events::DriverJobLifecycleEvent& life, FoldedSession& into) {
  JobRecord& job = into.jobs[HexId(life.job_id())];
  job.job_id = HexId(life.job_id());
  for (const auto& t : life.state_transitions()) {
    JobTransition transition;
    transition.state = t.state();
    transition.time_ns = Nanos(t.timestamp());
    transition.message = t.message();
    transition.error_type = t.error_type();
    if (t.has_exit_code()) transition.exit_code = t.exit_code();
    job.AddTransition(std::move(transition));
  }
}

void FoldNodeDefinition(const ray::rpc::events::NodeDefinitionEvent& def, int64_t at,
                        FoldedSession& into) {
  NodeRecord& node = into.nodes[HexId(def.node_id())];
  node.node_id = HexId(def.node_id());
  NodeDefinition d;
  d.ip = def.node_ip_address();
  d.hostname = def.hostname();
  d.node_name = def.node_name();
  d.instance_id = def.instance_id();
  d.instance_type = def.instance_type_name();
  d.labels = MapJson(def.labels());
  d.start_ns = Nanos(def.start_timestamp());
  node.definition.Offer(at, d);
}

void FoldNodeLifecycle(const ray::rpc::events::NodeLifecycleEvent& life, FoldedSession& into) {
  NodeRecord& node = into.nodes[HexId(life.node_id())];
  node.node_id = HexId(life.node_id());
  for (const auto& t : life.state_transitions()) {
    NodeTransition transition;
    transition.state = t.state();
    transition.time_ns = Nanos(t.timestamp());
    if (t.has_death_info()) {
      transition.death_reason = t.death_info().reason();
      transition.death_message = t.death_info().reason_message();
    }
    transition.resources = MapJson(t.resources());
    node.AddTransition(std::move(transition));
  }
}

void FoldWorkerDefinition(const ray::rpc::events::WorkerDefinitionEvent& def, int64_t at,
                          FoldedSession& into) {
  WorkerRecord& worker = into.workers[HexId(def.worker_id())];
  worker.worker_id = HexId(def.worker_id());
  worker.definition.Offer(at, WorkerDefinition{HexId(def.node_id()), def.worker_type(), def.pid()});
}

void FoldWorkerLifecycle(const ray::rpc::events::WorkerLifecycleEvent& life, int64_t at,
                         FoldedSession& into) {
  WorkerRecord& worker = into.workers[HexId(life.worker_id())];
  worker.worker_id = HexId(life.worker_id());
  if (!life.job_id().empty()) worker.job_id.Offer(at, HexId(life.job_id()));
  for (const auto& t : life.state_transitions()) {
    WorkerTransition transition;
    transition.state = t.state();
    transition.time_ns = Nanos(t.timestamp());
    if (t.has_death_info()) {
      transition.exit_type = t.death_info().exit_type();
      transition.exit_detail = t.death_info().exit_detail();
    }
    worker.AddTransition(std::move(transition));
  }
}

}  // namespace

std::string HexId(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kDigits[b >> 4];
    out[2 * i + 1] = kDigits[b & 15];
  }
  return out;
}

void FoldEvent(const RayEvent& event, FoldedSession& into) {
  ++into.counters.events;
  const int64_t at = Nanos(event.timestamp());
  if (event.has_timestamp()) {
    if (into.first_event_ns == kNoTime || at < into.first_event_ns) into.first_event_ns = at;
    if (at > into.last_event_ns) into.last_event_ns = at;
  }
  bool used = false;
  auto empty_id = [&](std::string_view id) {
    if (!id.empty()) return false;
    ++into.counters.events_without_id;
    used = true;
    return true;
  };
  if (event.has_task_definition_event()) {
    if (!empty_id(event.task_definition_event().task_id())) {
      FoldTaskDefinition(event.task_definition_event(), at, into);
      used = true;
    }
  }
  if (event.has_actor_task_definition_event()) {
    if (!empty_id(event.actor_task_definition_event().task_id())) {
      FoldActorTaskDefinition(event.actor_task_definition_event(), at, into);
      used = true;
    }
  }
  if (event.has_task_lifecycle_event()) {
    if (!empty_id(event.task_lifecycle_event().task_id())) {
      FoldTaskLifecycle(event.task_lifecycle_event(), at, into);
      used = true;
    }
  }
  if (event.has_task_profile_events()) {
    if (!empty_id(event.task_profile_events().task_id())) {
      FoldProfile(event.task_profile_events(), into);
      used = true;
    }
  }
  if (event.has_actor_definition_event()) {
    if (!empty_id(event.actor_definition_event().actor_id())) {
      FoldActorDefinition(event.actor_definition_event(), at, into);
      used = true;
    }
  }
  if (event.has_actor_lifecycle_event()) {
    if (!empty_id(event.actor_lifecycle_event().actor_id())) {
      FoldActorLifecycle(event.actor_lifecycle_event(), into);
      used = true;
    }
  }
  if (event.has_driver_job_definition_event()) {
    if (!empty_id(event.driver_job_definition_event().job_id())) {
      FoldJobDefinition(event.driver_job_definition_event(), at, into);
      used = true;
    }
  }
  if (event.has_driver_job_lifecycle_event()) {
    if (!empty_id(event.driver_job_lifecycle_event().job_id())) {
      FoldJobLifecycle(event.driver_job_lifecycle_event(), into);
      used = true;
    }
  }
  if (event.has_node_definition_event()) {
    if (!empty_id(event.node_definition_event().node_id())) {
      FoldNodeDefinition(event.node_definition_event(), at, into);
      used = true;
    }
  }
  if (event.has_node_lifecycle_event()) {
    if (!empty_id(event.node_lifecycle_event().node_id())) {
      FoldNodeLifecycle(event.node_lifecycle_event(), into);
      used = true;
    }
  }
  if (event.has_worker_definition_event()) {
    if (!empty_id(event.worker_definition_event().worker_id())) {
      FoldWorkerDefinition(event.worker_definition_event(), at, into);
      used = true;
    }
  }
  if (event.has_worker_lifecycle_event()) {
    if (!empty_id(event.worker_lifecycle_event().worker_id())) {
      FoldWorkerLifecycle(event.worker_lifecycle_event(), at, into);
      used = true;
    }
  }
  if (!used) ++into.counters.ignored_events;
  // A rough memory account: the event's size is a fair proxy for what it adds.
  into.approximate_bytes += 64 + static_cast<uint64_t>(event.ByteSizeLong());
}

void FoldedSession::Merge(FoldedSession&& other) {
  for (auto& [key, task] : other.tasks) {
    auto [it, inserted] = tasks.try_emplace(key, std::move(task));
    if (!inserted) it->second.Merge(task);
  }
  for (auto& [id, actor] : other.actors) {
    auto [it, inserted] = actors.try_emplace(id, std::move(actor));
    if (!inserted) it->second.Merge(actor);
  }
  for (auto& [id, job] : other.jobs) {
    auto [it, inserted] = jobs.try_emplace(id, std::move(job));
    if (!inserted) it->second.Merge(job);
  }
  for (auto& [id, node] : other.nodes) {
    auto [it, inserted] = nodes.try_emplace(id, std::move(node));
    if (!inserted) it->second.Merge(node);
  }
  for (auto& [id, worker] : other.workers) {
    auto [it, inserted] = workers.try_emplace(id, std::move(worker));
    if (!inserted) it->second.Merge(worker);
  }
  if (other.first_event_ns != kNoTime &&
      (first_event_ns == kNoTime || other.first_event_ns < first_event_ns)) {
    first_event_ns = other.first_event_ns;
  }
  last_event_ns = std::max(last_event_ns, other.last_event_ns);
  counters.events += other.counters.events;
  counters.ignored_events += other.counters.ignored_events;
  counters.events_without_id += other.counters.events_without_id;
  approximate_bytes += other.approximate_bytes;
  other = FoldedSession();
}

}  // namespace rayagg::history
