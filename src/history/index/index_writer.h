// Writes folded batches into the index, one transaction per batch: every
// record is merged with the stored one (task_record.h's join, so a batch
// read twice changes nothing), the per-group summaries move each attempt's
// contribution from its old to its new state (in the attempts unit) and each
// task's from its old to its new latest attempt (in the tasks unit), tasks
// of finished jobs and dead nodes are reconciled, and the store positions
// (prefix -> last key) advance in the same commit, so a restart resumes
// exactly where the last commit ended. Every step keeps one invariant: the
// summaries are the sum of the contributions of the rows as they are, so
// the result does not depend on the order or the batches attempts come in.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "history/fold/reducer.h"
#include "history/index/duration_stats.h"
#include "history/index/search_texts.h"
#include "history/index/session_removal.h"
#include "history/index/sqlite.h"

namespace rayagg::history {

// Where a session lives in the store's layout.
struct SessionIdentity {
  std::string kind;  // raycluster | rayjob | rayservice
  std::string ray_namespace;
  std::string owner;  // rayjob/rayservice name, else ""
  std::string cluster_name;
  std::string name;  // session_...
  // "<kind>/<namespace>/[<owner>/]<cluster>": how the API names the cluster.
  std::string cluster() const;
};

// What became of one object of the store.
struct ObjectOutcome {
  std::string key;
  uint64_t size = 0;
  uint64_t events = 0;
  uint64_t bad_lines = 0;
  std::string error;  // why it could not be read at all, else ""
  // The writer manifest (our sink's object metadata), when present.
  std::string writer;
  int64_t seq_first = -1, seq_last = -1, writer_drops = -1, manifest_events = -1;
  std::string seq_void;  // rayagg-seq-void when well-formed, else ""
  // Task attempts Ray's senders reported dropped (rayagg-dropped-task-attempts).
  int64_t dropped_task_attempts = 0;
};

struct PrefixProgress {
  std::string prefix;
  std::string last_key;
};

struct BatchInput {
  FoldedSession folded;
  std::vector<ObjectOutcome> objects;
  std::vector<PrefixProgress> progress;
  int64_t now_ms = 0;  // when new objects were seen (0: none were)
};

struct WriteStats {
  uint64_t tasks_inserted = 0;
  uint64_t tasks_updated = 0;
  uint64_t tasks_unchanged = 0;
  uint64_t tasks_reconciled = 0;
  uint64_t corrupt_records = 0;  // stored records that failed to decode (replaced)
};

// Summary dimensions (the `dim` column).
enum class SummaryDim : int { kJob = 0, kFunction = 1, kErrorType = 2, kNode = 3 };

// What the summary counts (the `unit` column): every attempt, or every task
// by its latest attempt (the row with tasks.latest = 1).
enum class SummaryUnit : int { kAttempts = 0, kTasks = 1 };

struct SummaryKey {
  int unit = 0;  // SummaryUnit
  int dim = 0;
  std::string value;
  std::string job_id;
  int32_t task_type = 0;
  int32_t state = 0;
  friend auto operator<=>(const SummaryKey&, const SummaryKey&) = default;
};

struct SummaryStats {
  int64_t count = 0;
  DurationStats pending, running, total;
  void Merge(const SummaryStats& other, int64_t sign = 1);
  std::string Encode() const;
  absl::Status Decode(std::string_view bytes);
};

// "TASK_EXECUTION_EXCEPTION", or the number for a value this build lacks.
std::string ErrorTypeName(int32_t error_type);
// Raw bytes from lowercase or uppercase hex; nullopt for anything else.
std::optional<std::string> BytesFromHex(std::string_view hex);

class IndexWriter {
 public:
  // `search`: false leaves the search's texts empty (the benchmark's
  // baseline; q= then finds nothing).
  explicit IndexWriter(SqliteDb& db, bool search = true)
      : db_(db), search_(db), search_on_(search) {}

  // The session's row id, creating the row on first sight.
  absl::StatusOr<int64_t> EnsureSession(const SessionIdentity& session, bool has_marker);
  absl::StatusOr<WriteStats> WriteBatch(int64_t session_id, BatchInput&& batch);
  // Removes everything indexed for the session; with a `tombstone` its row
  // stays, marked 'evicted' with why and when (session_removal.h), so that
  // discovery does not index it again and the API can say what became of it.
  absl::Status DropSession(int64_t session_id, const SessionRemoval* tombstone = nullptr);

 private:
  struct Reconciliation {
    std::unordered_map<std::string, int64_t> finished_jobs;
    std::unordered_map<std::string, int64_t> dead_nodes;
  };
  absl::StatusOr<int64_t> NameId(std::string_view text);
  absl::Status LoadReconciliation(int64_t session_id, Reconciliation& out);
  absl::Status WriteTasks(int64_t session_id, FoldedSession& folded, const Reconciliation& context,
                          std::map<SummaryKey, SummaryStats>& deltas, WriteStats& stats);
  absl::Status WriteEntities(int64_t session_id, FoldedSession& folded, Reconciliation& context,
                             std::vector<std::string>& new_jobs,
                             std::vector<std::string>& new_nodes);
  absl::Status Reconcile(int64_t session_id, const Reconciliation& context,
                         std::map<SummaryKey, SummaryStats>& deltas, WriteStats& stats);
  absl::Status ApplySummaries(int64_t session_id, const std::map<SummaryKey, SummaryStats>& deltas);
  // The rows the index holds for one task id (every attempt), and the
  // batch's attempts of it merged into them.
  struct StoredAttempt {
    int64_t row_id = 0;
    int32_t attempt = 0;
    int32_t state = 0;
    bool latest = false;
    int64_t attempts = 0;
    std::string record;
    bool in_batch = false;
  };
  absl::Status LoadAttempts(int64_t session_id, const std::string& task_id,
                            std::vector<StoredAttempt>& out);
  absl::Status WriteTask(int64_t session_id, std::span<std::pair<const TaskKey, TaskRecord>*> batch,
                         const Reconciliation& context, std::map<SummaryKey, SummaryStats>& deltas,
                         WriteStats& stats);
  // Writes every column of one attempt's row (row_id 0: a new row).
  absl::Status StoreTask(int64_t session_id, int64_t row_id, const TaskRecord& task, int32_t state,
                         bool latest, int64_t attempts, const std::string& encoded);

  std::vector<StoredAttempt> stored_;  // LoadAttempts' buffer, reused

  SqliteDb& db_;
  std::unordered_map<std::string, int64_t> name_ids_;
  SearchTexts search_;
  const bool search_on_;
};

// The state a task is reported in: its last transition's, unless that is
// not terminal and its job finished or its node died.
int32_t ReportedState(const TaskRecord& task,
                      const std::unordered_map<std::string, int64_t>& finished_jobs,
                      const std::unordered_map<std::string, int64_t>& dead_nodes);

// Adds (sign +1) or removes (-1) an attempt's contribution to the summaries
// of one unit.
void AddContribution(const TaskRecord& task, int32_t state, SummaryUnit unit, int64_t sign,
                     std::map<SummaryKey, SummaryStats>& deltas);
// Both units: the attempts unit always, the tasks unit when the attempt is
// its task's latest.
void AddContributions(const TaskRecord& task, int32_t state, bool latest, int64_t sign,
                      std::map<SummaryKey, SummaryStats>& deltas);

}  // namespace rayagg::history
