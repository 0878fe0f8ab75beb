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
//   bounds      retention (age of a session's last event, or time since its
//               objects disappeared) and max_bytes (oldest sessions first)
//               remove sessions; a removed session whose objects remain is
//               remembered as evicted and not indexed again.
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
#include "history/index/sqlite.h"
#include "history/index/store_reader.h"
#include "history/ops/history_metrics.h"
#include "rayagg/mutex.h"

namespace rayagg::history {

struct IndexerOptions {
  std::chrono::milliseconds poll_interval{10'000};
  std::chrono::milliseconds discovery_interval{60'000};
  std::chrono::milliseconds session_idle{3'600'000};
  std::chrono::milliseconds retention{30LL * 24 * 3'600'000};
  // How often an idle session is checked for having disappeared.
  std::chrono::milliseconds presence_check_interval{3'600'000};
  uint64_t max_index_bytes = 50ull << 30;
  uint64_t batch_max_bytes = 64ull << 20;    // folded state held before a write
  uint64_t max_object_bytes = 256ull << 20;  // larger objects are skipped and counted
  uint64_t max_event_bytes = 64ull << 20;
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
  };

  absl::Status Discover();
  absl::Status DiscoverMarkers();
  absl::Status DiscoverHistory();
  absl::Status LoadSessions();
  absl::Status PollSession(SessionState& session, bool forced);
  absl::Status IndexObjects(SessionState& session,
                            std::vector<std::pair<std::string, StoreEntry>>& objects);
  absl::Status ApplyBounds();
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
