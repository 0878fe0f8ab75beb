// The indexer: finds sessions in the store and folds their new objects into
// the index, bounded in memory and in store requests (docs/HISTORY.md
// "Indexing").
//
//   discovery   cluster-metadata/ markers, and cluster-history/ walked one
//               level at a time with delimiter listings (sessions KubeRay's
//               own collector wrote have no marker), every discovery_interval;
//   polling     each live session's event prefixes
//               (<node>/node_events/, <node>/job_events/<job>/) listed from
//               the last indexed key (StartAfter): objects are immutable and
//               sort by time inside a prefix, so nothing is listed twice;
//   batches     objects are folded in memory up to batch_max_bytes, then
//               written in one transaction with the new prefix positions;
//   idle        a session with no new object for session_idle is listed once
//               more, then only when asked (Refresh);
//   failures    an object that cannot be read is retried in later passes
//               and its prefix waits for it, until the failure is final (a
//               404, too large, a refused key) or it failed
//               max_object_attempts passes in a row: then it is recorded as
//               bad and passed (read_failures.h). A node or job directory
//               that cannot be listed is skipped, not its whole session;
//   bounds      retention (time since a session last had something new
//               indexed or its last event, whichever is later; or since its
//               objects disappeared) and max_bytes (oldest sessions first)
//               remove sessions; a removed session is remembered as evicted,
//               with why (session_removal.h), and not indexed again.
//
// RunOnce() does one pass on the calling thread (tests call it directly);
// Start() runs passes every poll_interval on a thread of its own.
#pragma once

#include <spdlog/logger.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "history/fold/object_folder.h"
#include "history/index/index_writer.h"
#include "history/index/read_failures.h"
#include "history/index/session_removal.h"
#include "history/index/sqlite.h"
#include "history/index/store_reader.h"
#include "history/ops/history_metrics.h"
#include "rayagg/mutex.h"

namespace rayagg::history {

struct IndexerOptions {
  std::chrono::milliseconds poll_interval{10'000};
  std::chrono::milliseconds discovery_interval{60'000};
  std::chrono::milliseconds session_idle{3'600'000};
  std::chrono::milliseconds retention{30LL * 24 * 3'600'000};  // 0: keep every session
  // How often an idle session is checked for having disappeared.
  std::chrono::milliseconds presence_check_interval{3'600'000};
  uint64_t max_index_bytes = 50ull << 30;
  uint64_t batch_max_bytes = 64ull << 20;    // folded state held before a write
  uint64_t max_object_bytes = 256ull << 20;  // larger objects are skipped and counted
  uint64_t max_event_bytes = 64ull << 20;
  // Passes in a row an object may fail to be read before it is passed.
  uint32_t max_object_attempts = 5;
};

class Indexer {
 public:
  using Clock = std::function<int64_t()>;  // wall-clock ms

  Indexer(SqliteDb& db, std::string index_dir, StoreReader& store, IndexerOptions options,
          HistoryMetrics& metrics, std::shared_ptr<spdlog::logger> logger, Clock now_ms);
  ~Indexer();  // Stop()

  // One pass: discovery when due, then every session that needs it.
  // Returns the first store or index error (the pass goes on past store
  // errors of single sessions; an index error stops it).
  absl::Status RunOnce();

  // False while the last finished pass failed store-wide or on the index:
  // an index error, a failed discovery, every polled session's listing
  // failing, or reads that failed while the store served no object at all.
  // True before the first pass ends. Also HistoryMetrics::last_pass_ok.
  bool LastPassSucceeded() const { return metrics_.last_pass_ok.load(); }

  void Start();
  // Ends the running pass at its next batch boundary and joins the thread.
  void Stop();

  // Asks for a listing of one session (also an idle or gone one) in the
  // next pass, and wakes the thread.
  void Refresh(const std::string& cluster, const std::string& session_name);

 private:
  struct SessionState {
    int64_t id = 0;
    SessionIdentity identity;
    std::string prefix;  // cluster-history/.../<session>/
    std::string status;
    int64_t last_new_object_ms = 0;
    int64_t last_presence_check_ms = 0;
    RetryCounts retrying;  // failed tries of objects not read yet
    int64_t skipped_prefixes = 0;
  };

  // A read that failed in this pass and may pass: settled at the pass's end.
  struct ReadFailure {
    size_t session = 0;  // index into sessions_
    std::string prefix;  // relative to the session
    StoreEntry entry;
    absl::Status status;
    std::string next_key;  // the object after it in its prefix ("" if none)
  };
  struct Pass {
    uint64_t objects_read = 0;  // successful Gets
    uint64_t pending = 0;       // listed and not yet settled
    std::vector<ReadFailure> failures;
    uint64_t sessions_polled = 0, sessions_unlisted = 0;
    std::string first_store_error;  // discovery's or a session's listing (escaped)
    bool store_failed = false;      // store-wide: not ready
  };

  absl::Status Discover();
  absl::Status DiscoverMarkers();
  absl::Status DiscoverHistory();
  absl::Status LoadSessions();
  // These return index errors only; the store's land in `pass`.
  absl::Status PollSession(size_t index, Pass& pass);
  absl::Status ListEventPrefixes(SessionState& session, std::vector<std::string>& prefixes,
                                 Pass& pass, absl::Status& store_error);
  absl::Status IndexObjects(size_t index, std::vector<std::pair<std::string, StoreEntry>>& objects,
                            Pass& pass);
  absl::Status SettleFailures(Pass& pass);
  absl::Status SaveSessionCounters(const SessionState& session);
  // Counts and logs (escaped) a directory skipped because it cannot be listed.
  void SkipPrefix(const std::string& prefix, const absl::Status& why);
  absl::Status ApplyBounds();
  absl::Status Evict(int64_t id, SessionRemoval removal);
  absl::Status RunPass(Pass& pass);
  absl::Status NoteSession(const SessionIdentity& identity, bool marker);
  absl::Status SetStatus(SessionState& session, const std::string& status, int64_t gone_since);
  // Every page of a listing.
  absl::Status ListAll(StoreListRequest request,
                       const std::function<void(const StoreListPage&)>& on_page);
  bool stopping() const { return stop_.load(std::memory_order_relaxed); }

  SqliteDb& db_;
  const std::string index_dir_;
  StoreReader& store_;
  const IndexerOptions options_;
  HistoryMetrics& metrics_;
  std::shared_ptr<spdlog::logger> logger_;
  const Clock now_ms_;
  IndexWriter writer_;
  ObjectFolder folder_;

  std::vector<SessionState> sessions_;
  int64_t last_discovery_ms_ = -1;
  // Directories already logged as unlistable: warned once, not every pass.
  std::set<std::string> warned_prefixes_;
  bool discovery_index_error_ = false;  // Discover() failed on the index, not the store

  Mutex mutex_;
  CondVar wake_;
  std::set<std::pair<std::string, std::string>> refresh_ ABSL_GUARDED_BY(mutex_);
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// True for an event file name as KubeRay's reader accepts it: "-", a
// YYYY-MM-DD-HH hour stamp, optionally "-<digits>", optionally ".jsonl",
// optionally ".gz", at the end of the name.
bool IsEventFileName(std::string_view name);

}  // namespace rayagg::history
