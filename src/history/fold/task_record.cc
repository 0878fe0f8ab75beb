#include "history/fold/task_record.h"

#include <algorithm>
#include <cctype>

#include "src/ray/protobuf/common.pb.h"

namespace rayagg::history {
namespace {

// Inserts `item` into the sorted, duplicate-free `items`.
template <typename T>
void InsertSorted(std::vector<T>& items, T item) {
  auto at = std::lower_bound(items.begin(), items.end(), item);
  if (at != items.end() && *at == item) return;
  items.insert(at, std::move(item));
}

// Union of two sorted, duplicate-free vectors.
template <typename T>
void MergeSorted(std::vector<T>& into, const std::vector<T>& from) {
  if (from.empty()) return;
  if (into.empty()) {
    into = from;
    return;
  }
  std::vector<T> merged;
  merged.reserve(into.size() + from.size());
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(merged));
  into = std::move(merged);
}

bool IsIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '$';
}

// "Name: message", "Name" alone, or "ray.exceptions.RayTaskError(Inner): ..."
// at the start of an unindented line: the class, else "".
std::string ClassAtLineStart(std::string_view line) {
  if (line.empty() || !(std::isalpha(static_cast<unsigned char>(line[0])) || line[0] == '_')) {
    return "";
  }
  size_t end = 0;
  while (end < line.size() && IsIdentifierChar(line[end])) ++end;
  std::string_view name = line.substr(0, end);
  std::string_view rest = line.substr(end);
  if (!rest.empty() && rest[0] == '(') {
    // A wrapper naming its cause: RayTaskError(ValueError).
    size_t close = rest.find(')');
    if (close == std::string_view::npos) return "";
    std::string_view inner = rest.substr(1, close - 1);
    if (inner.empty() || !std::all_of(inner.begin(), inner.end(), IsIdentifierChar)) return "";
    rest = rest.substr(close + 1);
    name = inner;
  }
  while (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  if (!rest.empty() && rest[0] != ':') return "";
  if (name.back() == '.') return "";
  // A bare word at the end of a message ("Killed") is no class: a class is
  // CamelCase or dotted.
  bool has_upper = std::any_of(name.begin(), name.end(),
                               [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
  if (!has_upper) return "";
  return std::string(name);
}

}  // namespace

bool IsTerminalTaskState(int32_t state) { return state == kFinished || state == kFailed; }

std::string TaskStateName(int32_t state) {
  if (state == kUnknownJobFinished) return "UNKNOWN_JOB_FINISHED";
  if (state == kUnknownNodeDied) return "UNKNOWN_NODE_DIED";
  if (ray::rpc::TaskStatus_IsValid(state)) {
    return ray::rpc::TaskStatus_Name(static_cast<ray::rpc::TaskStatus>(state));
  }
  return std::to_string(state);
}

std::optional<int32_t> TaskStateFromName(std::string_view name) {
  if (name == "UNKNOWN_JOB_FINISHED") return kUnknownJobFinished;
  if (name == "UNKNOWN_NODE_DIED") return kUnknownNodeDied;
  ray::rpc::TaskStatus value;
  if (ray::rpc::TaskStatus_Parse(std::string(name), &value)) return static_cast<int32_t>(value);
  return std::nullopt;
}

void TaskRecord::AddTransition(TaskTransition transition) {
  // Sorted by time first: the order a reader wants.
  auto less = [](const TaskTransition& a, const TaskTransition& b) {
    return std::tie(a.time_ns, a.state) < std::tie(b.time_ns, b.state);
  };
  auto at = std::lower_bound(transitions.begin(), transitions.end(), transition, less);
  if (at != transitions.end() && at->time_ns == transition.time_ns &&
      at->state == transition.state) {
    return;
  }
  transitions.insert(at, transition);
}

void TaskRecord::AddSpan(ProfileSpan span) { InsertSorted(profile, std::move(span)); }

void TaskRecord::Merge(const TaskRecord& other) {
  definition.Merge(other.definition);
  if (transitions.empty()) {
    transitions = other.transitions;
  } else {
    for (const TaskTransition& t : other.transitions) AddTransition(t);
  }
  lifecycle_job_id.Merge(other.lifecycle_job_id);
  node_id.Merge(other.node_id);
  worker_id.Merge(other.worker_id);
  worker_pid.Merge(other.worker_pid);
  error.Merge(other.error);
  actor_repr_name.Merge(other.actor_repr_name);
  is_debugger_paused.Merge(other.is_debugger_paused);
  stdout_file.Merge(other.stdout_file);
  stderr_file.Merge(other.stderr_file);
  stdout_start.Merge(other.stdout_start);
  stdout_end.Merge(other.stdout_end);
  stderr_start.Merge(other.stderr_start);
  stderr_end.Merge(other.stderr_end);
  MergeSorted(profile, other.profile);
}

int32_t TaskRecord::raw_state() const { return transitions.empty() ? 0 : transitions.back().state; }

int64_t TaskRecord::creation_ns() const {
  for (const TaskTransition& t : transitions) {
    if (t.state == kPendingArgsAvail) return t.time_ns;
  }
  return kNoTime;
}

int64_t TaskRecord::start_ns() const {
  for (const TaskTransition& t : transitions) {
    if (t.state == kRunning) return t.time_ns;
  }
  return kNoTime;
}

int64_t TaskRecord::end_ns() const {
  for (auto it = transitions.rbegin(); it != transitions.rend(); ++it) {
    if (IsTerminalTaskState(it->state)) return it->time_ns;
  }
  return kNoTime;
}

int64_t TaskRecord::last_transition_ns() const {
  return transitions.empty() ? kNoTime : transitions.back().time_ns;
}

const std::string& TaskRecord::job_id() const {
  if (definition.has() && !definition.value.job_id.empty()) return definition.value.job_id;
  return lifecycle_job_id.value;
}

bool TaskRecord::has_log_info() const {
  return stdout_file.has() || stderr_file.has() || stdout_start.has() || stdout_end.has() ||
         stderr_start.has() || stderr_end.has();
}

TaskDurations DurationsOf(const TaskRecord& task) {
  TaskDurations d;
  const int64_t created = task.creation_ns();
  const int64_t started = task.start_ns();
  const int64_t ended = task.end_ns();
  if (created != kNoTime && started != kNoTime && started >= created) {
    d.pending_ns = started - created;
  }
  if (started != kNoTime && ended != kNoTime && ended >= started) d.running_ns = ended - started;
  if (created != kNoTime && ended != kNoTime && ended >= created) d.total_ns = ended - created;
  return d;
}

std::string ExceptionClassOf(std::string_view message) {
  constexpr size_t kWindow = 64 * 1024;
  std::string_view tail =
      message.size() > kWindow ? message.substr(message.size() - kWindow) : message;
  // Python prints the exception last (after the traceback and any chained
  // ones): scan lines from the end.
  size_t end = tail.size();
  while (end > 0) {
    size_t start = tail.rfind('\n', end - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string name = ClassAtLineStart(tail.substr(start, end - start));
    if (!name.empty()) return name;
    if (start == 0) break;
    end = start - 1;
  }
  return "";
}

// ---- Actors, jobs, nodes, workers ----

void ActorRecord::AddTransition(ActorTransition transition) {
  InsertSorted(transitions, std::move(transition));
}
void ActorRecord::Merge(const ActorRecord& other) {
  definition.Merge(other.definition);
  MergeSorted(transitions, other.transitions);
}
// Transitions sort by state first (their operator<=>); order by time here.
namespace {
template <typename T>
const T* Latest(const std::vector<T>& items) {
  const T* latest = nullptr;
  for (const T& item : items) {
    if (latest == nullptr ||
        std::tie(item.time_ns, item.state) >= std::tie(latest->time_ns, latest->state)) {
      latest = &item;
    }
  }
  return latest;
}
}  // namespace

int32_t ActorRecord::state() const {
  const ActorTransition* latest = Latest(transitions);
  return latest == nullptr ? -1 : latest->state;
}
int64_t ActorRecord::start_ns() const {
  int64_t first = kNoTime;
  for (const ActorTransition& t : transitions) {
    if (t.state == 2 && (first == kNoTime || t.time_ns < first)) first = t.time_ns;
  }
  return first;
}
int64_t ActorRecord::end_ns() const {
  int64_t last = kNoTime;
  for (const ActorTransition& t : transitions) {
    if (t.state == 4 && t.time_ns > last) last = t.time_ns;
  }
  return last;
}
int32_t ActorRecord::restarts() const {
  int32_t count = 0;
  for (const ActorTransition& t : transitions) count += t.state == 3 ? 1 : 0;
  return count;
}

void JobRecord::AddTransition(JobTransition transition) {
  InsertSorted(transitions, std::move(transition));
}
void JobRecord::Merge(const JobRecord& other) {
  definition.Merge(other.definition);
  MergeSorted(transitions, other.transitions);
}
int64_t JobRecord::finished_ns() const {
  int64_t last = kNoTime;
  for (const JobTransition& t : transitions) {
    if (t.state == 2 && t.time_ns > last) last = t.time_ns;
  }
  return last;
}
int64_t JobRecord::start_ns() const {
  int64_t first = kNoTime;
  for (const JobTransition& t : transitions) {
    if (t.state == 1 && (first == kNoTime || t.time_ns < first)) first = t.time_ns;
  }
  return first;
}

void NodeRecord::AddTransition(NodeTransition transition) {
  InsertSorted(transitions, std::move(transition));
}
void NodeRecord::Merge(const NodeRecord& other) {
  definition.Merge(other.definition);
  MergeSorted(transitions, other.transitions);
}
int64_t NodeRecord::dead_ns() const {
  int64_t last = kNoTime;
  for (const NodeTransition& t : transitions) {
    if (t.state == 1 && t.time_ns > last) last = t.time_ns;
  }
  return last;
}

void WorkerRecord::AddTransition(WorkerTransition transition) {
  InsertSorted(transitions, std::move(transition));
}
void WorkerRecord::Merge(const WorkerRecord& other) {
  definition.Merge(other.definition);
  job_id.Merge(other.job_id);
  MergeSorted(transitions, other.transitions);
}

}  // namespace rayagg::history
