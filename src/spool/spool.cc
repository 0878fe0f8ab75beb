#include "spool/spool.h"

#include <algorithm>
#include <limits>

#include "common/text.h"
#include "rayagg/clock.h"

namespace rayagg::spool {

template <typename Call>
absl::Status Spool::Timed(LatencyHistogram& histogram, Call call) {
  const SteadyTime start = clock_.Now();
  absl::Status status = call();
  histogram.Observe(clock_.Now() - start);
  return status;
}

std::string_view SpoolHealthName(SpoolHealth health) {
  switch (health) {
    case SpoolHealth::kHealthy:
      return "healthy";
    case SpoolHealth::kMemory:
      return "memory";
    case SpoolHealth::kRefusing:
      return "refusing";
  }
  return "unknown";
}

absl::StatusOr<std::unique_ptr<Spool>> Spool::Open(FileSystem& fs, Clock& clock,
                                                   SpoolOptions options, std::string_view owner) {
  absl::StatusOr<OpenedDirectory> opened = OpenSpoolDirectory(fs, options.directory, owner);
  if (!opened.ok()) return opened.status();
  const uint64_t generation = opened->ledger.generation;
  absl::StatusOr<std::unique_ptr<LedgerWriter>> ledger =
      LedgerWriter::Open(fs, strings::Cat(options.directory, "/", kLedgerFileName), generation);
  if (!ledger.ok()) {
    return absl::Status(ledger.status().code(), strings::Cat("spool.dir ", options.directory, ": ",
                                                             ledger.status().message()));
  }
  std::unique_ptr<Spool> spool(new Spool(fs, clock, std::move(options), *std::move(opened)));
  MutexLock lock(spool->ledger_mutex_);
  spool->ledger_writer_ = *std::move(ledger);
  return spool;
}

Spool::Spool(FileSystem& fs, Clock& clock, SpoolOptions options, OpenedDirectory opened)
    : fs_(fs),
      clock_(clock),
      options_(std::move(options)),
      opened_(std::move(opened)),
      segments_(options_.directory),
      recovered_(options_.directory),
      moved_aside_segments_(opened_.moved_aside_segments) {
  // Until the log says otherwise, the sinks stand where the ledger left them.
  positions_ = opened_.ledger.positions;
}

Spool::~Spool() { Stop(); }

RecoveryReport Spool::Recover(const RecordVisitor& visitor) {
  recovering_ = true;
  const RecoveryReport report =
      RecoverSegments(fs_, options_.directory, opened_.segments, recovered_, visitor,
                      [this] { return cancel_recovery_.load(); });
  recovered_records_ = report.records;
  recovered_bytes_ = report.bytes_scanned;
  corrupt_regions_ = report.corrupt.size();
  torn_bytes_ = report.torn_bytes;
  moved_aside_segments_ = opened_.moved_aside_segments + report.moved_aside_segments;
  // Where they stood, now that every segment kept is known: a sink that
  // reads past counts what it lost there.
  std::vector<uint64_t> moved_aside = opened_.moved_aside;
  moved_aside.insert(moved_aside.end(), report.moved_aside.begin(), report.moved_aside.end());
  for (const uint64_t number : moved_aside) {
    recovered_.NoteMovedAside(number, opened_.next_sequence);
  }
  if (const std::optional<uint64_t> newest = recovered_.NewestEntry()) recovered_end_ = *newest + 1;
  segments_.Adopt(recovered_);
  recovering_ = false;
  {
    MutexLock lock(mutex_);
    positions_dirty_ = true;  // old segments may be wholly released already
  }
  wake_.SignalAll();
  return report;
}

void Spool::StartRecovery(RecordVisitor visitor, std::function<void(const RecoveryReport&)> done) {
  recovering_ = true;
  recovery_thread_ = std::jthread([this, visitor = std::move(visitor), done = std::move(done)] {
    const RecoveryReport report = Recover(visitor);
    if (done) done(report);
  });
}

void Spool::StartManual(RecordSource& source, SpoolListener& listener, uint64_t stream_start) {
  source_ = &source;
  listener_ = &listener;
  writer_ = std::make_unique<SpoolWriter>(
      fs_, clock_, segments_, source,
      WriterOptions{.sync = options_.sync, .segment_bytes = options_.segment_bytes},
      opened_.next_segment_number, opened_.next_sequence, stream_start);
  MutexLock lock(mutex_);
  target_ = stream_start;
  acked_ = stream_start;
  written_ = stream_start;
  manual_ = true;
}

void Spool::Start(RecordSource& source, SpoolListener& listener, uint64_t stream_start) {
  StartManual(source, listener, stream_start);
  {
    MutexLock lock(mutex_);
    manual_ = false;
  }
  writer_thread_ = std::thread([this] { Run(); });
}

SteadyTime Spool::Now() const { return clock_.Now(); }

void Spool::Submit(uint64_t end, Completion done) {
  absl::Status answer;
  {
    MutexLock lock(mutex_);
    // Even answered at once, the records are to be written (once the disk
    // works again, from what memory still holds).
    target_ = std::max(target_, end);
    const SpoolHealth health = health_.load();
    if (stopped_) {
      answer = absl::UnavailableError("the daemon is stopping; retry later");
    } else if (health == SpoolHealth::kRefusing) {
      answer = absl::UnavailableError(
          strings::Cat("the spool cannot write (", down_reason_, "); retry later"));
    } else if (health == SpoolHealth::kHealthy && end > acked_) {
      waiting_.emplace_back(end, std::move(done));
      wake_.SignalAll();
      return;
    }
    // Otherwise: down under on_write_error: memory, or already written.
  }
  done(answer);
}

void Spool::UpdatePositions(std::vector<std::pair<std::string, uint64_t>> positions,
                            uint64_t min_released) {
  {
    MutexLock lock(mutex_);
    positions_ = std::move(positions);
    min_released_ = min_released;
    positions_dirty_ = true;
  }
  WriteLedger();
  wake_.SignalAll();
}

uint64_t Spool::AckedPosition() const {
  return options_.sync == SyncMode::kAlways ? writer_->synced() : writer_->written();
}

void Spool::Run() {
  for (;;) {
    bool stopping = false;
    {
      MutexLock lock(mutex_);
      const bool healthy = health_.load() == SpoolHealth::kHealthy;
      auto deadline = SteadyTime::max();
      if (!healthy) {
        deadline = retry_at_;
      } else if (options_.sync == SyncMode::kInterval && writer_->needs_sync()) {
        deadline = sync_at_;
      }
      const auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
        return stopping_ || positions_dirty_ ||
               (health_.load() == SpoolHealth::kHealthy && target_ > writer_->written()) ||
               Now() >= deadline;
      };
      if (deadline == SteadyTime::max()) {
        wake_.Wait(mutex_, ready);
      } else {
        // The deadline is the clock's: wait for what is left of it by it.
        // (A pass that finds nothing due just waits again.)
        wake_.WaitFor(mutex_, std::max(deadline - Now(), SteadyTime::duration::zero()), ready);
      }
      stopping = stopping_;
    }
    PumpOnce(stopping);
    if (stopping) break;
  }
  Finish();
}

void Spool::Pump() { PumpOnce(/*stopping=*/false); }

void Spool::PumpOnce(bool stopping) {
  uint64_t target = 0;
  bool positions_dirty = false;
  {
    MutexLock lock(mutex_);
    target = target_;
    positions_dirty = positions_dirty_;
    positions_dirty_ = false;
  }
  if (health_.load() != SpoolHealth::kHealthy) {
    if (Now() >= retry_at_ || stopping) TryResume(target);
  } else {
    Step(target, stopping);
  }
  listener_->OnDurable(writer_->durable());
  if (positions_dirty || stopping) {
    // UpdatePositions wrote the ledger already; again on a clean stop, or
    // if that write failed.
    WriteLedger(/*only_if_failed=*/!stopping);
    FreeReleased();
  }
  CompleteReady();
}

void Spool::Finish() {
  // A clean stop: the open segment is sealed (and synced unless sync: never).
  if (health_.load() == SpoolHealth::kHealthy) {
    if (absl::Status closed = writer_->Close(); !closed.ok()) {
      listener_->OnProblem(strings::Cat("closing the spool: ", closed.message()));
    }
  }
  std::vector<Completion> left;
  {
    MutexLock lock(mutex_);
    for (auto& [end, done] : waiting_) left.push_back(std::move(done));
    waiting_.clear();
  }
  for (Completion& done : left) {
    done(health_.load() == SpoolHealth::kMemory
             ? absl::OkStatus()
             : absl::UnavailableError("the daemon is stopping; retry later"));
  }
}

void Spool::Step(uint64_t target, bool stopping) {
  if (target > writer_->written()) {
    const bool was_clean = !writer_->needs_sync();
    MakeRoom(target - writer_->written());
    const uint64_t before = writer_->written();
    absl::Status written = Timed(write_latency_, [&] { return writer_->WriteThrough(target); });
    written_bytes_ += writer_->written() - before;
    if (!written.ok()) {
      ++write_errors_;
      HandleFailure(written, target, "write");
      return;
    }
    if (was_clean && options_.sync == SyncMode::kInterval) {
      sync_at_ = Now() + options_.sync_interval;
    }
  }
  const bool sync_now = options_.sync == SyncMode::kAlways ||
                        (options_.sync == SyncMode::kInterval && (Now() >= sync_at_ || stopping));
  if (sync_now && writer_->needs_sync()) {
    absl::Status synced = Timed(sync_latency_, [&] { return writer_->Sync(); });
    if (!synced.ok()) {
      ++sync_errors_;
      HandleFailure(synced, target, "fsync");
      return;
    }
    sync_at_ = Now() + options_.sync_interval;
  }
}

void Spool::HandleFailure(const absl::Status& error, uint64_t target, const char* what) {
  const std::string reason = strings::Cat(what, " failed: ", error.message());
  // Never retried in place: a new segment, and what is not durable written
  // again from memory.
  absl::Status again = writer_->Reopen();
  if (again.ok()) {
    MakeRoom(target - writer_->written());
    again = writer_->WriteThrough(target);
  }
  if (again.ok() && options_.sync != SyncMode::kNever) {
    again = Timed(sync_latency_, [&] { return writer_->Sync(); });
  }
  if (again.ok()) {
    listener_->OnProblem(strings::Cat("spool ", reason, "; closed that segment and wrote its ",
                                      "unsynced records again into segment ",
                                      writer_->open_segment()));
    return;
  }
  GoDown(strings::Cat(reason, "; writing into a new segment failed too: ", again.message()));
}

void Spool::GoDown(const std::string& reason) {
  const SpoolHealth health = options_.on_write_error == OnWriteError::kMemory
                                 ? SpoolHealth::kMemory
                                 : SpoolHealth::kRefusing;
  {
    MutexLock lock(mutex_);
    down_reason_ = reason;
    health_ = health;
  }
  retry_at_ = Now() + options_.retry_interval;
  listener_->OnHealthChanged(health, reason);
}

void Spool::TryResume(uint64_t target) {
  absl::Status resumed = writer_->Reopen();
  if (resumed.ok()) {
    MakeRoom(target - std::min(target, writer_->written()));
    resumed = writer_->WriteThrough(target);
  }
  if (resumed.ok() && options_.sync != SyncMode::kNever) resumed = writer_->Sync();
  if (!resumed.ok()) {
    retry_at_ = Now() + options_.retry_interval;
    return;
  }
  {
    MutexLock lock(mutex_);
    health_ = SpoolHealth::kHealthy;
    down_reason_.clear();
  }
  sync_at_ = Now() + options_.sync_interval;
  listener_->OnHealthChanged(SpoolHealth::kHealthy,
                             strings::Cat("writing again, into segment ", writer_->open_segment()));
}

void Spool::RemoveSegment(const SegmentInfo& segment, bool evicted) {
  const std::string path = segments_.PathOf(segment.number);
  if (absl::Status removed = fs_.Remove(path); !removed.ok() && !absl::IsNotFound(removed)) {
    listener_->OnProblem(strings::Cat("cannot delete spool segment: ", removed.message()));
  }
  segments_.Remove(segment.number);
  ++(evicted ? evicted_segments_ : deleted_segments_);
}

void Spool::FreeReleased() {
  uint64_t min_released = 0;
  {
    MutexLock lock(mutex_);
    min_released = min_released_;
  }
  while (const std::optional<SegmentInfo> oldest = segments_.Oldest()) {
    if (!oldest->sealed || (oldest->any_record && oldest->max_sequence >= min_released)) break;
    RemoveSegment(*oldest, /*evicted=*/false);
  }
}

void Spool::MakeRoom(uint64_t bytes) {
  if (segments_.total_bytes() + bytes <= options_.max_bytes) return;
  FreeReleased();
  // While recovery runs the oldest segments are not known yet: evicting now
  // would throw away the newest events; the bound holds again right after.
  if (recovering_.load()) return;
  while (segments_.total_bytes() + bytes > options_.max_bytes) {
    const std::optional<SegmentInfo> oldest = segments_.Oldest();
    if (!oldest || !oldest->sealed) break;  // only the open segment is left
    // when_full: block: the log refuses what would need this room, so
    // what passes the bound is only what it accepted meanwhile.
    if (!listener_->MayEvict(*oldest)) break;
    listener_->OnEvict(*oldest);
    RemoveSegment(*oldest, /*evicted=*/true);
  }
}

std::vector<SegmentInfo> Spool::SegmentsToEvictFor(uint64_t stream_end, uint64_t more_bytes) const {
  std::vector<SegmentInfo> evicted;
  uint64_t written = 0;
  {
    MutexLock lock(mutex_);
    written = written_;
  }
  // Plus a segment header, should the records start a new segment.
  const uint64_t incoming =
      stream_end - std::min(stream_end, written) + more_bytes + kSegmentHeaderBytes;
  uint64_t total = segments_.total_bytes();
  // MakeRoom's rules: nothing is evicted while recovery runs, never the
  // open segment. Released segments are deleted first; they hold nothing a
  // sink has not read, so listing them with the rest changes no answer.
  if (total + incoming <= options_.max_bytes || recovering_.load()) return evicted;
  for (SegmentInfo& segment : segments_.Snapshot()) {
    if (total + incoming <= options_.max_bytes || !segment.sealed) break;
    total -= std::min(total, segment.file_bytes);
    evicted.push_back(std::move(segment));
  }
  return evicted;
}

void Spool::WriteLedger(bool only_if_failed) {
  // Positions are read under the ledger's lock, so two writers never put
  // an older state over a newer one.
  MutexLock ledger_lock(ledger_mutex_);
  if (only_if_failed && !ledger_failed_) return;
  std::vector<std::pair<std::string, uint64_t>> positions;
  {
    MutexLock lock(mutex_);
    positions = positions_;
  }
  const absl::Status written = ledger_writer_->Write(positions);
  ledger_failed_ = !written.ok();
  if (!written.ok()) {
    ++ledger_errors_;
    if (listener_ != nullptr) {
      listener_->OnProblem(strings::Cat("cannot write the spool ledger: ", written.message()));
    }
  }
}

void Spool::CompleteReady() {
  std::vector<Completion> ok;
  std::vector<Completion> refused;
  std::string reason;
  {
    MutexLock lock(mutex_);
    const SpoolHealth health = health_.load();
    acked_ = AckedPosition();
    written_ = writer_->written();
    reason = down_reason_;
    auto keep = waiting_.begin();
    for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
      if (health == SpoolHealth::kRefusing) {
        refused.push_back(std::move(it->second));
      } else if (health == SpoolHealth::kMemory || it->first <= acked_) {
        ok.push_back(std::move(it->second));
      } else {
        *keep++ = std::move(*it);
      }
    }
    waiting_.erase(keep, waiting_.end());
  }
  for (Completion& done : ok) done(absl::OkStatus());
  for (Completion& done : refused) {
    done(
        absl::UnavailableError(strings::Cat("the spool cannot write (", reason, "); retry later")));
  }
}

SpoolStats Spool::Stats() const {
  SpoolStats stats;
  stats.bytes = segments_.total_bytes();
  stats.segments = segments_.segment_count();
  stats.indexed_parts = segments_.part_count();
  stats.written_bytes = written_bytes_.load();
  stats.write_errors = write_errors_.load();
  stats.sync_errors = sync_errors_.load();
  stats.ledger_errors = ledger_errors_.load();
  stats.evicted_segments = evicted_segments_.load();
  stats.deleted_segments = deleted_segments_.load();
  stats.recovering = recovering_.load();
  stats.recovered_records = recovered_records_.load();
  stats.recovered_bytes = recovered_bytes_.load();
  stats.corrupt_regions = corrupt_regions_.load();
  stats.torn_bytes = torn_bytes_.load();
  stats.moved_aside_segments = moved_aside_segments_.load();
  stats.health = health_.load();
  return stats;
}

void Spool::Abandon() {
  MutexLock lock(mutex_);
  stopped_ = true;
}

void Spool::Stop() {
  {
    MutexLock lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  wake_.SignalAll();
  cancel_recovery_ = true;
  if (recovery_thread_.joinable()) recovery_thread_.join();
  if (writer_thread_.joinable()) {
    writer_thread_.join();
  } else if (writer_) {
    PumpOnce(/*stopping=*/true);  // a manual spool stops the same way
    Finish();
  }
  // Nothing more is written: the next daemon (or an in-process restart) may
  // take the directory.
  opened_.lock.reset();
}

}  // namespace rayagg::spool
