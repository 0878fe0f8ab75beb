// The simulated cluster (src/demo/): one seed, the same bytes; and the
// expectation the fixture writes (what the history must report) equals a
// fold of the events it actually emitted, done here independently with the
// history's rules (docs/HISTORY.md "How events become tasks").
#include "demo/sim_cluster.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "demo/sim_expectation.h"

namespace rayagg::demo {
namespace {

using ray::rpc::events::RayEvent;

struct Emitted {
  size_t node;
  RayEvent event;
};

std::vector<Emitted> EmitAll(const SimOptions& options) {
  SimCluster cluster(options);
  std::vector<Emitted> out;
  // In steps, as the sender does, to check that stepping changes nothing.
  for (int64_t until = kSecond; cluster.EmitUntil(until,
                                                  [&](size_t node, RayEvent&event) {
                                                    out.push_back({node, event});
                                                  });
       until += kSecond) {
  }
  return out;
}

std::string Bytes(const std::vector<Emitted>& events) {
  std::string out;
  std::string bytes;
  for (const Emitted& e : events) {
    SerializeDeterministic(e.event, bytes);
    out += std::to_string(e.node) + ":" + bytes;
  }
  return out;
}

TEST(SimClusterTest, TheSameSeedGivesTheSameBytes) {
  const std::vector<Emitted> a = EmitAll(FixtureOptions());
  const std::vector<Emitted> b = EmitAll(FixtureOptions());
  ASSERT_GT(a.size(), 1000u);
  EXPECT_EQ(Bytes(a), Bytes(b));
  SimOptions other = FixtureOptions();
  other.seed += 1;
  EXPECT_NE(Bytes(a), Bytes(EmitAll(other)));
}

TEST(SimClusterTest, EventsComeInTimeOrderFromTheNodeTheyName) {
  const SimCluster cluster(FixtureOptions());
  int64_t previous = 0;
  for (const Emitted& e : EmitAll(FixtureOptions())) {
    const int64_t at = e.event.timestamp().seconds() * kSecond + e.event.timestamp().nanos();
    EXPECT_GE(at, previous);
    previous = at;
    EXPECT_EQ(e.event.node_id(), cluster.layout().nodes()[e.node].id);
    EXPECT_EQ(e.event.session_name(), cluster.layout().session_name());
  }
}

// The history's fold, reduced to what the counts need.
struct FoldedAttempt {
  std::set<std::pair<int64_t, int32_t>> transitions;  // (time, state)
  std::string job_id, node_id;
};

int64_t Ns(const google::protobuf::Timestamp& t) { return t.seconds() * kSecond + t.nanos(); }

TEST(SimClusterTest, TheExpectationEqualsAFoldOfTheEmittedEvents) {
  const SimOptions options = FixtureOptions();
  const std::vector<Emitted> events = EmitAll(options);
  std::map<std::pair<std::string, int>, FoldedAttempt> attempts;
  std::set<std::string> finished_jobs, dead_nodes;
  std::map<std::string, std::string> names;  // task id -> name
  std::map<std::string, int> api_tokens;     // runtime env's API_TOKEN value -> tasks
  for (const Emitted& e : events) {
    const RayEvent& event = e.event;
    if (event.has_task_definition_event()) {
      const auto& d = event.task_definition_event();
      attempts[{d.task_id(), d.task_attempt()}].job_id = d.job_id();
      names[HexId(d.task_id())] = d.task_name();
      const std::string& env = d.serialized_runtime_env();
      if (const size_t at = env.find("\"API_TOKEN\": \""); at != std::string::npos) {
        ++api_tokens[env.substr(at + 14, env.find('"', at + 14) - at - 14)];
      }
    }
    if (event.has_actor_task_definition_event()) {
      const auto& d = event.actor_task_definition_event();
      attempts[{d.task_id(), d.task_attempt()}].job_id = d.job_id();
      names[HexId(d.task_id())] = d.actor_task_name();
    }
    if (event.has_task_lifecycle_event()) {
      const auto& l = event.task_lifecycle_event();
      FoldedAttempt& a = attempts[{l.task_id(), l.task_attempt()}];
      a.job_id = l.job_id();
      if (!l.node_id().empty()) a.node_id = l.node_id();
      for (const auto& t : l.state_transitions())
        a.transitions.emplace(Ns(t.timestamp()), t.state());
    }
    if (event.has_driver_job_lifecycle_event()) {
      for (const auto& t : event.driver_job_lifecycle_event().state_transitions()) {
        if (t.state() == ray::rpc::events::DriverJobLifecycleEvent::FINISHED) {
          finished_jobs.insert(event.driver_job_lifecycle_event().job_id());
        }
      }
    }
    if (event.has_node_lifecycle_event()) {
      for (const auto& t : event.node_lifecycle_event().state_transitions()) {
        if (t.state() == ray::rpc::events::NodeLifecycleEvent::DEAD) {
          dead_nodes.insert(event.node_lifecycle_event().node_id());
        }
      }
    }
  }
  std::map<std::string, int64_t> by_attempt, by_task;
  std::map<std::string, std::string> task_state;  // latest attempt's
  std::map<std::string, int> latest;
  for (const auto& [key, a] : attempts) {
    const int32_t raw = a.transitions.empty() ? 0 : a.transitions.rbegin()->second;
    std::string state = ray::rpc::TaskStatus_Name(static_cast<ray::rpc::TaskStatus>(raw));
    if (raw != ray::rpc::FINISHED && raw != ray::rpc::FAILED) {
      if (finished_jobs.contains(a.job_id)) {
        state = "UNKNOWN_JOB_FINISHED";
      } else if (dead_nodes.contains(a.node_id)) {
        state = "UNKNOWN_NODE_DIED";
      }
    }
    ++by_attempt[state];
    const std::string id = HexId(key.first);
    if (!latest.contains(id) || latest[id] < key.second) {
      latest[id] = key.second;
      task_state[id] = state;
    }
  }
  for (const auto& [id, state] : task_state) ++by_task[state];

  const SimCluster cluster(options);
  const Expectation expected = Expect(cluster.layout());
  EXPECT_EQ(expected.attempts_by_state, by_attempt);
  EXPECT_EQ(expected.tasks_by_state, by_task);
  EXPECT_EQ(expected.tasks, static_cast<int64_t>(task_state.size()));
  EXPECT_EQ(expected.attempts, static_cast<int64_t>(attempts.size()));
  // Every family of states the page shows.
  for (const char* state : {"FINISHED", "FAILED", "RUNNING", "PENDING_NODE_ASSIGNMENT",
                            "UNKNOWN_JOB_FINISHED", "UNKNOWN_NODE_DIED"}) {
    EXPECT_GT(by_task[state], 0) << state;
  }

  // The named tasks of ui-contract.md §4.
  EXPECT_EQ(names[expected.xss.task_id_hex], "<img src=x onerror=alert(1)>");
  EXPECT_EQ(expected.retried.attempts, 2);
  EXPECT_EQ(latest[expected.retried.task_id_hex], 1);
  EXPECT_EQ(task_state[expected.retried.task_id_hex], "FINISHED");
  EXPECT_EQ(api_tokens, (std::map<std::string, int>{{expected.secret_value, 1}}));
  ASSERT_EQ(expected.probe_text.size(), 12u);
  std::set<std::string> holding_probe;
  for (const Emitted& e : events) {
    if (e.event.has_task_lifecycle_event() &&
        e.event.task_lifecycle_event().ray_error_info().error_message().find(expected.probe_text) !=
            std::string::npos) {
      holding_probe.insert(HexId(e.event.task_lifecycle_event().task_id()));
    }
  }
  EXPECT_EQ(holding_probe, std::set<std::string>{expected.probe.task_id_hex});
  EXPECT_EQ(task_state[expected.probe.task_id_hex], "FAILED");
}

TEST(SimClusterTest, FailuresCarryPythonTracebacksAndRaysMessages) {
  std::map<int, int> by_error_type;
  std::set<std::string> exceptions;
  for (const Emitted& e : EmitAll(FixtureOptions())) {
    if (!e.event.has_task_lifecycle_event()) continue;
    const auto& error = e.event.task_lifecycle_event().ray_error_info();
    if (error.error_message().empty()) continue;
    ++by_error_type[error.error_type()];
    if (error.error_type() == ray::rpc::TASK_EXECUTION_EXCEPTION) {
      const std::string& message = error.error_message();
      EXPECT_NE(message.find("  File \""), std::string::npos) << message;
      const size_t last_line = message.rfind('\n', message.size() - 2);
      exceptions.insert(
          message.substr(last_line + 1, message.find(':', last_line) - last_line - 1));
    }
  }
  EXPECT_GT(by_error_type[ray::rpc::TASK_EXECUTION_EXCEPTION], 0);
  EXPECT_GT(by_error_type[ray::rpc::WORKER_DIED], 0);
  EXPECT_GT(by_error_type[ray::rpc::NODE_DIED], 0);
  EXPECT_GE(exceptions.size(), 3u) << testing::PrintToString(exceptions);
}

}  // namespace
}  // namespace rayagg::demo
