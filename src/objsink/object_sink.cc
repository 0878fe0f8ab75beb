#include "objsink/object_sink.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

#include "rayagg/asio.h"

namespace rayagg {
namespace {

// Events per read from the cursor: the budget may be passed by one read.
constexpr size_t kReadEvents = 1000;
// Void ranges one manifest declares (about 40 bytes each, within S3's 2 KB
// of user metadata); the rest go with the following objects.
constexpr size_t kMaxVoidRangesPerManifest = 16;

std::string RandomWriterId() {
  std::random_device device;
  const uint64_t value = (static_cast<uint64_t>(device()) << 32) ^ device();
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

FailureReason RequestFailureReason(const absl::Status& status) {
  const std::string reason = ObjectStoreErrorReason(status);
  if (status.code() == absl::StatusCode::kDeadlineExceeded || reason == "timeout") {
    return FailureReason::kTimeout;
  }
  if (reason == "connection" || reason == "tls") return FailureReason::kConnection;
  if (reason == "io") return FailureReason::kIo;
  return FailureReason::kOther;
}

std::string ReasonLabel(const absl::Status& status) {
  std::string reason = ObjectStoreErrorReason(status);
  if (reason.empty()) reason = absl::StatusCodeToString(status.code());
  return reason;
}

}  // namespace

ObjectSink::ObjectSink(asio::any_io_executor executor, SinkConfig config,
                       kuberay::ClusterIdentity cluster, EventReader& reader,
                       std::unique_ptr<ObjectStore> store,
                       std::unique_ptr<EventJsonEncoder> encoder, spdlog::logger& logger,
                       Clock& clock, std::string writer_state_path)
    : executor_(std::move(executor)),
      name_(config.name),
      config_(std::move(config)),
      reader_(reader),
      store_(std::move(store)),
      logger_(logger),
      clock_(clock),
      cluster_(cluster),
      writer_state_path_(std::move(writer_state_path)),
      writer_(RandomWriterId()),
      slot_count_(std::max<uint32_t>(config_.max_in_flight, 1)),
      planner_(config_.retry),
      random_(std::random_device{}()),
      wake_timer_(clock_.MakeTimer(executor_)) {
  if (!writer_state_path_.empty()) LoadWriterState();
  cursor_ = reader_.AddCursor(config_.event_types, drops_, [this] { OnEventsAvailable(); });
  assembler_.emplace(reader_, cursor_,
                     ObjectAssembler::Options{.limits = config_.object,
                                              .cluster = cluster_,
                                              .default_node_id_hex = config_.node_id,
                                              .first_seq = next_upload_seq_},
                     std::move(encoder), drops_);
  if (config_.when_full == WhenFull::kBlock) {
    reader_.BlockWhenFull(cursor_, config_.name, counters_.refused_requests);
  }
}

ObjectSink::~ObjectSink() { reader_.RemoveCursor(cursor_); }

void ObjectSink::LoadWriterState() {
  absl::StatusOr<WriterState> loaded = rayagg::LoadWriterState(writer_state_path_);
  if (!loaded.ok()) {
    if (absl::IsNotFound(loaded.status())) {
      logger_.info("object sink starts a new writer sink={} writer={} state={}", name_, writer_,
                   writer_state_path_);
      return;
    }
    // Not fatal: a daemon that refused to start over it would crash-loop.
    // A new writer only costs the reader the proof across this restart.
    object_counters_.writer_state_resets.fetch_add(1, std::memory_order_relaxed);
    logger_.error(
        "object sink writer state unreadable; starting a new writer (the manifests cannot prove "
        "completeness across this restart) sink={} state={} writer={} error={}",
        name_, writer_state_path_, writer_, std::string(loaded.status().message()));
    return;
  }
  writer_ = loaded->writer;
  next_upload_seq_ = loaded->next_seq;
  earlier_drops_ = loaded->drops;
  // What the last run handed to uploads and never saw settle: its events
  // are still in the spool and get new numbers now.
  std::vector<SeqRange> to_void = std::move(loaded->void_ranges);
  to_void.insert(to_void.end(), loaded->pending.begin(), loaded->pending.end());
  void_ranges_ = MergeSeqRanges(std::move(to_void));
  logger_.info(
      "object sink resumes its writer sink={} writer={} next_seq={} void_ranges={} state={}", name_,
      writer_, next_upload_seq_, FormatSeqRanges(void_ranges_), writer_state_path_);
}

void ObjectSink::SaveWriterState() {
  if (writer_state_path_.empty()) return;
  WriterState state{.writer = writer_,
                    .next_seq = next_upload_seq_,
                    .drops = earlier_drops_ + drops_.Total(),
                    .void_ranges = void_ranges_};
  for (const auto& [first, last] : unsettled_) state.pending.push_back({first, last});
  state.pending = MergeSeqRanges(std::move(state.pending));
  const absl::Status saved = rayagg::SaveWriterState(writer_state_path_, state);
  if (saved.ok()) return;
  // Uploads go on: a lost save only weakens what the next run's manifests
  // can prove.
  object_counters_.writer_state_write_errors.fetch_add(1, std::memory_order_relaxed);
  if (auto suppressed = state_log_limiter_.Allow(clock_.Now())) {
    logger_.error("object sink cannot save its writer state sink={} error={} suppressed_errors={}",
                  name_, std::string(saved.message()), *suppressed);
  }
}

void ObjectSink::Settled(const CutObject& object, bool stored) {
  unsettled_.erase(object.seq_first);
  if (!stored) return;
  // Declared: the ranges need not go into another manifest.
  std::erase_if(void_ranges_, [&object](const SeqRange& range) {
    return std::find(object.void_ranges.begin(), object.void_ranges.end(), range) !=
           object.void_ranges.end();
  });
}

void ObjectSink::Start() {
  logger_.info(
      "sink started sink={} destination={} writer={} max_age_ms={} max_bytes={} "
      "max_open_bytes={} gzip={} max_in_flight={}",
      name_, store_->Describe(), writer_, config_.object.max_age.count(), config_.object.max_bytes,
      config_.object.max_open_bytes, config_.object.gzip, slot_count_);
  asio::co_spawn(executor_, Run(), [this](std::exception_ptr error) {
    finished_.Notify();
    if (error) std::rethrow_exception(error);
  });
}

void ObjectSink::Drain(SteadyTime deadline) {
  asio::post(executor_, [this, deadline] {
    draining_ = true;
    drain_deadline_ = deadline;
    wake_timer_->Cancel();
    for (Timer* timer : upload_timers_) timer->Cancel();
  });
}

bool ObjectSink::WaitFinished(std::chrono::milliseconds timeout) {
  return finished_.WaitFor(timeout);
}

void ObjectSink::OnEventsAvailable() {
  if (wake_pending_.exchange(true)) return;
  asio::post(executor_, [this] {
    wake_pending_ = false;
    wake_timer_->Cancel();
  });
}

DeliveryTimes ObjectSink::TimesNow() const {
  return DeliveryTimes{
      .now = clock_.Now(),
      .wall_now = clock_.WallNow(),
      .drain_deadline = draining_ ? std::optional<SteadyTime>(drain_deadline_) : std::nullopt,
  };
}

bool ObjectSink::DrainExpired() const { return DeliveryPlanner::DrainExpired(TimesNow()); }

void ObjectSink::PublishGauges() {
  object_counters_.open_objects.store(assembler_->open_objects(), std::memory_order_relaxed);
  object_counters_.held_bytes.store(assembler_->held_bytes(), std::memory_order_relaxed);
  counters_.in_flight_batches.store(uploads_in_flight_, std::memory_order_relaxed);
}

void ObjectSink::LogRead(const ObjectAssembler::ReadReport& report) {
  for (const std::string& session : report.unusual_sessions) {
    logger_.warn(
        "session name is not Ray's session_YYYY-MM-DD_HH-MM-SS_ffffff_<pid>: its objects are "
        "written, but the KubeRay history server will not list it sink={} session={}",
        name_, session);
  }
  if (report.bad_session + report.no_node + report.encode_errors == 0) return;
  if (auto suppressed = drop_log_limiter_.Allow(clock_.Now())) {
    logger_.warn(
        "events dropped sink={} bad_session={} no_node={} encode_errors={} first_encode_error={} "
        "suppressed_warnings={}",
        name_, report.bad_session, report.no_node, report.encode_errors, report.first_encode_error,
        *suppressed);
  }
}

asio::awaitable<void> ObjectSink::Run() {
  // At once: a corrupt file is replaced, and the void ranges stay on record
  // until a manifest declares them.
  SaveWriterState();
  while (true) {
    while (assembler_->can_read() && reader_.HasUnread(cursor_)) {
      LogRead(assembler_->Read(kReadEvents, clock_.Now(), clock_.WallNow()));
      assembler_->CutForBudget();
    }
    assembler_->CutDue(clock_.Now());
    assembler_->CutForBudget();
    if (draining_) assembler_->CutAll();
    StartUploads();
    PublishGauges();
    if (draining_) {
      if (DrainExpired()) break;
      if (uploads_in_flight_ == 0 && !assembler_->has_cut() && assembler_->open_objects() == 0 &&
          !reader_.HasUnread(cursor_)) {
        break;
      }
    }
    // Nothing to do until events arrive (while the budget allows reading),
    // an open object is due, an upload ends or Drain(): each cancels the
    // wait, on this strand, and nothing suspends between the checks above
    // and the wait, so no wake-up is lost.
    if (assembler_->can_read() && reader_.HasUnread(cursor_)) continue;
    SteadyTime until = assembler_->NextDue().value_or(SteadyTime::max());
    if (draining_) until = std::min(until, drain_deadline_);
    wake_timer_->ExpiresAt(until);
    co_await wake_timer_->Wait();
  }
  // Uploads in flight end by themselves at the drain deadline.
  while (uploads_in_flight_ > 0) {
    wake_timer_->ExpiresAt(SteadyTime::max());
    co_await wake_timer_->Wait();
  }
  // With a spool what is still open, cut or unread stays on disk,
  // unreleased: the next run reads it again.
  if (DrainExpired() && !reader_.KeepsUnsentAcrossRestarts()) {
    assembler_->DropAll(DropReason::kShutdown);
  }
  SaveWriterState();
  PublishGauges();
  logger_.info("sink stopped sink={} sent_events={} objects={} dropped_events={}", name_,
               counters_.sent_events.load(), counters_.sent_batches.load(), drops_.Total());
}

void ObjectSink::StartUploads() {
  std::vector<CutObject> starting;
  while (uploads_in_flight_ + starting.size() < slot_count_ && assembler_->has_cut()) {
    CutObject object = assembler_->TakeCut();
    if (sender_dropped_task_attempts_ != nullptr) {
      const uint64_t reported = sender_dropped_task_attempts_->load(std::memory_order_relaxed);
      object.sender_dropped_task_attempts = reported - reported_sender_drops_;
      reported_sender_drops_ = reported;
    }
    // The drop counter runs over the writer's whole stream, earlier runs
    // included, or a reader could not explain this run's gaps.
    object.writer_drops += earlier_drops_;
    const size_t declared = std::min(void_ranges_.size(), kMaxVoidRangesPerManifest);
    object.void_ranges.assign(void_ranges_.begin(), void_ranges_.begin() + declared);
    unsettled_[object.seq_first] = object.seq_last;
    next_upload_seq_ = std::max(next_upload_seq_, object.seq_last + 1);
    starting.push_back(std::move(object));
  }
  if (starting.empty()) return;
  // Before any of these numbers can reach the store.
  SaveWriterState();
  for (CutObject& object : starting) {
    ++uploads_in_flight_;
    // Not detached: Run waits for every upload before it ends, and the
    // handler runs on this strand.
    asio::co_spawn(executor_, Upload(std::move(object)),
                   asio::bind_executor(executor_, [this](std::exception_ptr error) {
                     --uploads_in_flight_;
                     wake_timer_->Cancel();
                     if (error) std::rethrow_exception(error);
                   }));
  }
}

asio::awaitable<absl::Status> ObjectSink::Attempt(const CutObject& object) {
  if (marked_sessions_.count(object.group.session) == 0) {
    // The history server lists sessions by their marker: written before the
    // session's first object, so a session is visible as soon as it has data.
    PutObjectRequest marker{.key = kuberay::SessionMarkerKey(cluster_, object.group.session)};
    absl::Status marked = co_await store_->Put(std::move(marker));
    if (!marked.ok() && marked.code() != absl::StatusCode::kAlreadyExists) co_return marked;
    if (marked.ok()) object_counters_.markers.fetch_add(1, std::memory_order_relaxed);
    marked_sessions_.insert(object.group.session);
  }
  PutObjectRequest request{
      .key = object.key,
      .body = object.body,
      // No Content-Encoding: an HTTP client that decodes it on the fly would
      // hand a reader JSON under a .gz name. The name says gzip.
      .content_type = object.gzip ? "application/gzip" : "application/x-ndjson",
      .metadata = object.Manifest(writer_)};
  co_return co_await store_->Put(std::move(request));
}

asio::awaitable<void> ObjectSink::Upload(CutObject object) {
  UploadHistory history{.first_attempt = clock_.Now()};
  std::unique_ptr<Timer> timer = clock_.MakeTimer(executor_);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  bool stored = false;
  while (true) {
    if (DrainExpired()) {
      // With a spool the events stay on disk, unreleased, for the next run.
      if (reader_.KeepsUnsentAcrossRestarts()) {
        assembler_->Keep(object);
        PublishGauges();
        co_return;
      }
      DropObject(object, DropReason::kShutdown, absl::OkStatus());
      break;
    }
    const SteadyTime started = clock_.Now();
    const absl::Status status = co_await Attempt(object);
    const UploadDecision decision =
        planner_.AfterAttempt(status, history, TimesNow(), unit(random_));
    request_stats_.Record(clock_.Now() - started, status.ok(), RequestFailureReason(status));
    if (decision.action == UploadDecision::Action::kDone) {
      CountUploaded(object);
      stored = true;
      break;
    }
    counters_.failed_attempts.fetch_add(1, std::memory_order_relaxed);
    object_counters_.CountFailure(ReasonLabel(status));
    if (decision.action == UploadDecision::Action::kRekey) {
      object_counters_.renamed.fetch_add(1, std::memory_order_relaxed);
      assembler_->Rekey(object, clock_.WallNow());
      continue;
    }
    if (decision.action == UploadDecision::Action::kDrop) {
      if (decision.drop_reason == DropReason::kShutdown && reader_.KeepsUnsentAcrossRestarts()) {
        assembler_->Keep(object);
        PublishGauges();
        co_return;
      }
      DropObject(object, decision.drop_reason, status);
      break;
    }
    counters_.retries.fetch_add(1, std::memory_order_relaxed);
    counters_.consecutive_failures.fetch_add(1, std::memory_order_relaxed);
    LogFailure(status, decision);
    upload_timers_.insert(timer.get());
    if (decision.retry_at > clock_.Now()) {
      timer->ExpiresAt(decision.retry_at);
      co_await timer->Wait();
    }
    upload_timers_.erase(timer.get());
  }
  Settled(object, stored);
  assembler_->Finish(object);
  PublishGauges();
}

void ObjectSink::CountUploaded(const CutObject& object) {
  counters_.CountDelivered(object.events(), object.body.size(), clock_.WallNow());
  object_counters_.json_bytes.fetch_add(object.json_bytes, std::memory_order_relaxed);
  if (!last_operator_reason_.empty()) {
    logger_.info("object store accepts uploads again sink={} destination={}", name_,
                 store_->Describe());
    last_operator_reason_.clear();
  }
  if (const std::optional<uint64_t> failed = recovery_log_.Succeeded()) {
    logger_.info("sink recovered sink={} failed_attempts={}", name_, *failed);
  }
}

void ObjectSink::DropObject(const CutObject& object, DropReason reason,
                            const absl::Status& status) {
  // Its share of the senders' reported losses goes with the next object.
  reported_sender_drops_ -= object.sender_dropped_task_attempts;
  for (size_t i = 0; i < object.events(); ++i) {
    drops_.Add(reason, object.types[i], object.received[i]);
  }
  if (auto suppressed = drop_log_limiter_.Allow(clock_.Now())) {
    logger_.warn(
        "object dropped sink={} reason={} events={} key={} error={} suppressed_warnings={}", name_,
        DropReasonName(reason), object.events(), object.key,
        status.ok() ? "" : std::string(status.message()), *suppressed);
  }
}

void ObjectSink::LogFailure(const absl::Status& status, const UploadDecision& decision) {
  const std::string reason = ReasonLabel(status);
  if (decision.needs_operator) {
    // Retried without limit until someone fixes the bucket or credentials:
    // one line per change of reason, not one per attempt.
    if (reason != last_operator_reason_) {
      last_operator_reason_ = reason;
      recovery_log_.Failed(/*warned=*/true);
      logger_.error(
          "object store refuses uploads; retrying every {} ms until it is fixed (a rotated "
          "credentials file applies at the next attempt) sink={} destination={} reason={} error={}",
          decision.wait.count(), name_, store_->Describe(), reason, std::string(status.message()));
      return;
    }
    recovery_log_.Failed(/*warned=*/false);
    return;
  }
  const std::optional<uint64_t> suppressed = failure_log_limiter_.Allow(clock_.Now());
  recovery_log_.Failed(/*warned=*/suppressed.has_value());
  if (suppressed) {
    logger_.warn(
        "upload failed, will retry sink={} reason={} error={} retry_in_ms={} "
        "suppressed_warnings={}",
        name_, reason, std::string(status.message()), decision.wait.count(), *suppressed);
  }
}

}  // namespace rayagg
