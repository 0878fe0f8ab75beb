// The simulated Ray cluster's model: its nodes, jobs and actors (the
// layout, fixed by the options), and the plan of every task — when each
// attempt was created, waited, ran and ended, where, and how it failed.
// A plan is a pure function of the layout and the task's index, so the
// emitter (sim_cluster.h) and the expectation (sim_expectation.h) compute
// the same facts independently and in any order, without holding a
// session in memory.
//
// Simulated time is nanoseconds since the session's start; the options map
// it onto wall-clock time (the events' timestamps).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "demo/sim_catalog.h"

namespace rayagg::demo {

inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct SimOptions {
  uint64_t seed = 1;
  int64_t epoch_ns = 0;  // wall-clock time of simulated time 0 (ns since the Unix epoch)
  // Ray's session name (session_YYYY-MM-DD_HH-MM-SS_ffffff_pid); empty:
  // derived from epoch_ns and the seed.
  std::string session_name;
  uint64_t tasks = 300;         // normal and actor tasks submitted
  double tasks_per_second = 5;  // how fast they are submitted
  int64_t end_ns = kNever;      // nothing at or after this is sent
  int worker_nodes = 4;         // besides the head; at least 3
};

// A small fixed session: the browser tests' data set (ui-contract.md §4).
SimOptions FixtureOptions();
// `duration` of live-looking traffic starting at `epoch_ns`: submissions
// stop a little before the end so most tasks finish.
SimOptions DemoOptions(uint64_t seed, int64_t epoch_ns, int64_t duration_ns,
                       double tasks_per_second);
// `tasks` tasks, then time for every task to end (the benchmarks' sessions).
SimOptions StoreOptions(uint64_t seed, uint64_t tasks, double tasks_per_second);

struct SimNode {
  std::string id;  // 28 bytes
  std::string ip, hostname, instance_id, instance_type;
  bool head = false;
  double cpus = 0, gpus = 0, memory_gib = 0;
  int64_t dies_at = kNever;
};

struct SimJob {
  std::string id;  // 4 bytes
  std::string driver_task_id;
  std::string entrypoint, runtime_env, submission_id;
  int64_t start = 0, end = kNever;  // end: its driver exits (FINISHED)
  int64_t submit_until = kNever;    // no task is submitted to it after this
  int32_t driver_pid = 0;
};

struct SimActor {
  std::string id;  // 16 bytes: 12 unique and the job id
  size_t class_index = 0;
  std::string name;
  size_t job = 1;
  size_t node = 0, node_after_restart = 0;
  int64_t created = 0, alive = 0;
  int64_t restarting = kNever, alive_again = kNever;  // its node died, it came back
  int64_t killed = kNever;                            // ray.kill
  uint32_t worker_slot = 0, worker_slot_after_restart = 0;
};

enum class TaskKind : uint8_t { kNormal, kActorTask, kActorCreation };

// One attempt; kNever marks a step it never reached.
struct AttemptPlan {
  int64_t created = kNever;     // definition, PENDING_ARGS_AVAIL
  int64_t args_ready = kNever;  // PENDING_NODE_ASSIGNMENT (normal tasks)
  int64_t submitted = kNever;   // SUBMITTED_TO_WORKER: a lease was granted
  int64_t running = kNever;     // RUNNING
  int64_t ended = kNever;       // FINISHED or FAILED (kNever: no owner left to say)
  Failure failure = Failure::kNone;
  uint16_t node = 0;   // where it ran
  uint16_t owner = 0;  // who reports pending and end states
  uint32_t worker_slot = 0;
};

struct TaskPlan {
  uint64_t index = 0;  // stream tasks first, then the actors' creation tasks
  TaskKind kind = TaskKind::kNormal;
  uint16_t function = 0;  // Functions() for normal tasks, else ActorClasses()
  uint16_t job = 0;
  int16_t actor = -1;
  uint8_t attempt_count = 0;
  std::array<AttemptPlan, 3> attempts{};
};

// The cluster every plan is made in.
class SimLayout {
 public:
  explicit SimLayout(SimOptions options);

  const SimOptions& options() const { return options_; }
  const std::string& session_name() const { return session_name_; }
  const std::vector<SimNode>& nodes() const { return nodes_; }
  const std::vector<SimJob>& jobs() const { return jobs_; }
  const std::vector<SimActor>& actors() const { return actors_; }
  size_t dead_node() const { return dead_node_; }
  // Simulated time of the session's end: options.end_ns, or when the last
  // task has ended.
  int64_t end_ns() const { return end_ns_; }
  // Stream tasks and the actors' creation tasks.
  uint64_t task_count() const { return options_.tasks + actors_.size(); }

  TaskPlan Plan(uint64_t index) const;
  int64_t SubmitTime(uint64_t index) const;

  // Ids and names Ray would report.
  std::string TaskId(const TaskPlan& plan) const;  // 24 bytes
  std::string WorkerId(uint16_t node, uint32_t slot) const;
  int32_t WorkerPid(uint16_t node, uint32_t slot) const;
  std::string FunctionName(const TaskPlan& plan) const;  // e.g. "ModelServer.predict"
  std::string TaskName(const TaskPlan& plan) const;      // the xss task's own name
  std::string RuntimeEnv(const TaskPlan& plan) const;
  std::string Token(const TaskPlan& plan, int attempt) const;  // unique text of a trace

  // Tasks the fixture names (ui-contract.md §4), by index.
  uint64_t xss_task() const { return options_.tasks / 3; }
  uint64_t secret_task() const { return options_.tasks / 4; }
  uint64_t retried_task() const { return std::min<uint64_t>(7, options_.tasks - 1); }
  // Two tasks on the node that dies, running when it does: one is retried
  // elsewhere (NODE_DIED), the other's owner died with it (no end: the
  // history reconciles it as UNKNOWN_NODE_DIED).
  uint64_t node_killed_task() const { return orphan_task_ - 1; }
  uint64_t orphan_task() const { return orphan_task_; }
  const std::string& secret_value() const { return secret_value_; }

  // Whether an event of `job` that `node` emits at `at` gets out: the
  // session has not ended, the job's driver is alive, the node too.
  bool Sent(int64_t at, size_t node, size_t job) const;

 private:
  TaskPlan PlanNormal(uint64_t index, int64_t submit, size_t job, uint64_t h) const;
  TaskPlan PlanActorTask(uint64_t index, int64_t submit, size_t job, size_t actor) const;
  TaskPlan PlanCreation(uint64_t index) const;
  size_t PickJob(uint64_t index, int64_t at) const;
  int PickActor(uint64_t index, int64_t at) const;

  SimOptions options_;
  std::string session_name_, secret_value_;
  std::vector<SimNode> nodes_;
  std::vector<SimJob> jobs_;
  std::vector<SimActor> actors_;
  size_t dead_node_ = 0, gpu_node_ = 1;
  uint64_t orphan_task_ = 1;
  int64_t end_ns_ = kNever;
};

}  // namespace rayagg::demo
