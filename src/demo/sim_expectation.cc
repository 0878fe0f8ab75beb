#include "demo/sim_expectation.h"

#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "demo/sim_events.h"
#include "src/ray/protobuf/common.pb.h"

namespace rayagg::demo {
namespace {

// History-only states (src/history/fold/task_record.h).
constexpr const char* kUnknownJobFinished = "UNKNOWN_JOB_FINISHED";
constexpr const char* kUnknownNodeDied = "UNKNOWN_NODE_DIED";

struct AttemptFold {
  bool present = false;
  int32_t raw_state = 0;
  int64_t raw_time = kNever;
  bool ran = false;  // its RUNNING report got out: the history knows its node
  void Offer(int32_t state, int64_t at) {
    if (!present || std::tie(at, state) > std::tie(raw_time, raw_state)) {
      raw_state = state, raw_time = at;
    }
    present = true;
  }
};

bool Terminal(int32_t state) { return state == ray::rpc::FINISHED || state == ray::rpc::FAILED; }

}  // namespace

std::string HexId(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char byte : bytes) out += {kDigits[byte >> 4], kDigits[byte & 15]};
  return out;
}

Expectation Expect(const SimLayout& layout) {
  Expectation out;
  out.secret_value = layout.secret_value();
  const int64_t end = layout.end_ns();
  for (uint64_t index = 0; index < layout.task_count(); ++index) {
    const TaskPlan plan = layout.Plan(index);
    std::vector<std::string> states;
    int latest = -1;
    for (int a = 0; a < plan.attempt_count; ++a) {
      const AttemptPlan& p = plan.attempts[static_cast<size_t>(a)];
      AttemptFold fold;
      bool any = false;
      for (int stage = 0; stage < kTaskStages; ++stage) {
        if (StageOf(layout, plan, a, stage).at == kNever) continue;
        any = true;
        switch (stage) {
          case 1:
            fold.Offer(ray::rpc::PENDING_ARGS_AVAIL, p.created);
            if (plan.kind != TaskKind::kActorTask && p.args_ready != kNever) {
              fold.Offer(ray::rpc::PENDING_NODE_ASSIGNMENT, p.args_ready);
            }
            break;
          case 2:
            fold.Offer(ray::rpc::SUBMITTED_TO_WORKER, p.submitted);
            break;
          case 3:
            fold.Offer(ray::rpc::RUNNING, p.running);
            fold.ran = true;
            break;
          case 4:
            fold.Offer(p.failure == Failure::kNone ? ray::rpc::FINISHED : ray::rpc::FAILED,
                       p.ended);
            break;
          default:
            break;
        }
      }
      if (!any) break;
      latest = a;
      // Reconciliation: a task that never reported an end is what its job
      // or its node says happened to it.
      std::string state =
          ray::rpc::TaskStatus_Name(static_cast<ray::rpc::TaskStatus>(fold.raw_state));
      if (!Terminal(fold.raw_state)) {
        const SimJob& job = layout.jobs()[plan.job];
        const SimNode& node = layout.nodes()[p.node];
        if (job.end != kNever && job.end < end) {
          state = kUnknownJobFinished;
        } else if (fold.ran && node.dies_at != kNever && node.dies_at + kSecond < end) {
          state = kUnknownNodeDied;
        }
      }
      states.push_back(state);
      ++out.attempts_by_state[state];
      ++out.attempts;
    }
    if (latest < 0) continue;
    ++out.tasks;
    ++out.tasks_by_state[states.back()];
    const int attempts = latest + 1;
    auto name = [&](Expectation::Named& named) {
      named.task_id_hex = HexId(layout.TaskId(plan));
      named.name = layout.TaskName(plan);
      named.attempts = attempts;
    };
    if (index == layout.xss_task()) name(out.xss);
    if (index == layout.secret_task()) name(out.secret);
    if (index == layout.retried_task() && attempts == 2 && states.back() == "FINISHED") {
      name(out.retried);
    }
    const Failure failure = plan.attempts[static_cast<size_t>(latest)].failure;
    if (out.probe.task_id_hex.empty() && states.back() == "FAILED" &&
        ErrorTypeOf(failure) == ray::rpc::TASK_EXECUTION_EXCEPTION) {
      name(out.probe);
      out.probe_text = layout.Token(plan, latest);
    }
  }
  return out;
}

std::string ExpectationJson(const Expectation& e, const std::string& cluster,
                            const std::string& session_name, uint64_t events) {
  using nlohmann::json;
  auto named = [](const Expectation::Named& n) {
    return json{{"task_id", n.task_id_hex}, {"attempts", n.attempts}, {"name", n.name}};
  };
  json out = {
      {"cluster", cluster},
      {"session", cluster + "/" + session_name},
      {"tasks", {{"total", e.tasks}, {"by_state", e.tasks_by_state}}},
      {"attempts", {{"total", e.attempts}, {"by_state", e.attempts_by_state}}},
      {"retried_task", named(e.retried)},
      {"xss_task", {{"task_id", e.xss.task_id_hex}, {"name", e.xss.name}}},
      {"secret",
       {{"task_id", e.secret.task_id_hex}, {"key", "API_TOKEN"}, {"value", e.secret_value}}},
      {"trace_probe", {{"task_id", e.probe.task_id_hex}, {"substring", e.probe_text}}},
      {"events", events},
  };
  return out.dump(2) + "\n";
}

}  // namespace rayagg::demo
