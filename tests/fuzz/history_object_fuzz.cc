// ray-task-history's object reader (history/fold/object_folder.h) on arbitrary
// bytes as a stored object: gzip or not, JSON Lines or a legacy JSON array,
// each text parsed into a RayEvent and folded by the reducer. Anyone who can
// write to the bucket chooses these bytes. Properties:
//   - the reducer never invents a transition: every state a folded task
//     record holds was in a task lifecycle event of that task attempt, and
//     a record holds no more transitions than its events carried;
//   - every folded record survives its stored form: encode -> decode ->
//     encode gives the same bytes.
#include <google/protobuf/stubs/logging.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "history/fold/object_decoder.h"
#include "history/fold/object_folder.h"
#include "history/fold/record_codec.h"
#include "history/fold/reducer.h"
#include "json/event_json_parser.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace {

using rayagg::history::FoldedSession;
using rayagg::history::TaskKey;

// Each object is read with this bound on one text, as the indexer does (smaller).
constexpr uint64_t kMaxEventBytes = 1 << 20;

[[noreturn]] void Fail(const char* what, const std::string& task) {
  std::fprintf(stderr, "history_object_fuzz: %s (task %s)\n", what, task.c_str());
  std::abort();
}

// What the object's task lifecycle events say, read without the reducer:
// the states of each task attempt, and how many transitions they carry.
struct Said {
  std::set<std::tuple<std::string, int32_t, int32_t>> states;  // task, attempt, state
  std::map<std::pair<std::string, int32_t>, size_t> transitions;
};

Said WhatTheEventsSay(std::string_view object) {
  static rayagg::EventJsonParser parser;
  static rayagg::EventJsonBatch batch;
  Said said;
  rayagg::history::ForEachEventJson(object, kMaxEventBytes, [&](std::string_view text) {
    batch.Clear();
    if (!parser.ParseOne(text, 0, batch).ok() || batch.events().empty()) return;
    const std::string_view bytes = batch.bytes(batch.events().front());
    ray::rpc::events::RayEvent event;
    if (!event.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return;
    if (!event.has_task_lifecycle_event()) return;
    const auto& life = event.task_lifecycle_event();
    const std::string task = rayagg::history::HexId(life.task_id());
    for (const auto& transition : life.state_transitions()) {
      said.states.emplace(task, life.task_attempt(), transition.state());
      ++said.transitions[{task, life.task_attempt()}];
    }
  });
  return said;
}

template <typename Record>
void CheckStoredForm(const Record& record, const std::string& name) {
  const std::string bytes = rayagg::history::EncodeRecord(record);
  Record decoded;
  if (!rayagg::history::DecodeRecord(bytes, decoded).ok()) Fail("a record does not decode", name);
  if (rayagg::history::EncodeRecord(decoded) != bytes) Fail("a record changes when stored", name);
}

}  // namespace

// protobuf logs every invalid UTF-8 string it rejects; keep the output readable.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view object(reinterpret_cast<const char*>(data), size);
  static rayagg::history::ObjectFolder folder(kMaxEventBytes);
  FoldedSession session;
  folder.Fold(object, session);
  if (session.empty()) return 0;

  const Said said = WhatTheEventsSay(object);
  for (const auto& [key, task] : session.tasks) {
    const auto carried = said.transitions.find({key.task_id, key.attempt});
    const size_t limit = carried == said.transitions.end() ? 0 : carried->second;
    if (task.transitions.size() > limit)
      Fail("more transitions than the events carried", key.task_id);
    for (const auto& transition : task.transitions) {
      if (!said.states.contains({key.task_id, key.attempt, transition.state})) {
        Fail("a transition no event carried", key.task_id);
      }
    }
    CheckStoredForm(task, key.task_id);
  }
  for (const auto& [id, actor] : session.actors) CheckStoredForm(actor, id);
  for (const auto& [id, job] : session.jobs) CheckStoredForm(job, id);
  for (const auto& [id, node] : session.nodes) CheckStoredForm(node, id);
  for (const auto& [id, worker] : session.workers) CheckStoredForm(worker, id);
  return 0;
}
