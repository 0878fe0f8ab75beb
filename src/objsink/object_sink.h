// An object-store sink (url s3://… or dir:///…): reads the event log like
// every sink — its own cursor, so a slow or dead store never holds up
// another sink; its when_full policy; its counters and drops — but gathers
// events into objects of the KubeRay history-server layout instead of
// request bodies (docs/OBJECT_STORE.md).
//
// The loop, on the sink's strand: read while the assembler's budget allows
// (object.max_open_bytes) -> cut objects that are due (object.max_age), full
// (object.max_bytes) or the largest while the budget is reached -> start an
// upload for each cut object while a slot is free (max_in_flight) -> wait
// for events, the next due object or a finished upload. An upload writes the
// session's marker first (the first time this process sees the session),
// then the object with its manifest, retrying as the UploadPlanner decides
// (upload_planner.h); only then are the object's events released through
// the read seam. With the store down the budget fills, the sink stops
// reading and the log's when_full applies.
//
// The manifest's writer: random per process; with the disk spool on, kept
// across restarts in `<spool.dir>/objsink-<name>.json` with its numbering
// (objsink/writer_state.h). The state is saved before an upload with new
// numbers starts (so no number is handed out twice) and at the end of Run;
// that an upload finished is saved lazily, with the next save — a crash in
// between only declares the object's range void although it is stored.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "objsink/object_assembler.h"
#include "objsink/upload_planner.h"
#include "objsink/writer_state.h"
#include "objstore/rules/kuberay_layout.h"
#include "ops/log_rate_limiter.h"
#include "rayagg/clock.h"
#include "rayagg/config.h"
#include "rayagg/drop_counters.h"
#include "rayagg/event_json_encoder.h"
#include "rayagg/event_reader.h"
#include "rayagg/mutex.h"
#include "rayagg/notification.h"
#include "rayagg/object_store.h"
#include "sinks/recovery_log.h"
#include "sinks/sink_counters.h"
#include "sinks/sink_request_stats.h"

namespace spdlog {
class logger;
}

namespace rayagg {

// What an object-store sink does beyond SinkCounters (/metrics).
struct ObjectSinkCounters {
  std::atomic<uint64_t> open_objects{0};  // gauge
  std::atomic<uint64_t> held_bytes{0};    // gauge: open JSON plus cut objects awaiting upload
  std::atomic<uint64_t> json_bytes{0};    // JSON Lines bytes uploaded, before compression
  std::atomic<uint64_t> markers{0};       // session markers written
  std::atomic<uint64_t> renamed{0};       // objects uploaded again under a new name
  // The writer state file (spool on): found unreadable or corrupt at start,
  // so this run is a new writer; failed saves.
  std::atomic<uint64_t> writer_state_resets{0};
  std::atomic<uint64_t> writer_state_write_errors{0};

  void CountFailure(const std::string& reason) {
    MutexLock lock(mutex_);
    ++failures_[reason];
  }
  // Failed uploads by the store's reason label ("SlowDown", "AccessDenied",
  // "timeout", "io"; a bounded set).
  std::map<std::string, uint64_t> Failures() const {
    MutexLock lock(mutex_);
    return failures_;
  }

 private:
  mutable Mutex mutex_;
  std::map<std::string, uint64_t> failures_ ABSL_GUARDED_BY(mutex_);
};

class ObjectSink {
 public:
  // `store` must have been made on `executor` (a strand of the sink's own).
  // Registers the cursor with `reader` at once. `clock` outlives the sink.
  // `writer_state_path` (objsink/writer_state.h): where the writer is kept
  // across restarts, read here; "" for a new writer per process (no spool).
  ObjectSink(asio::any_io_executor executor, SinkConfig config, kuberay::ClusterIdentity cluster,
             EventReader& reader, std::unique_ptr<ObjectStore> store,
             std::unique_ptr<EventJsonEncoder> encoder, spdlog::logger& logger, Clock& clock,
             std::string writer_state_path = "");
  ~ObjectSink();
  ObjectSink(const ObjectSink&) = delete;
  ObjectSink& operator=(const ObjectSink&) = delete;

  // Before Start(): the count of task attempts Ray's senders reported
  // dropped (the daemon's IngestCounters::sender_dropped_task_attempts).
  // What it grew by since the previous object goes into the manifest of the
  // next object uploaded (rayagg-dropped-task-attempts), whichever session
  // that is: Ray does not say which session its losses belong to, and a
  // cluster runs one session at a time. An object given up hands its share
  // on to the next one.
  void ReportSenderDrops(const std::atomic<uint64_t>& sender_dropped_task_attempts) {
    sender_dropped_task_attempts_ = &sender_dropped_task_attempts;
  }
  void Start();
  // Cuts every open object and uploads what is held; gives up at `deadline`
  // (a time of the sink's clock), counting the rest as `shutdown` drops.
  // Thread-safe.
  void Drain(SteadyTime deadline);
  // Waits (real time) until the loop finished after Drain().
  bool WaitFinished(std::chrono::milliseconds timeout);

  const std::string& name() const { return name_; }
  const asio::any_io_executor& executor() const { return executor_; }
  const SinkCounters& counters() const { return counters_; }
  const ObjectSinkCounters& object_counters() const { return object_counters_; }
  const DropCounters& drops() const { return drops_; }
  const SinkRequestStats& request_stats() const { return request_stats_; }
  EventReader::CursorId cursor() const { return cursor_; }
  // The manifest's writer id: random per process, or kept in the writer
  // state file.
  const std::string& writer() const { return writer_; }
  std::string Describe() const { return store_->Describe(); }

 private:
  asio::awaitable<void> Run();
  asio::awaitable<void> Upload(CutObject object);
  // One attempt: the session marker when still needed, then the object.
  asio::awaitable<absl::Status> Attempt(const CutObject& object);
  void StartUploads();
  void LogRead(const ObjectAssembler::ReadReport& report);
  void CountUploaded(const CutObject& object);
  void DropObject(const CutObject& object, DropReason reason, const absl::Status& status);
  void LogFailure(const absl::Status& status, const UploadDecision& decision);
  void OnEventsAvailable();
  void PublishGauges();
  // The constructor: the writer, its next number and what to declare void.
  void LoadWriterState();
  // On the strand; failures are counted and logged, never fatal.
  void SaveWriterState();
  // After `object`'s upload succeeded or was given up.
  void Settled(const CutObject& object, bool stored);
  DeliveryTimes TimesNow() const;
  bool DrainExpired() const;

  asio::any_io_executor executor_;
  const std::string name_;
  const SinkConfig config_;
  EventReader& reader_;
  std::unique_ptr<ObjectStore> store_;
  spdlog::logger& logger_;
  Clock& clock_;
  const kuberay::ClusterIdentity cluster_;
  const std::string writer_state_path_;
  std::string writer_;  // set by the constructor
  const size_t slot_count_;

  SinkCounters counters_;
  ObjectSinkCounters object_counters_;
  DropCounters drops_;
  SinkRequestStats request_stats_;
  EventReader::CursorId cursor_;

  const std::atomic<uint64_t>* sender_dropped_task_attempts_ = nullptr;

  // Strand-confined.
  std::optional<ObjectAssembler> assembler_;
  // The part of *sender_dropped_task_attempts_ already put in a manifest.
  uint64_t reported_sender_drops_ = 0;
  UploadPlanner planner_;
  std::mt19937_64 random_;
  std::set<std::string> marked_sessions_;
  // The writer state (with writer_state_path_): the first number not yet
  // handed to an upload, the drops of earlier runs, the ranges of uploads
  // not settled (first -> last), the ranges still to declare void.
  uint64_t next_upload_seq_ = 1;
  uint64_t earlier_drops_ = 0;
  std::map<uint64_t, uint64_t> unsettled_;
  std::vector<SeqRange> void_ranges_;
  LogRateLimiter state_log_limiter_{std::chrono::seconds(60)};
  std::set<Timer*> upload_timers_;  // retry waits; Drain() cuts them short
  size_t uploads_in_flight_ = 0;
  std::unique_ptr<Timer> wake_timer_;
  bool draining_ = false;
  SteadyTime drain_deadline_ = SteadyTime::max();
  std::string last_operator_reason_;
  RecoveryLog recovery_log_;
  LogRateLimiter failure_log_limiter_{std::chrono::seconds(10)};
  LogRateLimiter drop_log_limiter_{std::chrono::seconds(10)};

  std::atomic<bool> wake_pending_{false};
  Notification finished_;
};

}  // namespace rayagg
