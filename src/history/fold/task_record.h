// What the task history knows about one task attempt, one actor, one job, one
// node and one worker, folded from Ray's events (docs/HISTORY.md "How events
// become tasks").
//
// Every record is a join-semilattice: Merge(a, b) is commutative, associative
// and idempotent, so the events of a task can arrive in any order, in any
// number of objects and batches, any number of times, and fold to the same
// record. That is what lets the indexer fold a batch in memory and merge the
// result with what the index already holds. The rules:
//   - state transitions: a set keyed by (state, time);
//   - a definition: the one with the greatest (event time, content) wins as a
//     whole;
//   - a value carried by lifecycle events (node, worker, pid, error, ...):
//     the one from the latest event carrying it, ties broken by the value;
//   - profile spans: a set.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rayagg::history {

// Ray's TaskStatus values the rules need (common.proto).
inline constexpr int32_t kPendingArgsAvail = 1;
inline constexpr int32_t kRunning = 8;
inline constexpr int32_t kFinished = 11;
inline constexpr int32_t kFailed = 12;
// States that exist only in the history: a task without a terminal
// transition whose job finished, or whose node died (the raw last state is
// kept beside it). Outside Ray's enum on purpose.
inline constexpr int32_t kUnknownJobFinished = 1001;
inline constexpr int32_t kUnknownNodeDied = 1002;
inline constexpr int64_t kNoTime = INT64_MIN;

bool IsTerminalTaskState(int32_t state);
// "RUNNING", "UNKNOWN_JOB_FINISHED", or the number for an unknown value.
std::string TaskStateName(int32_t state);
// The inverse, for filters; nullopt for a name that is no state.
std::optional<int32_t> TaskStateFromName(std::string_view name);

struct TaskTransition {
  int32_t state = 0;
  int64_t time_ns = 0;
  friend auto operator<=>(const TaskTransition&, const TaskTransition&) = default;
};

// A value that lifecycle events carry, versioned by the time of the event
// that carried it: the latest wins, ties broken by the greater value.
template <typename T>
struct Versioned {
  int64_t version = kNoTime;  // kNoTime: never set
  T value{};
  bool has() const { return version != kNoTime; }
  void Offer(int64_t at, const T& candidate) {
    if (at > version || (at == version && value < candidate)) {
      version = at;
      value = candidate;
    }
  }
  void Merge(const Versioned& other) {
    if (other.has()) Offer(other.version, other.value);
  }
  friend bool operator==(const Versioned&, const Versioned&) = default;
};

struct TaskError {
  int32_t error_type = -1;  // Ray's ErrorType; -1: none given
  std::string message;      // may hold a stack trace
  friend auto operator<=>(const TaskError&, const TaskError&) = default;
};

struct ProfileSpan {
  std::string event_name;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string extra_data;
  std::string component_type;
  std::string component_id;  // hex
  std::string node_ip;
  friend auto operator<=>(const ProfileSpan&, const ProfileSpan&) = default;
};

// Everything a definition event says; replaced as a whole.
struct TaskDefinition {
  int32_t task_type = 0;  // NORMAL_TASK
  int32_t language = 0;
  std::string func_name;  // module.Class.function as Ray's State API shows it
  std::string task_name;
  std::string job_id;  // hex
  std::string parent_task_id;
  std::string placement_group_id;
  std::string actor_id;            // actor tasks only
  std::string required_resources;  // JSON object text
  std::string serialized_runtime_env;
  std::string label_selector;  // JSON object text
  std::string call_site;
  bool is_detached_actor = false;
  friend auto operator<=>(const TaskDefinition&, const TaskDefinition&) = default;
};

struct TaskRecord {
  std::string task_id;  // hex
  int32_t attempt = 0;

  Versioned<TaskDefinition> definition;
  // Sorted by (time, state), no duplicates.
  std::vector<TaskTransition> transitions;
  Versioned<std::string> lifecycle_job_id;  // when the definition is missing
  Versioned<std::string> node_id;
  Versioned<std::string> worker_id;
  Versioned<int32_t> worker_pid;
  Versioned<TaskError> error;
  Versioned<std::string> actor_repr_name;
  Versioned<bool> is_debugger_paused;
  // taskLogInfo fields, each merged on its own (Ray sends them in parts).
  Versioned<std::string> stdout_file, stderr_file;
  Versioned<int64_t> stdout_start, stdout_end, stderr_start, stderr_end;
  // Sorted, no duplicates.
  std::vector<ProfileSpan> profile;

  void Merge(const TaskRecord& other);
  void AddTransition(TaskTransition transition);
  void AddSpan(ProfileSpan span);

  // ---- Derived (pure functions of the above) ----
  // The last transition's state, or 0 (NIL) without transitions.
  int32_t raw_state() const;
  int64_t creation_ns() const;  // first PENDING_ARGS_AVAIL, else kNoTime
  int64_t start_ns() const;     // first RUNNING
  int64_t end_ns() const;       // last FINISHED or FAILED
  int64_t last_transition_ns() const;
  const std::string& job_id() const;
  bool has_log_info() const;

  friend bool operator==(const TaskRecord&, const TaskRecord&) = default;
};

// Durations in ns, or kNoTime when an end is missing.
struct TaskDurations {
  int64_t pending_ns = kNoTime;  // creation -> running
  int64_t running_ns = kNoTime;  // running -> end
  int64_t total_ns = kNoTime;    // creation -> end
};
TaskDurations DurationsOf(const TaskRecord& task);

// The exception class named by a Python or Java error message ("ValueError",
// "ray.exceptions.RayTaskError(ZeroDivisionError)" -> "ZeroDivisionError"),
// or "" when none can be told. Never looks past the first 64 KiB.
std::string ExceptionClassOf(std::string_view error_message);

// ---- Actors, jobs, nodes, workers ----

struct ActorTransition {
  int32_t state = 0;  // ActorLifecycleEvent.State
  int64_t time_ns = 0;
  std::string node_id, worker_id, repr_name;
  uint32_t pid = 0;
  int32_t port = 0;
  int32_t restart_reason = 0;
  std::string death_cause;  // JSON object text (proto3 JSON), DEAD only
  friend auto operator<=>(const ActorTransition&, const ActorTransition&) = default;
};

struct ActorDefinition {
  std::string job_id, name, ray_namespace, class_name, serialized_runtime_env, required_resources,
      placement_group_id, label_selector, call_site, parent_id;
  bool is_detached = false;
  friend auto operator<=>(const ActorDefinition&, const ActorDefinition&) = default;
};

struct ActorRecord {
  std::string actor_id;  // hex
  Versioned<ActorDefinition> definition;
  std::vector<ActorTransition> transitions;  // sorted, unique by (time, state, ...)
  void Merge(const ActorRecord& other);
  void AddTransition(ActorTransition transition);
  int32_t state() const;     // last transition's, -1 without
  int64_t start_ns() const;  // first ALIVE
  int64_t end_ns() const;    // DEAD
  int32_t restarts() const;  // RESTARTING transitions
  friend bool operator==(const ActorRecord&, const ActorRecord&) = default;
};

struct JobTransition {
  int32_t state = 0;  // DriverJobLifecycleEvent.State: CREATED 1, FINISHED 2
  int64_t time_ns = 0;
  std::string message, error_type;
  std::optional<int32_t> exit_code;
  friend auto operator<=>(const JobTransition&, const JobTransition&) = default;
};

struct JobDefinition {
  std::string entrypoint, driver_node_id, serialized_runtime_env, metadata;  // metadata: JSON
  int64_t driver_pid = 0;
  friend auto operator<=>(const JobDefinition&, const JobDefinition&) = default;
};

struct JobRecord {
  std::string job_id;  // hex
  Versioned<JobDefinition> definition;
  std::vector<JobTransition> transitions;
  void Merge(const JobRecord& other);
  void AddTransition(JobTransition transition);
  int64_t finished_ns() const;  // kNoTime while not finished
  int64_t start_ns() const;
  friend bool operator==(const JobRecord&, const JobRecord&) = default;
};

struct NodeTransition {
  int32_t state = 0;  // ALIVE 0, DEAD 1
  int64_t time_ns = 0;
  int32_t death_reason = 0;
  std::string death_message;
  std::string resources;  // JSON
  friend auto operator<=>(const NodeTransition&, const NodeTransition&) = default;
};

struct NodeDefinition {
  std::string ip, hostname, node_name, instance_id, instance_type, labels;  // labels: JSON
  int64_t start_ns = 0;
  friend auto operator<=>(const NodeDefinition&, const NodeDefinition&) = default;
};

struct NodeRecord {
  std::string node_id;  // hex
  Versioned<NodeDefinition> definition;
  std::vector<NodeTransition> transitions;
  void Merge(const NodeRecord& other);
  void AddTransition(NodeTransition transition);
  int64_t dead_ns() const;  // kNoTime while alive
  friend bool operator==(const NodeRecord&, const NodeRecord&) = default;
};

struct WorkerTransition {
  int32_t state = 0;  // ALIVE 0, DEAD 1
  int64_t time_ns = 0;
  int32_t exit_type = -1;
  std::string exit_detail;
  friend auto operator<=>(const WorkerTransition&, const WorkerTransition&) = default;
};

struct WorkerDefinition {
  std::string node_id;
  int32_t worker_type = 0;
  uint32_t pid = 0;
  friend auto operator<=>(const WorkerDefinition&, const WorkerDefinition&) = default;
};

struct WorkerRecord {
  std::string worker_id;  // hex
  Versioned<WorkerDefinition> definition;
  Versioned<std::string> job_id;
  std::vector<WorkerTransition> transitions;
  void Merge(const WorkerRecord& other);
  void AddTransition(WorkerTransition transition);
  friend bool operator==(const WorkerRecord&, const WorkerRecord&) = default;
};

}  // namespace rayagg::history
