// What the simulated cluster runs: its functions (durations, resources, how
// they fail), its actor classes, and the text Ray would report for a failure
// (Python stack traces, Ray's own messages). Fixed tables: the seed only
// picks among them.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace rayagg::demo {

// How an attempt ends badly.
enum class Failure : uint8_t {
  kNone,
  kKeyError,  // TASK_EXECUTION_EXCEPTION, each with its own Python traceback
  kValueError,
  kFileNotFound,
  kCudaOom,
  kEndpointError,
  kTemplateError,
  kWorkerDied,   // WORKER_DIED: the worker process crashed; retried
  kOutOfMemory,  // OUT_OF_MEMORY: Ray's memory monitor killed it; retried
  kNodeDied,     // NODE_DIED: its node went away; retried elsewhere
  kActorDied,    // ACTOR_DIED: an actor task whose actor restarted or was killed
};

struct Function {
  const char* module;
  const char* name;
  uint32_t weight;     // share of the normal tasks
  double median_s;     // running time: log-normal around this ...
  double sigma;        // ... with this spread,
  double tail_share;   // and this share of slow ones,
  double tail_factor;  // that many times slower
  double cpus, gpus, memory_gib;
  double exception_share;  // attempts that raise `exception`
  Failure exception;
  double oom_share;  // attempts killed by the memory monitor
  uint8_t jobs;      // bit j: job j submits it
};

struct ActorClass {
  const char* module;
  const char* name;
  const char* method;
  double median_s;  // actor task running time
  double cpus, gpus;
};

std::span<const Function> Functions();
std::span<const ActorClass> ActorClasses();

// Ray's ErrorType number for a failure (-1 for kNone).
int32_t ErrorTypeOf(Failure failure);

// The error message Ray reports: for exceptions the "ray::f() (pid, ip)"
// header and a Python traceback whose last line holds `token`, a string no
// other trace holds; for Ray's own failures its message (`ids` names the task,
// worker and node as Ray does).
struct FailureContext {
  std::string function;  // e.g. "join_user_features"
  std::string token;
  int32_t pid = 0;
  std::string node_ip;
  std::string task_id_hex, worker_id_hex, node_id_hex;
  bool actor_killed = false;  // kActorDied: ray.kill, not its node
};
std::string FailureMessage(Failure failure, const FailureContext& context);

}  // namespace rayagg::demo
