#include "history/index/index_writer.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "common/text.h"
#include "history/fold/record_codec.h"
#include "src/ray/protobuf/common.pb.h"

namespace rayagg::history {
namespace {

template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& value) {
  return value.ok() ? absl::OkStatus() : value.status();
}

int64_t OrMinusOne(int64_t ns) { return ns == kNoTime ? -1 : ns; }

}  // namespace

std::string SessionIdentity::cluster() const {
  std::string out = strings::Cat(kind, "/", ray_namespace, "/");
  if (!owner.empty()) strings::Append(out, owner, "/");
  out += cluster_name;
  return out;
}

std::string ErrorTypeName(int32_t error_type) {
  if (ray::rpc::ErrorType_IsValid(error_type)) {
    return ray::rpc::ErrorType_Name(static_cast<ray::rpc::ErrorType>(error_type));
  }
  return std::to_string(error_type);
}

std::optional<std::string> BytesFromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    const int high = digit(hex[2 * i]);
    const int low = digit(hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out[i] = static_cast<char>(high * 16 + low);
  }
  return out;
}

void SummaryStats::Merge(const SummaryStats& other, int64_t sign) {
  count += sign * other.count;
  pending.Merge(other.pending, sign);
  running.Merge(other.running, sign);
  total.Merge(other.total, sign);
}

std::string SummaryStats::Encode() const {
  std::string out;
  pending.EncodeTo(out);
  running.EncodeTo(out);
  total.EncodeTo(out);
  return out;
}

absl::Status SummaryStats::Decode(std::string_view bytes) {
  for (DurationStats* stats : {&pending, &running, &total}) {
    if (absl::Status decoded = stats->DecodeFrom(bytes); !decoded.ok()) return decoded;
  }
  return absl::OkStatus();
}

int32_t ReportedState(const TaskRecord& task,
                      const std::unordered_map<std::string, int64_t>& finished_jobs,
                      const std::unordered_map<std::string, int64_t>& dead_nodes) {
  const int32_t raw = task.raw_state();
  if (IsTerminalTaskState(raw)) return raw;
  if (finished_jobs.contains(task.job_id())) return kUnknownJobFinished;
  if (task.node_id.has() && dead_nodes.contains(task.node_id.value)) return kUnknownNodeDied;
  return raw;
}

namespace {

// The summary keys and the durations an attempt contributes, for both units
// (computed once).
struct Contribution {
  TaskDurations durations;
  int pending_bucket = 0, running_bucket = 0, total_bucket = 0;
  SummaryKey keys[4];
};

Contribution ContributionOf(const TaskRecord& task, int32_t state) {
  Contribution c;
  c.durations = DurationsOf(task);
  const TaskDurations& d = c.durations;
  if (d.pending_ns != kNoTime) c.pending_bucket = DurationStats::BucketOf(d.pending_ns);
  if (d.running_ns != kNoTime) c.running_bucket = DurationStats::BucketOf(d.running_ns);
  if (d.total_ns != kNoTime) c.total_bucket = DurationStats::BucketOf(d.total_ns);
  const std::string& job = task.job_id();
  const bool defined = task.definition.has();
  const int32_t type = defined ? task.definition.value.task_type : 0;
  const std::string function = defined ? task.definition.value.func_name : std::string();
  const std::string error = task.error.has() ? ErrorTypeName(task.error.value.error_type) : "";
  const std::string node = task.node_id.has() ? task.node_id.value : "";
  c.keys[0] = SummaryKey{0, static_cast<int>(SummaryDim::kJob), job, job, 0, state};
  c.keys[1] = SummaryKey{0, static_cast<int>(SummaryDim::kFunction), function, job, type, state};
  c.keys[2] = SummaryKey{0, static_cast<int>(SummaryDim::kErrorType), error, job, 0, state};
  c.keys[3] = SummaryKey{0, static_cast<int>(SummaryDim::kNode), node, job, 0, state};
  return c;
}

// Adds the attempt to (sign -1: removes it from) each of its groups of one
// unit: no per-task stats object is built and merged, the durations go
// straight into each group's histograms.
void Apply(Contribution& c, SummaryUnit unit, int64_t sign,
           std::map<SummaryKey, SummaryStats>& deltas) {
  for (SummaryKey& key : c.keys) {
    key.unit = static_cast<int>(unit);
    SummaryStats& stats = deltas[key];
    const TaskDurations& d = c.durations;
    stats.count += sign;
    if (d.pending_ns != kNoTime) stats.pending.AddInBucket(d.pending_ns, c.pending_bucket, sign);
    if (d.running_ns != kNoTime) stats.running.AddInBucket(d.running_ns, c.running_bucket, sign);
    if (d.total_ns != kNoTime) stats.total.AddInBucket(d.total_ns, c.total_bucket, sign);
  }
}

}  // namespace

void AddContribution(const TaskRecord& task, int32_t state, SummaryUnit unit, int64_t sign,
                     std::map<SummaryKey, SummaryStats>& deltas) {
  Contribution c = ContributionOf(task, state);
  Apply(c, unit, sign, deltas);
}

void AddContributions(const TaskRecord& task, int32_t state, bool latest, int64_t sign,
                      std::map<SummaryKey, SummaryStats>& deltas) {
  Contribution c = ContributionOf(task, state);
  Apply(c, SummaryUnit::kAttempts, sign, deltas);
  if (latest) Apply(c, SummaryUnit::kTasks, sign, deltas);
}

absl::StatusOr<int64_t> IndexWriter::NameId(std::string_view text) {
  if (text.empty()) return 0;
  std::string key(text);
  if (auto it = name_ids_.find(key); it != name_ids_.end()) return it->second;
  absl::StatusOr<SqliteStatement*> find = db_.Cached("SELECT id FROM names WHERE text=?");
  if (!find.ok()) return find.status();
  (*find)->BindText(1, text);
  absl::StatusOr<bool> row = (*find)->Step();
  if (!row.ok()) return row.status();
  int64_t id = 0;
  if (*row) {
    id = (*find)->Int(0);
  } else {
    absl::StatusOr<SqliteStatement*> insert = db_.Cached("INSERT INTO names(text) VALUES (?)");
    if (!insert.ok()) return insert.status();
    (*insert)->BindText(1, text);
    if (absl::Status ran = (*insert)->Run(); !ran.ok()) return ran;
    id = db_.last_insert_rowid();
  }
  // The cache only grows with distinct function, node and exception names.
  if (name_ids_.size() > 1'000'000) name_ids_.clear();
  name_ids_.emplace(std::move(key), id);
  return id;
}

absl::StatusOr<int64_t> IndexWriter::EnsureSession(const SessionIdentity& session,
                                                   bool has_marker) {
  const std::string cluster = session.cluster();
  absl::StatusOr<SqliteStatement*> find =
      db_.Cached("SELECT id, has_marker FROM sessions WHERE cluster=? AND name=?");
  if (!find.ok()) return find.status();
  (*find)->BindText(1, cluster).BindText(2, session.name);
  absl::StatusOr<bool> row = (*find)->Step();
  if (!row.ok()) return row.status();
  if (*row) {
    const int64_t id = (*find)->Int(0);
    if (has_marker && (*find)->Int(1) == 0) {
      absl::StatusOr<SqliteStatement*> mark =
          db_.Cached("UPDATE sessions SET has_marker=1 WHERE id=?");
      if (!mark.ok()) return mark.status();
      (*mark)->Bind(1, id);
      if (absl::Status ran = (*mark)->Run(); !ran.ok()) return ran;
    }
    return id;
  }
  absl::StatusOr<SqliteStatement*> insert = db_.Cached(
      "INSERT INTO sessions(cluster, kind, namespace, owner, cluster_name, name, has_marker) "
      "VALUES (?,?,?,?,?,?,?)");
  if (!insert.ok()) return insert.status();
  (*insert)
      ->BindText(1, cluster)
      .BindText(2, session.kind)
      .BindText(3, session.ray_namespace)
      .BindText(4, session.owner)
      .BindText(5, session.cluster_name)
      .BindText(6, session.name)
      .Bind(7, has_marker ? 1 : 0);
  if (absl::Status ran = (*insert)->Run(); !ran.ok()) return ran;
  return db_.last_insert_rowid();
}

absl::Status IndexWriter::LoadReconciliation(int64_t session_id, Reconciliation& out) {
  absl::StatusOr<SqliteStatement*> jobs =
      db_.Cached("SELECT job_id, finished_ns FROM jobs WHERE session_id=? AND finished_ns>=0");
  if (!jobs.ok()) return jobs.status();
  (*jobs)->Bind(1, session_id);
  for (;;) {
    absl::StatusOr<bool> row = (*jobs)->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.finished_jobs.emplace((*jobs)->Text(0), (*jobs)->Int(1));
  }
  absl::StatusOr<SqliteStatement*> nodes =
      db_.Cached("SELECT node_id, dead_ns FROM nodes WHERE session_id=? AND dead_ns>=0");
  if (!nodes.ok()) return nodes.status();
  (*nodes)->Bind(1, session_id);
  for (;;) {
    absl::StatusOr<bool> row = (*nodes)->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.dead_nodes.emplace((*nodes)->Text(0), (*nodes)->Int(1));
  }
  return absl::OkStatus();
}

absl::Status IndexWriter::StoreTask(int64_t session_id, int64_t row_id, const TaskRecord& task,
                                    int32_t state, bool latest, int64_t attempts,
                                    const std::string& encoded) {
  const bool defined = task.definition.has();
  const TaskDefinition empty;
  const TaskDefinition& d = defined ? task.definition.value : empty;
  absl::StatusOr<int64_t> func_id = NameId(d.func_name);
  absl::StatusOr<int64_t> node_id = NameId(task.node_id.value);
  absl::StatusOr<int64_t> exception_id =
      NameId(task.error.has() ? ExceptionClassOf(task.error.value.message) : "");
  if (!func_id.ok()) return func_id.status();
  if (!node_id.ok()) return node_id.status();
  if (!exception_id.ok()) return exception_id.status();
  absl::StatusOr<int64_t> error_text_id =
      search_on_ ? search_.IndexTask(session_id, *func_id, d.func_name, d.task_name,
                                     task.error.has() ? std::string_view(task.error.value.message)
                                                      : std::string_view())
                 : 0;
  if (!error_text_id.ok()) return error_text_id.status();
  const TaskDurations durations = DurationsOf(task);
  // An existing row is updated in place: SQLite then rewrites only the
  // index entries whose columns changed (a REPLACE would rewrite all of them).
  absl::StatusOr<SqliteStatement*> statement = db_.Cached(
      row_id > 0
          ? "UPDATE tasks SET id=?1, session_id=?2, task_id=?3, attempt=?4, state=?5, "
            "raw_state=?6, type=?7, func_id=?8, name=?9, job_id=?10, node_id=?11, worker_id=?12, "
            "worker_pid=?13, actor_id=?14, error_type=?15, exception_id=?16, creation_ns=?17, "
            "start_ns=?18, end_ns=?19, pending_ns=?20, running_ns=?21, total_ns=?22, record=?23, "
            "latest=?24, attempts=?25, error_text_id=?26 WHERE id=?1"
          : "INSERT INTO tasks(id, session_id, task_id, attempt, state, raw_state, type, "
            "func_id, name, job_id, node_id, worker_id, worker_pid, actor_id, error_type, "
            "exception_id, creation_ns, start_ns, end_ns, pending_ns, running_ns, total_ns, "
            "record, latest, attempts, error_text_id) VALUES "
            "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!statement.ok()) return statement.status();
  SqliteStatement& s = **statement;
  if (row_id > 0) {
    s.Bind(1, row_id);
  } else {
    s.BindNull(1);
  }
  s.Bind(2, session_id);
  s.BindBlob(3, BytesFromHex(task.task_id).value_or(task.task_id));
  s.Bind(4, task.attempt);
  s.Bind(5, state);
  s.Bind(6, task.raw_state());
  s.Bind(7, d.task_type);
  s.Bind(8, *func_id);
  s.BindText(9, d.task_name);
  s.BindText(10, task.job_id());
  s.Bind(11, *node_id);
  s.BindBlob(12, BytesFromHex(task.worker_id.value).value_or(""));
  s.Bind(13, task.worker_pid.value);
  s.BindBlob(14, BytesFromHex(d.actor_id).value_or(""));
  s.Bind(15, task.error.has() ? task.error.value.error_type : -1);
  s.Bind(16, *exception_id);
  s.Bind(17, OrMinusOne(task.creation_ns()));
  s.Bind(18, OrMinusOne(task.start_ns()));
  s.Bind(19, OrMinusOne(task.end_ns()));
  s.Bind(20, OrMinusOne(durations.pending_ns));
  s.Bind(21, OrMinusOne(durations.running_ns));
  s.Bind(22, OrMinusOne(durations.total_ns));
  s.BindBlob(23, encoded);
  s.Bind(24, latest ? 1 : 0);
  s.Bind(25, attempts);
  if (*error_text_id > 0) {
    s.Bind(26, *error_text_id);
  } else {
    s.BindNull(26);
  }
  return s.Run();
}

absl::Status IndexWriter::LoadAttempts(int64_t session_id, const std::string& task_id,
                                       std::vector<StoredAttempt>& out) {
  out.clear();
  absl::StatusOr<SqliteStatement*> find = db_.Cached(
      "SELECT id, attempt, state, latest, attempts, record FROM tasks "
      "WHERE session_id=? AND task_id=?");
  if (!find.ok()) return find.status();
  SqliteStatement& lookup = **find;
  lookup.Bind(1, session_id).BindBlob(2, BytesFromHex(task_id).value_or(task_id));
  for (;;) {
    absl::StatusOr<bool> row = lookup.Step();
    if (!row.ok()) {
      lookup.Reset();
      return row.status();
    }
    if (!*row) break;
    out.push_back(StoredAttempt{lookup.Int(0), static_cast<int32_t>(lookup.Int(1)),
                                static_cast<int32_t>(lookup.Int(2)), lookup.Int(3) != 0,
                                lookup.Int(4), std::string(lookup.Blob(5)), false});
  }
  lookup.Reset();
  return absl::OkStatus();
}

// One task id: the batch's attempts of it (ascending) merged with the rows
// the index holds. The latest attempt is the highest number of either; when
// it moves, the old latest row leaves the tasks unit and the new one enters
// it, and every row's `attempts` follows.
absl::Status IndexWriter::WriteTask(int64_t session_id,
                                    std::span<std::pair<const TaskKey, TaskRecord>*> batch,
                                    const Reconciliation& context,
                                    std::map<SummaryKey, SummaryStats>& deltas, WriteStats& stats) {
  if (absl::Status loaded = LoadAttempts(session_id, batch.front()->first.task_id, stored_);
      !loaded.ok()) {
    return loaded;
  }
  int32_t latest = batch.back()->first.attempt;
  for (const StoredAttempt& row : stored_) latest = std::max(latest, row.attempt);
  const int64_t attempts = int64_t{latest} + 1;
  for (auto* entry : batch) {
    const int32_t attempt = entry->first.attempt;
    TaskRecord& task = entry->second;
    const bool is_latest = attempt == latest;
    auto row = std::find_if(stored_.begin(), stored_.end(),
                            [&](const StoredAttempt& r) { return r.attempt == attempt; });
    if (row != stored_.end()) {
      row->in_batch = true;
      TaskRecord stored;
      if (DecodeRecord(row->record, stored).ok()) {
        TaskRecord merged = stored;
        merged.Merge(task);
        const int32_t state = ReportedState(merged, context.finished_jobs, context.dead_nodes);
        std::string encoded = EncodeRecord(merged);
        if (encoded == row->record && state == row->state && is_latest == row->latest &&
            attempts == row->attempts) {
          ++stats.tasks_unchanged;
          continue;
        }
        AddContributions(stored, row->state, row->latest, -1, deltas);
        AddContributions(merged, state, is_latest, +1, deltas);
        if (absl::Status stored_ok =
                StoreTask(session_id, row->row_id, merged, state, is_latest, attempts, encoded);
            !stored_ok.ok()) {
          return stored_ok;
        }
        ++stats.tasks_updated;
        continue;
      }
      // A stored record that does not decode cannot be merged: replace it
      // with what this batch knows (its summary contribution is unknown, so
      // the summaries may stay off by one task; counted).
      ++stats.corrupt_records;
    }
    const int32_t state = ReportedState(task, context.finished_jobs, context.dead_nodes);
    AddContributions(task, state, is_latest, +1, deltas);
    if (absl::Status stored_ok = StoreTask(session_id, row != stored_.end() ? row->row_id : 0, task,
                                           state, is_latest, attempts, EncodeRecord(task));
        !stored_ok.ok()) {
      return stored_ok;
    }
    ++stats.tasks_inserted;
  }
  // Rows of this task the batch did not carry: a later attempt arrived, so
  // the row that was latest leaves the tasks unit, and every row learns the
  // new number of attempts.
  for (const StoredAttempt& row : stored_) {
    if (row.in_batch) continue;
    const bool is_latest = row.attempt == latest;
    if (is_latest == row.latest && attempts == row.attempts) continue;
    if (row.latest && !is_latest) {
      TaskRecord stored;
      if (DecodeRecord(row.record, stored).ok()) {
        AddContribution(stored, row.state, SummaryUnit::kTasks, -1, deltas);
      } else {
        ++stats.corrupt_records;
      }
    }
    absl::StatusOr<SqliteStatement*> update =
        db_.Cached("UPDATE tasks SET latest=?, attempts=? WHERE id=?");
    if (!update.ok()) return update.status();
    (*update)->Bind(1, is_latest ? 1 : 0).Bind(2, attempts).Bind(3, row.row_id);
    if (absl::Status ran = (*update)->Run(); !ran.ok()) return ran;
  }
  return absl::OkStatus();
}

absl::Status IndexWriter::WriteTasks(int64_t session_id, FoldedSession& folded,
                                     const Reconciliation& context,
                                     std::map<SummaryKey, SummaryStats>& deltas,
                                     WriteStats& stats) {
  // A task's attempts together, in attempt order; tasks in the order of
  // their first transition: most of the sort indexes are ordered by a time
  // (start, creation, end, and each value's rows by start), so consecutive
  // inserts then land on the index page the previous one used, as with an
  // append (a random page of a large index is a cache miss).
  std::vector<std::pair<const TaskKey, TaskRecord>*> ordered;
  ordered.reserve(folded.tasks.size());
  for (auto& entry : folded.tasks) ordered.push_back(&entry);
  std::sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
    return std::tie(a->first.task_id, a->first.attempt) <
           std::tie(b->first.task_id, b->first.attempt);
  });
  struct Group {
    int64_t first_ns;
    size_t begin, end;
  };
  std::vector<Group> groups;
  for (size_t begin = 0; begin < ordered.size();) {
    size_t end = begin + 1;
    while (end < ordered.size() && ordered[end]->first.task_id == ordered[begin]->first.task_id) {
      ++end;
    }
    const std::vector<TaskTransition>& transitions = ordered[begin]->second.transitions;
    groups.push_back({transitions.empty() ? INT64_MAX : transitions.front().time_ns, begin, end});
    begin = end;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.first_ns < b.first_ns; });
  for (const Group& group : groups) {
    if (absl::Status written =
            WriteTask(session_id, std::span(ordered).subspan(group.begin, group.end - group.begin),
                      context, deltas, stats);
        !written.ok()) {
      return written;
    }
  }
  return absl::OkStatus();
}

namespace {

// Merges `record` with the stored one of table/id and writes it back;
// `write` binds the table's own columns.
template <typename Record>
absl::StatusOr<Record> MergeStored(SqliteDb& db, std::string_view select, int64_t session_id,
                                   const std::string& id, Record&& record) {
  absl::StatusOr<SqliteStatement*> find = db.Cached(select);
  if (!find.ok()) return find.status();
  (*find)->Bind(1, session_id).BindText(2, id);
  absl::StatusOr<bool> row = (*find)->Step();
  if (!row.ok()) return row.status();
  if (*row) {
    Record stored;
    if (DecodeRecord((*find)->Blob(0), stored).ok()) {
      stored.Merge(record);
      (*find)->Reset();
      return stored;
    }
  }
  (*find)->Reset();
  return std::move(record);
}

}  // namespace

absl::Status IndexWriter::WriteEntities(int64_t session_id, FoldedSession& folded,
                                        Reconciliation& context, std::vector<std::string>& new_jobs,
                                        std::vector<std::string>& new_nodes) {
  for (auto& [id, actor] : folded.actors) {
    absl::StatusOr<ActorRecord> merged =
        MergeStored(db_, "SELECT record FROM actors WHERE session_id=? AND actor_id=?", session_id,
                    id, std::move(actor));
    if (!merged.ok()) return merged.status();
    absl::StatusOr<SqliteStatement*> put = db_.Cached(
        "INSERT OR REPLACE INTO actors(session_id, actor_id, state, class_name, name, job_id, "
        "record) VALUES (?,?,?,?,?,?,?)");
    if (!put.ok()) return put.status();
    const ActorDefinition& d = merged->definition.value;
    (*put)
        ->Bind(1, session_id)
        .BindText(2, id)
        .Bind(3, merged->state())
        .BindText(4, d.class_name)
        .BindText(5, d.name)
        .BindText(6, d.job_id)
        .BindBlob(7, EncodeRecord(*merged));
    if (absl::Status ran = (*put)->Run(); !ran.ok()) return ran;
  }
  for (auto& [id, job] : folded.jobs) {
    absl::StatusOr<JobRecord> merged =
        MergeStored(db_, "SELECT record FROM jobs WHERE session_id=? AND job_id=?", session_id, id,
                    std::move(job));
    if (!merged.ok()) return merged.status();
    const int64_t finished = merged->finished_ns();
    if (finished != kNoTime && !context.finished_jobs.contains(id)) {
      context.finished_jobs.emplace(id, finished);
      new_jobs.push_back(id);
    }
    absl::StatusOr<SqliteStatement*> put = db_.Cached(
        "INSERT OR REPLACE INTO jobs(session_id, job_id, finished_ns, record) VALUES (?,?,?,?)");
    if (!put.ok()) return put.status();
    (*put)
        ->Bind(1, session_id)
        .BindText(2, id)
        .Bind(3, OrMinusOne(finished))
        .BindBlob(4, EncodeRecord(*merged));
    if (absl::Status ran = (*put)->Run(); !ran.ok()) return ran;
  }
  for (auto& [id, node] : folded.nodes) {
    absl::StatusOr<NodeRecord> merged =
        MergeStored(db_, "SELECT record FROM nodes WHERE session_id=? AND node_id=?", session_id,
                    id, std::move(node));
    if (!merged.ok()) return merged.status();
    const int64_t dead = merged->dead_ns();
    if (dead != kNoTime && !context.dead_nodes.contains(id)) {
      context.dead_nodes.emplace(id, dead);
      new_nodes.push_back(id);
    }
    absl::StatusOr<SqliteStatement*> put = db_.Cached(
        "INSERT OR REPLACE INTO nodes(session_id, node_id, dead_ns, record) VALUES (?,?,?,?)");
    if (!put.ok()) return put.status();
    (*put)
        ->Bind(1, session_id)
        .BindText(2, id)
        .Bind(3, OrMinusOne(dead))
        .BindBlob(4, EncodeRecord(*merged));
    if (absl::Status ran = (*put)->Run(); !ran.ok()) return ran;
  }
  for (auto& [id, worker] : folded.workers) {
    absl::StatusOr<WorkerRecord> merged =
        MergeStored(db_, "SELECT record FROM workers WHERE session_id=? AND worker_id=?",
                    session_id, id, std::move(worker));
    if (!merged.ok()) return merged.status();
    absl::StatusOr<SqliteStatement*> put =
        db_.Cached("INSERT OR REPLACE INTO workers(session_id, worker_id, record) VALUES (?,?,?)");
    if (!put.ok()) return put.status();
    (*put)->Bind(1, session_id).BindText(2, id).BindBlob(3, EncodeRecord(*merged));
    if (absl::Status ran = (*put)->Run(); !ran.ok()) return ran;
  }
  return absl::OkStatus();
}

absl::Status IndexWriter::Reconcile(int64_t session_id, const Reconciliation& context,
                                    std::map<SummaryKey, SummaryStats>& deltas, WriteStats& stats) {
  // Only tasks whose raw state is not terminal can change: those reported
  // in a non-terminal state or already reconciled (a job that finishes
  // after the task's node died wins). The state index makes this a probe
  // per state.
  std::string states = strings::Cat(kUnknownJobFinished, ",", kUnknownNodeDied);
  for (int32_t state = 0; state <= 13; ++state) {
    if (!IsTerminalTaskState(state)) strings::Append(states, ",", state);
  }
  absl::StatusOr<SqliteStatement> select = db_.Prepare(strings::Cat(
      "SELECT id, state, record, latest, attempts FROM tasks WHERE session_id=? AND state IN (",
      states, ")"));
  if (!select.ok()) return select.status();
  select->Bind(1, session_id);
  struct Change {
    int64_t row_id;
    TaskRecord task;
    int32_t state;
    std::string encoded;
    bool latest;
    int64_t attempts;
  };
  std::vector<Change> changes;
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    TaskRecord task;
    if (!DecodeRecord(select->Blob(2), task).ok()) continue;
    const auto old_state = static_cast<int32_t>(select->Int(1));
    const int32_t state = ReportedState(task, context.finished_jobs, context.dead_nodes);
    if (state == old_state) continue;
    const bool latest = select->Int(3) != 0;
    AddContributions(task, old_state, latest, -1, deltas);
    AddContributions(task, state, latest, +1, deltas);
    changes.push_back({select->Int(0), std::move(task), state, std::string(select->Blob(2)), latest,
                       select->Int(4)});
  }
  for (const Change& change : changes) {
    if (absl::Status stored = StoreTask(session_id, change.row_id, change.task, change.state,
                                        change.latest, change.attempts, change.encoded);
        !stored.ok()) {
      return stored;
    }
    ++stats.tasks_reconciled;
  }
  return absl::OkStatus();
}

namespace {

// Binds a summary row's key as parameters 1..7.
void BindKey(SqliteStatement& statement, int64_t session_id, const SummaryKey& key) {
  statement.Bind(1, session_id)
      .Bind(2, key.unit)
      .Bind(3, key.dim)
      .BindText(4, key.value)
      .BindText(5, key.job_id)
      .Bind(6, key.task_type)
      .Bind(7, key.state);
}

}  // namespace

absl::Status IndexWriter::ApplySummaries(int64_t session_id,
                                         const std::map<SummaryKey, SummaryStats>& deltas) {
  absl::StatusOr<SqliteStatement> find = db_.Prepare(
      "SELECT count, stats FROM summary WHERE session_id=?1 AND unit=?2 AND dim=?3 AND value=?4 "
      "AND job_id=?5 AND task_type=?6 AND state=?7");
  absl::StatusOr<SqliteStatement> put = db_.Prepare(
      "INSERT OR REPLACE INTO summary(session_id, unit, dim, value, job_id, task_type, state, "
      "count, stats) VALUES (?,?,?,?,?,?,?,?,?)");
  absl::StatusOr<SqliteStatement> remove = db_.Prepare(
      "DELETE FROM summary WHERE session_id=?1 AND unit=?2 AND dim=?3 AND value=?4 AND job_id=?5 "
      "AND task_type=?6 AND state=?7");
  if (!find.ok()) return find.status();
  if (!put.ok()) return put.status();
  if (!remove.ok()) return remove.status();
  for (const auto& [key, delta] : deltas) {
    if (delta.count == 0 && delta.pending.empty() && delta.running.empty() && delta.total.empty()) {
      continue;
    }
    find->Reset();
    BindKey(*find, session_id, key);
    absl::StatusOr<bool> row = find->Step();
    if (!row.ok()) return row.status();
    SummaryStats current;
    if (*row) {
      current.count = find->Int(0);
      (void)current.Decode(find->Blob(1));
    }
    find->Reset();
    current.Merge(delta);
    if (current.count <= 0) {
      remove->Reset();
      BindKey(*remove, session_id, key);
      if (absl::Status ran = remove->Run(); !ran.ok()) return ran;
      continue;
    }
    put->Reset();
    BindKey(*put, session_id, key);
    put->Bind(8, current.count).BindBlob(9, current.Encode());
    if (absl::Status ran = put->Run(); !ran.ok()) return ran;
  }
  return absl::OkStatus();
}

absl::StatusOr<WriteStats> IndexWriter::WriteBatch(int64_t session_id, BatchInput&& batch) {
  WriteStats stats;
  SqliteTransaction transaction(db_);
  if (!transaction.status().ok()) return transaction.status();
  Reconciliation context;
  if (absl::Status loaded = LoadReconciliation(session_id, context); !loaded.ok()) return loaded;
  std::vector<std::string> new_jobs, new_nodes;
  // Jobs and nodes first: a task of this batch whose job finished in this
  // batch is reconciled on its first write.
  if (absl::Status written = WriteEntities(session_id, batch.folded, context, new_jobs, new_nodes);
      !written.ok()) {
    return written;
  }
  std::map<SummaryKey, SummaryStats> deltas;
  if (absl::Status written = WriteTasks(session_id, batch.folded, context, deltas, stats);
      !written.ok()) {
    return written;
  }
  if (!new_jobs.empty() || !new_nodes.empty()) {
    if (absl::Status reconciled = Reconcile(session_id, context, deltas, stats); !reconciled.ok()) {
      return reconciled;
    }
  }
  if (absl::Status applied = ApplySummaries(session_id, deltas); !applied.ok()) return applied;

  uint64_t object_bytes = 0, bad_lines = 0, bad_objects = 0;
  uint64_t new_objects = 0, new_events = 0;
  int64_t dropped_task_attempts = 0;
  for (const ObjectOutcome& object : batch.objects) {
    // An object read again (positions lost, a forced re-read) is not
    // counted twice, nor are the losses its manifest reports.
    absl::StatusOr<SqliteStatement*> seen =
        db_.Cached("SELECT 1 FROM objects WHERE session_id=? AND key=?");
    if (!seen.ok()) return seen.status();
    (*seen)->Bind(1, session_id).BindText(2, object.key);
    absl::StatusOr<bool> known = (*seen)->Step();
    if (!known.ok()) return known.status();
    (*seen)->Reset();
    if (!*known) {
      ++new_objects;
      new_events += object.events;
      object_bytes += object.size;
      bad_lines += object.bad_lines;
      bad_objects += object.error.empty() ? 0 : 1;
      // A manifest is anyone's input: a sum that would overflow stays at the limit.
      if (object.dropped_task_attempts > 0 &&
          __builtin_add_overflow(dropped_task_attempts, object.dropped_task_attempts,
                                 &dropped_task_attempts)) {
        dropped_task_attempts = INT64_MAX;
      }
    }
    absl::StatusOr<SqliteStatement*> put = db_.Cached(
        "INSERT OR REPLACE INTO objects(session_id, key, size, events, bad_lines, error, writer, "
        "seq_first, seq_last, writer_drops, manifest_events, seq_void) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!put.ok()) return put.status();
    (*put)
        ->Bind(1, session_id)
        .BindText(2, object.key)
        .Bind(3, static_cast<int64_t>(object.size))
        .Bind(4, static_cast<int64_t>(object.events))
        .Bind(5, static_cast<int64_t>(object.bad_lines))
        .BindText(6, object.error)
        .BindText(7, object.writer)
        .Bind(8, object.seq_first)
        .Bind(9, object.seq_last)
        .Bind(10, object.writer_drops)
        .Bind(11, object.manifest_events)
        .BindText(12, object.seq_void);
    if (absl::Status ran = (*put)->Run(); !ran.ok()) return ran;
  }
  for (const PrefixProgress& progress : batch.progress) {
    absl::StatusOr<SqliteStatement*> put =
        db_.Cached("INSERT OR REPLACE INTO prefixes(session_id, prefix, last_key) VALUES (?,?,?)");
    if (!put.ok()) return put.status();
    (*put)->Bind(1, session_id).BindText(2, progress.prefix).BindText(3, progress.last_key);
    if (absl::Status ran = (*put)->Run(); !ran.ok()) return ran;
  }
  const FoldedSession& folded = batch.folded;
  absl::StatusOr<SqliteStatement*> session = db_.Cached(
      "UPDATE sessions SET "
      "first_event_ns = CASE WHEN ?2 >= 0 AND (first_event_ns < 0 OR ?2 < first_event_ns) "
      "  THEN ?2 ELSE first_event_ns END, "
      "last_event_ns = max(last_event_ns, ?3), "
      "last_new_object_ms = CASE WHEN ?4 > 0 THEN ?4 ELSE last_new_object_ms END, "
      "status = CASE WHEN ?4 > 0 THEN 'live' ELSE status END, "
      "gone_since_ms = CASE WHEN ?4 > 0 THEN 0 ELSE gone_since_ms END, "
      "objects = objects + ?5, object_bytes = object_bytes + ?6, events = events + ?7, "
      "ignored_events = ignored_events + ?8, bad_lines = bad_lines + ?9, "
      "bad_objects = bad_objects + ?10, dropped_task_attempts = dropped_task_attempts + ?11 "
      "WHERE id = ?1");
  if (!session.ok()) return session.status();
  (*session)
      ->Bind(1, session_id)
      .Bind(2, OrMinusOne(folded.first_event_ns))
      .Bind(3, OrMinusOne(folded.last_event_ns))
      .Bind(4, batch.now_ms)
      .Bind(5, static_cast<int64_t>(new_objects))
      .Bind(6, static_cast<int64_t>(object_bytes))
      .Bind(7, static_cast<int64_t>(batch.objects.empty() ? folded.counters.events : new_events))
      .Bind(8, static_cast<int64_t>(folded.counters.ignored_events))
      .Bind(9, static_cast<int64_t>(bad_lines))
      .Bind(10, static_cast<int64_t>(bad_objects))
      .Bind(11, dropped_task_attempts);
  if (absl::Status ran = (*session)->Run(); !ran.ok()) return ran;
  if (absl::Status committed = transaction.Commit(); !committed.ok()) return committed;
  return stats;
}

absl::Status IndexWriter::DropSession(int64_t session_id, const SessionRemoval* tombstone) {
  SqliteTransaction transaction(db_);
  if (!transaction.status().ok()) return transaction.status();
  if (absl::Status dropped = search_.DropSession(session_id); !dropped.ok()) return dropped;
  for (const char* table :
       {"tasks", "actors", "jobs", "nodes", "workers", "summary", "objects", "prefixes"}) {
    absl::StatusOr<SqliteStatement> remove =
        db_.Prepare(strings::Cat("DELETE FROM ", table, " WHERE session_id=?"));
    if (!remove.ok()) return remove.status();
    remove->Bind(1, session_id);
    if (absl::Status ran = remove->Run(); !ran.ok()) return ran;
  }
  absl::StatusOr<SqliteStatement> remove = db_.Prepare(
      tombstone != nullptr
          ? "UPDATE sessions SET status='evicted', objects=0, object_bytes=0, events=0, "
            "ignored_events=0, bad_lines=0, bad_objects=0, retrying_objects='', "
            "skipped_prefixes=0, removed_reason=?2, removed_ms=?3, removed_detail=?4 WHERE id=?1"
          : "DELETE FROM sessions WHERE id=?1");
  if (!remove.ok()) return remove.status();
  remove->Bind(1, session_id);
  if (tombstone != nullptr) {
    remove->BindText(2, tombstone->reason)
        .Bind(3, tombstone->removed_ms)
        .BindText(4, tombstone->detail);
  }
  if (absl::Status ran = remove->Run(); !ran.ok()) return ran;
  return transaction.Commit();
}

}  // namespace rayagg::history
