#include "demo/sim_model.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "demo/sim_random.h"

namespace rayagg::demo {
namespace {

// What each hash is for: one tag per fact, so facts never share randomness.
enum ModelTag : uint64_t {
  kSessionPid = 1,
  kNodeId,
  kNodeText,
  kJobText,
  kActorId,
  kSubmit,
  kTaskShape,  // kind, job, function, failure draws
  kTaskTimes,
  kTaskId,
  kWorkerId,
  kWorkerPid,
  kTraceToken,
  kSecret,
  kDriverTask,
};

int64_t Seconds(double s) { return static_cast<int64_t>(s * 1e9); }

// A log-normal duration: most near `median`, a long right tail.
int64_t LogNormal(double median_s, double sigma, uint64_t h1, uint64_t h2) {
  return Seconds(median_s * std::exp(sigma * Normal(h1, h2)));
}

std::string HexOf(uint64_t value, int digits) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return std::string(text + 16 - digits);
}

std::string SessionName(uint64_t seed, int64_t epoch_ns) {
  const time_t seconds = static_cast<time_t>(epoch_ns / kSecond);
  tm utc{};
  gmtime_r(&seconds, &utc);
  char text[80];
  std::snprintf(text, sizeof(text), "session_%04d-%02d-%02d_%02d-%02d-%02d_%06lld_%llu",
                utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                utc.tm_sec, static_cast<long long>(epoch_ns % kSecond / 1000),
                static_cast<unsigned long long>(1000 + Hash(seed, kSessionPid) % 60000));
  return text;
}

std::string JobId(size_t job) { return std::string{static_cast<char>(job + 1), 0, 0, 0}; }

}  // namespace

SimOptions FixtureOptions() {
  SimOptions options;
  options.seed = 31;
  options.epoch_ns = 1'780'315'200LL * kSecond;  // 2026-06-01T12:00:00Z
  options.tasks = 300;
  options.tasks_per_second = 5;  // 60 s of submissions
  options.end_ns = 75 * kSecond;
  options.worker_nodes = 4;
  return options;
}

SimOptions DemoOptions(uint64_t seed, int64_t epoch_ns, int64_t duration_ns,
                       double tasks_per_second) {
  SimOptions options;
  options.seed = seed;
  options.epoch_ns = epoch_ns;
  options.tasks_per_second = tasks_per_second;
  options.tasks =
      static_cast<uint64_t>(tasks_per_second * 0.92 * static_cast<double>(duration_ns) / kSecond);
  options.end_ns = duration_ns;
  return options;
}

SimOptions StoreOptions(uint64_t seed, uint64_t tasks, double tasks_per_second) {
  SimOptions options;
  options.seed = seed;
  options.epoch_ns = 1'780'315'200LL * kSecond;
  options.tasks = tasks;
  options.tasks_per_second = tasks_per_second;
  return options;
}

SimLayout::SimLayout(SimOptions options) : options_(std::move(options)) {
  const uint64_t seed = options_.seed;
  options_.tasks = std::max<uint64_t>(options_.tasks, 1);
  options_.worker_nodes = std::clamp(options_.worker_nodes, 3, 200);
  session_name_ =
      options_.session_name.empty() ? SessionName(seed, options_.epoch_ns) : options_.session_name;
  secret_value_ = "demo-secret-" + demo::Token(Hash(seed, kSecret), 16);
  // The span of submissions: the jobs, the node's death and the actor's
  // kill fall at fixed shares of it, whatever the session's length.
  const double span_s = static_cast<double>(options_.tasks) / options_.tasks_per_second;
  const int64_t span = Seconds(span_s);
  end_ns_ = options_.end_ns;

  const int workers = options_.worker_nodes;
  for (int n = 0; n <= workers; ++n) {
    SimNode node;
    node.id = IdBytes(seed, kNodeId, static_cast<uint64_t>(n), 28);
    const uint64_t h = Hash(seed, kNodeText, static_cast<uint64_t>(n));
    node.head = n == 0;
    node.ip =
        "10.0." + std::to_string(n == 0 ? 0 : 1 + n / 200) + "." + std::to_string(10 + n % 200);
    node.hostname = (node.head ? "demo-cluster-head-" : "demo-cluster-worker-") + demo::Token(h, 5);
    node.instance_id = "i-0" + HexOf(h, 16);
    if (node.head) {
      node.instance_type = "m6i.2xlarge", node.cpus = 0, node.memory_gib = 32;
    } else if (n == 1) {
      node.instance_type = "g5.4xlarge", node.cpus = 16, node.gpus = 1, node.memory_gib = 64;
    } else {
      node.instance_type = "m6i.4xlarge", node.cpus = 16, node.memory_gib = 64;
    }
    nodes_.push_back(std::move(node));
  }
  gpu_node_ = 1;
  dead_node_ = static_cast<size_t>(workers);
  nodes_[dead_node_].dies_at = span / 2;
  // Submitted about a second before the node dies.
  const double before_death = static_cast<double>(options_.tasks) / 2 - options_.tasks_per_second;
  orphan_task_ = static_cast<uint64_t>(std::max(before_death, 2.0));
  for (const uint64_t taken : {xss_task(), secret_task(), retried_task()}) {
    if (orphan_task_ == taken || orphan_task_ - 1 == taken) orphan_task_ += 2;
  }

  struct JobShape {
    double start, end;  // shares of the span; end < 0: runs on
    const char* entrypoint;
    const char* env;
  };
  const JobShape shapes[] = {
      {0.0, 0.55, "python etl.py --date 2026-06-01 --shards 4096",
       R"("pip": ["pyarrow==16.1.0", "pandas==2.2.2", "pillow==10.3.0"], )"
       R"("env_vars": {"OMP_NUM_THREADS": "4", "AWS_ACCESS_KEY_ID": "DEMOKEY$1", )"
       R"("AWS_SECRET_ACCESS_KEY": "demo-$2"$3}, "working_dir": "s3://demo-artifacts/etl/$4.zip")"},
      {0.03, -1, "python train.py --model llama-3-8b --adapter lora --epochs 20",
       R"("pip": ["torch==2.3.1", "transformers==4.44.0", "peft==0.12.0"], )"
       R"("env_vars": {"WANDB_API_KEY": "demo-$2", "HF_TOKEN": "hf_demo$1", )"
       R"("NCCL_DEBUG": "WARN"$3}, "working_dir": "s3://demo-artifacts/train/$4.zip")"},
      {0.45, 0.9, "python nightly_eval.py --suite full --report html",
       R"("pip": ["scikit-learn==1.5.1", "jinja2==3.1.4"], )"
       R"("env_vars": {"DB_PASSWORD": "demo-$2", "REPORT_BUCKET": "s3://demo-reports"$3}, )"
       R"("working_dir": "s3://demo-artifacts/eval/$4.zip")"},
  };
  for (size_t j = 0; j < std::size(shapes); ++j) {
    SimJob job;
    job.id = JobId(j);
    job.driver_task_id = IdBytes(seed, kDriverTask, j, 8) + std::string(12, '\xff') + job.id;
    job.entrypoint = shapes[j].entrypoint;
    job.start = Seconds(shapes[j].start * span_s);
    if (shapes[j].end >= 0) {
      job.end = Seconds(shapes[j].end * span_s);
      job.submit_until = job.end - std::min<int64_t>(5 * kSecond, span / 30);
    }
    const uint64_t h = Hash(seed, kJobText, j);
    job.driver_pid = static_cast<int32_t>(3000 + h % 50000);
    job.submission_id = "raysubmit_" + demo::Token(h >> 8, 16);
    job.runtime_env = shapes[j].env;
    jobs_.push_back(std::move(job));
  }

  // Actors of the training job: two model servers (the first on the node
  // that dies: it restarts elsewhere), a parameter server on the GPU node,
  // and a metrics logger that the driver kills.
  const char* names[] = {"model-server-0", "model-server-1", "parameter-server", "metrics-logger"};
  const size_t homes[] = {dead_node_, 2, gpu_node_, 2};
  for (size_t a = 0; a < std::size(names); ++a) {
    SimActor actor;
    actor.id = IdBytes(seed, kActorId, a, 12) + jobs_[1].id;
    actor.class_index = a;
    actor.name = names[a];
    actor.job = 1;
    actor.node = actor.node_after_restart = homes[a];
    actor.created = jobs_[1].start + kSecond + static_cast<int64_t>(a) * kSecond / 2;
    actor.alive = actor.created + 2 * kSecond;
    actor.worker_slot = static_cast<uint32_t>(100 + a);
    actor.worker_slot_after_restart = static_cast<uint32_t>(200 + a);
    actors_.push_back(std::move(actor));
  }
  actors_[0].restarting = nodes_[dead_node_].dies_at + kSecond / 3;
  actors_[0].alive_again = nodes_[dead_node_].dies_at + 4 * kSecond;
  actors_[0].node_after_restart = 2;
  actors_[3].killed = span * 3 / 4;
}

int64_t SimLayout::SubmitTime(uint64_t index) const {
  const double at = (static_cast<double>(index) + Unit(Hash(options_.seed, kSubmit, index))) /
                    options_.tasks_per_second;
  return Seconds(at);
}

bool SimLayout::Sent(int64_t at, size_t node, size_t job) const {
  return at != kNever && at < end_ns_ && at < jobs_[job].end && at < nodes_[node].dies_at;
}

size_t SimLayout::PickJob(uint64_t index, int64_t at) const {
  size_t open[8];
  size_t count = 0;
  for (size_t j = 0; j < jobs_.size(); ++j) {
    if (jobs_[j].start <= at && at < jobs_[j].submit_until) open[count++] = j;
  }
  if (count == 0) return at >= jobs_[1].start ? 1 : 0;
  return open[Hash(options_.seed, kTaskShape, index, 1) % count];
}

int SimLayout::PickActor(uint64_t index, int64_t at) const {
  int open[8];
  int count = 0;
  for (size_t a = 0; a < actors_.size(); ++a) {
    const SimActor& actor = actors_[a];
    const bool first_life = actor.alive <= at && at < std::min(actor.restarting, actor.killed);
    const bool second_life = actor.alive_again <= at && at < actor.killed;
    if (first_life || second_life) open[count++] = static_cast<int>(a);
  }
  if (count == 0) return -1;
  return open[Hash(options_.seed, kTaskShape, index, 2) % static_cast<uint64_t>(count)];
}

TaskPlan SimLayout::Plan(uint64_t index) const {
  if (index >= options_.tasks) return PlanCreation(index);
  const int64_t submit = SubmitTime(index);
  const size_t job = PickJob(index, submit);
  const uint64_t h = Hash(options_.seed, kTaskShape, index);
  const bool on_dying_node = index == orphan_task() || index == node_killed_task();
  const bool named =
      index == xss_task() || index == secret_task() || index == retried_task() || on_dying_node;
  if (on_dying_node) return PlanNormal(index, submit, 1, h);
  if (!named && job == 1 && Unit(h) < 0.3) {
    if (const int actor = PickActor(index, submit); actor >= 0) {
      return PlanActorTask(index, submit, job, static_cast<size_t>(actor));
    }
  }
  return PlanNormal(index, submit, job, h);
}

TaskPlan SimLayout::PlanNormal(uint64_t index, int64_t submit, size_t job, uint64_t h) const {
  const uint64_t seed = options_.seed;
  TaskPlan plan;
  plan.index = index;
  plan.kind = TaskKind::kNormal;
  plan.job = static_cast<uint16_t>(job);
  // The function: weighted among the job's.
  const auto functions = Functions();
  uint32_t total = 0;
  for (const Function& f : functions) total += (f.jobs >> job & 1) ? f.weight : 0;
  uint32_t pick = static_cast<uint32_t>(Mix64(h) % total);
  for (size_t f = 0; f < functions.size(); ++f) {
    if (!(functions[f].jobs >> job & 1)) continue;
    if (pick < functions[f].weight) {
      plan.function = static_cast<uint16_t>(f);
      break;
    }
    pick -= functions[f].weight;
  }
  const bool forced_retry = index == retried_task();
  const bool on_dying_node = index == orphan_task() || index == node_killed_task();
  const bool forced_clean =
      index == xss_task() || index == secret_task() || forced_retry || on_dying_node;
  if (index == xss_task()) plan.function = 8;  // render_report, named by the user
  if (forced_retry) plan.function = 1;         // decode_images
  if (on_dying_node) plan.function = 7;        // upload_checkpoint
  const Function& f = functions[plan.function];
  const size_t workers = nodes_.size() - 1;
  const int64_t dies_at = nodes_[dead_node_].dies_at;

  int64_t previous_end = submit;
  for (int a = 0; a < 3; ++a) {
    auto r = [&](uint64_t what) {
      return Hash(seed, kTaskTimes, index * 4 + static_cast<uint64_t>(a), what);
    };
    AttemptPlan& p = plan.attempts[static_cast<size_t>(a)];
    plan.attempt_count = static_cast<uint8_t>(a + 1);
    p.owner = 0;  // the driver, on the head node
    p.created = a == 0 ? submit : previous_end + Seconds(0.2 + Unit(r(1)));
    // Arguments: mostly ready at once; one in ten waits for an upstream task.
    p.args_ready = p.created + (Unit(r(2)) < 0.1 ? LogNormal(0.8, 0.6, r(3), r(4))
                                                 : LogNormal(0.003, 0.5, r(3), r(4)));
    // A node: GPU tasks wait for the one GPU node's resources; others now
    // and then for a busy cluster.
    int64_t wait;
    if (f.gpus > 0) {
      wait = LogNormal(15, 0.7, r(5), r(6));
    } else {
      wait = Unit(r(7)) < 0.1 ? LogNormal(0.3, 0.8, r(5), r(6)) : LogNormal(0.004, 0.6, r(5), r(6));
    }
    p.submitted = p.args_ready + wait;
    if (f.gpus > 0) {
      p.node = static_cast<uint16_t>(gpu_node_);
    } else {
      // Any worker node; the dead one only before it died.
      const size_t choices = p.submitted < dies_at ? workers : workers - 1;
      p.node = static_cast<uint16_t>(1 + r(8) % choices);
    }
    p.worker_slot = static_cast<uint32_t>(r(9) % 12);
    p.running = p.submitted + (Unit(r(10)) < 0.05 ? LogNormal(1.2, 0.3, r(11), r(12))
                                                  : LogNormal(0.006, 0.5, r(11), r(12)));
    double factor = Unit(r(13)) < f.tail_share ? f.tail_factor : 1.0;
    int64_t duration = std::clamp<int64_t>(
        static_cast<int64_t>(static_cast<double>(LogNormal(f.median_s, f.sigma, r(14), r(15))) *
                             factor),
        2'000'000, 3600 * kSecond);
    if (forced_clean) duration = Seconds(f.median_s);
    if (on_dying_node && a == 0) {
      p.args_ready = p.created + 1'000'000;
      p.submitted = p.args_ready + 2'000'000;
      p.running = p.submitted + 3'000'000;
      p.node = static_cast<uint16_t>(dead_node_);
      duration = 20 * kSecond;
    }
    const double crash_point = 0.1 + 0.8 * Unit(r(16));
    const int64_t crash_at =
        p.running + static_cast<int64_t>(crash_point * static_cast<double>(duration));
    if (forced_retry && a == 0) {
      p.failure = Failure::kWorkerDied, p.ended = crash_at;
    } else if (!forced_clean && a < 2 && Unit(r(17)) < 0.012) {
      p.failure = Failure::kWorkerDied, p.ended = crash_at;
    } else if (!forced_clean && Unit(r(18)) < f.oom_share) {
      p.failure = Failure::kOutOfMemory, p.ended = crash_at;
    } else if (!forced_clean && Unit(r(19)) < f.exception_share) {
      p.failure = f.exception, p.ended = p.running + duration;
    } else {
      p.ended = p.running + duration;
    }
    // Its node died under it: the owner hears of it within a couple of
    // seconds and retries elsewhere — unless the owner was on that node too
    // (a nested task of the training job), then nobody reports an end.
    if (p.node == dead_node_ && p.submitted < dies_at && dies_at < p.ended) {
      if (index == orphan_task() || (job == 1 && a == 0 && !forced_clean && r(20) % 3 == 0)) {
        p.owner = static_cast<uint16_t>(dead_node_);
        p.failure = Failure::kNone;
        p.ended = kNever;
        break;
      }
      p.failure = Failure::kNodeDied;
      p.ended = dies_at + Seconds(1.5);
    }
    previous_end = p.ended;
    const bool retried = p.failure == Failure::kWorkerDied || p.failure == Failure::kOutOfMemory ||
                         p.failure == Failure::kNodeDied;
    if (!retried || a == 2) break;
  }
  return plan;
}

TaskPlan SimLayout::PlanActorTask(uint64_t index, int64_t submit, size_t job, size_t actor) const {
  const uint64_t seed = options_.seed;
  const SimActor& a = actors_[actor];
  const ActorClass& c = ActorClasses()[a.class_index];
  auto r = [&](uint64_t what) { return Hash(seed, kTaskTimes, index * 4, what); };
  TaskPlan plan;
  plan.index = index;
  plan.kind = TaskKind::kActorTask;
  plan.function = static_cast<uint16_t>(a.class_index);
  plan.job = static_cast<uint16_t>(job);
  plan.actor = static_cast<int16_t>(actor);
  plan.attempt_count = 1;
  AttemptPlan& p = plan.attempts[0];
  p.owner = 0;
  p.created = submit;
  p.submitted = p.created + LogNormal(0.002, 0.5, r(1), r(2));
  p.running = p.submitted + LogNormal(0.001, 0.5, r(3), r(4));
  const double factor = Unit(r(5)) < 0.03 ? 10.0 : 1.0;
  p.ended = p.running + static_cast<int64_t>(
                            static_cast<double>(LogNormal(c.median_s, 0.5, r(6), r(7))) * factor);
  const bool moved = p.running >= a.alive_again;
  p.node = static_cast<uint16_t>(moved ? a.node_after_restart : a.node);
  p.worker_slot = moved ? a.worker_slot_after_restart : a.worker_slot;
  if (p.submitted < a.restarting && a.restarting <= p.ended) {
    p.failure = Failure::kActorDied, p.ended = a.restarting + kSecond / 5;
  } else if (p.submitted < a.killed && a.killed <= p.ended) {
    p.failure = Failure::kActorDied, p.ended = a.killed + kSecond / 20;
  }
  return plan;
}

TaskPlan SimLayout::PlanCreation(uint64_t index) const {
  const SimActor& a = actors_[index - options_.tasks];
  TaskPlan plan;
  plan.index = index;
  plan.kind = TaskKind::kActorCreation;
  plan.function = static_cast<uint16_t>(a.class_index);
  plan.job = static_cast<uint16_t>(a.job);
  plan.actor = static_cast<int16_t>(index - options_.tasks);
  plan.attempt_count = 1;
  auto fill = [](AttemptPlan& p, int64_t created, int64_t alive, size_t node, uint32_t slot) {
    p.created = created;
    p.args_ready = created + 1'000'000;
    p.submitted = alive - 3 * kSecond / 2;
    p.running = alive - kSecond;
    p.ended = alive;
    p.node = static_cast<uint16_t>(node);
    p.worker_slot = slot;
  };
  fill(plan.attempts[0], a.created, a.alive, a.node, a.worker_slot);
  if (a.alive_again != kNever) {
    // Ray restarts an actor by running its creation task again, as the
    // next attempt.
    plan.attempt_count = 2;
    fill(plan.attempts[1], a.restarting + kSecond / 10, a.alive_again, a.node_after_restart,
         a.worker_slot_after_restart);
  }
  return plan;
}

std::string SimLayout::TaskId(const TaskPlan& plan) const {
  const std::string unique = IdBytes(options_.seed, kTaskId, plan.index, 8);
  switch (plan.kind) {
    case TaskKind::kActorTask:
      return unique + actors_[static_cast<size_t>(plan.actor)].id;
    case TaskKind::kActorCreation:
      return std::string(8, '\xff') + actors_[static_cast<size_t>(plan.actor)].id;
    default:
      return unique + std::string(12, '\xff') + jobs_[plan.job].id;
  }
}

std::string SimLayout::WorkerId(uint16_t node, uint32_t slot) const {
  return IdBytes(options_.seed, kWorkerId, uint64_t{node} * 1024 + slot, 28);
}

int32_t SimLayout::WorkerPid(uint16_t node, uint32_t slot) const {
  return static_cast<int32_t>(2000 + Hash(options_.seed, kWorkerPid, uint64_t{node} * 1024 + slot) %
                                         60000);
}

std::string SimLayout::FunctionName(const TaskPlan& plan) const {
  if (plan.kind == TaskKind::kNormal) return Functions()[plan.function].name;
  const ActorClass& c = ActorClasses()[plan.function];
  return std::string(c.name) + "." +
         (plan.kind == TaskKind::kActorCreation ? "__init__" : c.method);
}

std::string SimLayout::TaskName(const TaskPlan& plan) const {
  // A user may name a task anything (.options(name=...)): the page must
  // show this one as text.
  if (plan.kind == TaskKind::kNormal && plan.index == xss_task()) {
    return "<img src=x onerror=alert(1)>";
  }
  return FunctionName(plan);
}

std::string SimLayout::RuntimeEnv(const TaskPlan& plan) const {
  const uint64_t h = Hash(options_.seed, kJobText, plan.job, 7);
  std::string env = jobs_[plan.job].runtime_env;
  auto replace = [&env](std::string_view key, const std::string& value) {
    const size_t at = env.find(key);
    if (at != std::string::npos) env.replace(at, key.size(), value);
  };
  replace("$1", HexOf(h, 12));
  replace("$2", demo::Token(h, 20));
  replace("$3", plan.kind == TaskKind::kNormal && plan.index == secret_task()
                    ? ", \"API_TOKEN\": \"" + secret_value_ + "\""
                    : std::string());
  replace("$4", HexOf(h >> 4, 16));
  return "{" + env + "}";
}

std::string SimLayout::Token(const TaskPlan& plan, int attempt) const {
  return demo::Token(Hash(options_.seed, kTraceToken, plan.index, static_cast<uint64_t>(attempt)),
                     12);
}

}  // namespace rayagg::demo
