// The disk spool (docs/SPOOL.md): the event log's records in segment files,
// written by one writer thread, read back by sinks after a restart or when
// memory let go of them, freed once every sink released them.
//
//   Open()          lock, headers, ledger: fast, before serving.
//   StartRecovery() scans what an earlier run left, on its own thread;
//                   serving goes on meanwhile, into new segments.
//   Start()         starts the writer thread, which takes the log's record
//                   stream (RecordSource) and appends it, in groups:
//                   Submit(end, done) calls `done` once the stream up to
//                   `end` is written (fsync'd too with sync: always, one
//                   fsync covering every request waiting when it starts).
//
// The writer thread also fsyncs at the interval (sync: <duration>), writes
// the ledger after releases, deletes segments every sink released, and
// keeps the files within max_bytes by evicting the oldest segment (the
// log counts what each sink loses). After a write or fsync error it writes
// the records again from memory into a new segment; if that fails too the
// spool is down: on_write_error: memory acknowledges from memory,
// on_write_error: refuse answers UNAVAILABLE; either way it retries every
// retry_interval.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/latency_histogram.h"
#include "rayagg/mutex.h"
#include "spool/disk_reader.h"
#include "spool/file_system.h"
#include "spool/ledger.h"
#include "spool/record_source.h"
#include "spool/recovery.h"
#include "spool/segment_set.h"
#include "spool/spool_writer.h"

namespace rayagg {
class Clock;
}

namespace rayagg::spool {

enum class OnWriteError {
  kMemory,  // acknowledge from memory (as without a spool) until the disk works again
  kRefuse,  // refuse requests (UNAVAILABLE / 503) until the disk works again
};

struct SpoolOptions {
  std::string directory = {};
  uint64_t max_bytes = 0;
  uint64_t segment_bytes = 64ull << 20;
  SyncMode sync = SyncMode::kInterval;
  std::chrono::milliseconds sync_interval{100};
  OnWriteError on_write_error = OnWriteError::kMemory;
  std::chrono::milliseconds retry_interval{1000};
};

enum class SpoolHealth {
  kHealthy,
  kMemory,    // down; acknowledgements mean "in memory"
  kRefusing,  // down; requests are refused
};

std::string_view SpoolHealthName(SpoolHealth health);

class SpoolListener {
 public:
  virtual ~SpoolListener() = default;
  // The stream before `position` is durable as the sync mode promises:
  // memory may let go of it (sinks then read it from disk).
  virtual void OnDurable(uint64_t position) = 0;
  // `segment` must go to keep the spool within max_bytes: count what each
  // sink had not read in it as dropped and move its readers past it. The
  // file is still there (DiskReader can read it) during the call.
  virtual void OnEvict(const SegmentInfo& segment) = 0;
  // Whether `segment` may be evicted to make room: not while a sink with
  // when_full: block has not read its entries (the log refuses requests
  // instead). Then the writer writes past max_bytes by what was already
  // accepted. On the writer thread.
  virtual bool MayEvict(const SegmentInfo& /*segment*/) { return true; }
  virtual void OnHealthChanged(SpoolHealth health, const std::string& reason) = 0;
  // Something went wrong and was handled (a failed write rewritten into a
  // new segment, a segment that could not be deleted): one line for the log.
  virtual void OnProblem(const std::string& line) = 0;
};

using Completion = std::function<void(absl::Status)>;

struct SpoolStats {
  uint64_t bytes = 0;  // segment files on disk
  uint64_t segments = 0;
  uint64_t indexed_parts = 0;
  uint64_t written_bytes = 0;  // record bytes written since start (copies included)
  uint64_t write_errors = 0;
  uint64_t sync_errors = 0;
  uint64_t ledger_errors = 0;
  uint64_t evicted_segments = 0;
  uint64_t deleted_segments = 0;
  bool recovering = false;
  uint64_t recovered_records = 0;
  uint64_t recovered_bytes = 0;
  uint64_t corrupt_regions = 0;
  uint64_t torn_bytes = 0;
  uint64_t moved_aside_segments = 0;  // at Open and by recovery
  SpoolHealth health = SpoolHealth::kHealthy;
};

class Spool {
 public:
  // Step 1 of OpenSpoolDirectory; the spool keeps the directory locked.
  // `clock` schedules fsyncs and retries and times writes (tests that pump
  // the writer by hand pass a ManualClock); it outlives the spool.
  static absl::StatusOr<std::unique_ptr<Spool>> Open(FileSystem& fs, Clock& clock,
                                                     SpoolOptions options, std::string_view owner);
  ~Spool();  // Stop()
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  const SpoolOptions& options() const { return options_; }
  // Above every sequence on disk: where this run's entries start.
  uint64_t first_sequence() const { return opened_.next_sequence; }
  // The ledger as found at Open (sink name -> released position).
  const LedgerState& ledger() const { return opened_.ledger; }
  // What Open moved aside or repaired, for the log.
  const std::vector<std::string>& open_problems() const { return opened_.problems; }

  // Scans the earlier run's segments on a thread of its own; calls `done`
  // there when the records are readable (DiskReader) and counted.
  void StartRecovery(RecordVisitor visitor, std::function<void(const RecoveryReport&)> done);
  // The same on the calling thread.
  RecoveryReport Recover(const RecordVisitor& visitor);
  bool recovering() const { return recovering_.load(); }
  // Once recovery is done: one past the newest entry the earlier runs left
  // (0 if none). Sequences from there to first_sequence() are no entry's.
  uint64_t recovered_end() const { return recovered_end_.load(); }

  // Starts the writer thread on `source`, whose stream begins at
  // `stream_start`. `listener` outlives the spool's threads.
  void Start(RecordSource& source, SpoolListener& listener, uint64_t stream_start);
  // The same without a thread: the caller runs the writer with Pump()
  // (tests step it through faults and crashes deterministically).
  void StartManual(RecordSource& source, SpoolListener& listener, uint64_t stream_start);
  // One pass of the writer: free space, write what was submitted, fsync
  // when due, retry when down, write the ledger, complete requests.
  void Pump();

  // `done` is called (on the writer thread, or here when the answer is
  // known at once) when the stream up to `end` is written as the sync mode
  // promises: OK; OK as well while down under on_write_error: memory;
  // UNAVAILABLE while down under on_write_error: refuse. Keep it cheap.
  void Submit(uint64_t end, Completion done);

  // Sinks' released positions (name -> position) for the ledger, and the
  // smallest of them: segments wholly below it are deleted (by the writer
  // thread). The ledger is written here, on the releasing thread, before
  // the sink can deliver anything more: a crash then replays at most the
  // batches in flight. Thread-safe.
  void UpdatePositions(std::vector<std::pair<std::string, uint64_t>> positions,
                       uint64_t min_released);

  // The segments the writer would evict (oldest first) to make room for
  // the record stream up to `stream_end` plus `more_bytes`: what accepting
  // that many more bytes costs, so the log can refuse them for a sink with
  // when_full: block. Empty while within max_bytes. Thread-safe.
  std::vector<SegmentInfo> SegmentsToEvictFor(uint64_t stream_end, uint64_t more_bytes) const;

  SpoolHealth health() const { return health_.load(); }
  SpoolStats Stats() const;
  const SegmentSet& segments() const { return segments_; }
  FileSystem& file_system() { return fs_; }
  const LatencyHistogram& write_latency() const { return write_latency_; }
  const LatencyHistogram& sync_latency() const { return sync_latency_; }

  // Writes and syncs what was submitted, writes the ledger, seals the
  // segment, joins the threads, releases the directory's lock. Idempotent.
  void Stop();
  // Stops a manual spool without writing anything more: what a crash
  // leaves behind (tests).
  void Abandon();

  // The writer's positions in the record stream (manual spools, tests).
  uint64_t written_position() const { return writer_->written(); }
  uint64_t synced_position() const { return writer_->synced(); }

 private:
  Spool(FileSystem& fs, Clock& clock, SpoolOptions options, OpenedDirectory opened);

  void Run();
  void PumpOnce(bool stopping);
  // Seals the segment and answers whatever still waits (the end of Stop).
  void Finish();
  std::chrono::steady_clock::time_point Now() const;
  // Runs `call`, observing how long it took (by the clock) in `histogram`.
  template <typename Call>
  absl::Status Timed(LatencyHistogram& histogram, Call call);
  // Writing and syncing while healthy. Outside mutex_.
  void Step(uint64_t target, bool stopping);
  void HandleFailure(const absl::Status& error, uint64_t target, const char* what);
  void GoDown(const std::string& reason);
  void TryResume(uint64_t target);
  void FreeReleased();
  void MakeRoom(uint64_t bytes);
  void RemoveSegment(const SegmentInfo& segment, bool evicted);
  // Writes positions_ as they are now. `only_if_failed`: only when the last
  // write failed (the writer thread's retry).
  void WriteLedger(bool only_if_failed = false) ABSL_LOCKS_EXCLUDED(ledger_mutex_, mutex_);
  // Completes every waiting request the writer's position now covers (or
  // all of them while down).
  void CompleteReady();
  uint64_t AckedPosition() const;

  FileSystem& fs_;
  Clock& clock_;
  const SpoolOptions options_;
  OpenedDirectory opened_;
  SegmentSet segments_;
  SegmentSet recovered_;  // recovery's, adopted by segments_ when done
  std::atomic<bool> recovering_{false};
  std::atomic<bool> cancel_recovery_{false};
  std::jthread recovery_thread_;

  RecordSource* source_ = nullptr;
  SpoolListener* listener_ = nullptr;
  std::unique_ptr<SpoolWriter> writer_;  // writer thread only
  // Written by UpdatePositions (releasing threads) and the writer thread.
  Mutex ledger_mutex_;
  std::unique_ptr<LedgerWriter> ledger_writer_ ABSL_GUARDED_BY(ledger_mutex_);
  bool ledger_failed_ ABSL_GUARDED_BY(ledger_mutex_) = false;  // the last write failed
  std::atomic<SpoolHealth> health_{SpoolHealth::kHealthy};
  std::chrono::steady_clock::time_point retry_at_{};
  std::chrono::steady_clock::time_point sync_at_{};

  mutable Mutex mutex_;
  CondVar wake_;
  std::string down_reason_ ABSL_GUARDED_BY(mutex_);
  uint64_t target_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<std::pair<uint64_t, Completion>> waiting_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::pair<std::string, uint64_t>> positions_ ABSL_GUARDED_BY(mutex_);
  uint64_t min_released_ ABSL_GUARDED_BY(mutex_) = 0;
  bool positions_dirty_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  // The writer's acknowledged position, published for Submit.
  uint64_t acked_ ABSL_GUARDED_BY(mutex_) = 0;
  // The writer's written position, published for SegmentsToEvictFor.
  uint64_t written_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread writer_thread_;
  bool manual_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopped_ ABSL_GUARDED_BY(mutex_) = false;

  LatencyHistogram write_latency_;
  LatencyHistogram sync_latency_;
  std::atomic<uint64_t> written_bytes_{0};
  std::atomic<uint64_t> write_errors_{0};
  std::atomic<uint64_t> sync_errors_{0};
  std::atomic<uint64_t> ledger_errors_{0};
  std::atomic<uint64_t> evicted_segments_{0};
  std::atomic<uint64_t> deleted_segments_{0};
  std::atomic<uint64_t> recovered_records_{0};
  std::atomic<uint64_t> recovered_bytes_{0};
  std::atomic<uint64_t> corrupt_regions_{0};
  std::atomic<uint64_t> torn_bytes_{0};
  std::atomic<uint64_t> moved_aside_segments_{0};
  std::atomic<uint64_t> recovered_end_{0};
};

}  // namespace rayagg::spool
