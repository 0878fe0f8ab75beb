// What ray-task-history must report for a simulated session, folded from
// the generator's own plans (not from the events, and not read back from the
// product): tasks by the state of their latest attempt and attempts by
// state, named as the history names them (docs/HISTORY.md "How events become
// tasks": reconciled states included), and the tasks the browser tests look
// for (ui-contract.md §4).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "demo/sim_model.h"

namespace rayagg::demo {

struct Expectation {
  int64_t tasks = 0, attempts = 0;
  std::map<std::string, int64_t> tasks_by_state, attempts_by_state;
  struct Named {
    std::string task_id_hex, name;
    int attempts = 0;
  };
  Named retried, xss, secret, probe;
  std::string secret_value;  // of API_TOKEN in the secret task's runtime env
  std::string probe_text;    // 12 characters of exactly one stack trace
};

Expectation Expect(const SimLayout& layout);

// The fixture's expectation file (ui-contract.md §4). `cluster` is the
// history's name of the cluster (<kind>/<namespace>/<name>); `events` how
// many were sent.
std::string ExpectationJson(const Expectation& expectation, const std::string& cluster,
                            const std::string& session_name, uint64_t events);

std::string HexId(std::string_view bytes);

}  // namespace rayagg::demo
