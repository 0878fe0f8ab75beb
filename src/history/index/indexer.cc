#include "history/index/indexer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>

#include "common/text.h"
#include "history/index/index_schema.h"
#include "objstore/rules/seq_ranges.h"

namespace rayagg::history {
namespace {

constexpr std::string_view kHistoryRoot = "cluster-history/";
constexpr std::string_view kMetadataRoot = "cluster-metadata/";

StoreListRequest Listing(std::string prefix, std::string delimiter = "",
                         std::string start_after = "", uint32_t max_keys = 1000) {
  StoreListRequest request;
  request.prefix = std::move(prefix);
  request.delimiter = std::move(delimiter);
  request.start_after = std::move(start_after);
  request.max_keys = max_keys;
  return request;
}

bool IsDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), strings::IsDigit);
}

// The last path segment of a common prefix ("a/b/c/" -> "c").
std::string_view LastSegment(std::string_view prefix) {
  if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  const size_t slash = prefix.rfind('/');
  return slash == std::string_view::npos ? prefix : prefix.substr(slash + 1);
}

bool IsKind(std::string_view kind) {
  return kind == "raycluster" || kind == "rayjob" || kind == "rayservice";
}

// A session directory name as Ray makes them: [A-Za-z0-9._-]+, not . or ..
bool IsSessionName(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
  });
}

// "720h", "90m", "45s" or "1500ms": the largest unit that divides it.
std::string DurationText(int64_t ms) {
  if (ms % 3'600'000 == 0) return strings::Cat(ms / 3'600'000, "h");
  if (ms % 60'000 == 0) return strings::Cat(ms / 60'000, "m");
  if (ms % 1000 == 0) return strings::Cat(ms / 1000, "s");
  return strings::Cat(ms, "ms");
}

uint64_t IndexFileBytes(const std::string& directory) {
  uint64_t total = 0;
  std::error_code error;
  for (const char* suffix : {"", "-wal"}) {
    const auto size = std::filesystem::file_size(IndexPath(directory) + suffix, error);
    if (!error) total += size;
  }
  return total;
}

}  // namespace

bool IsEventFileName(std::string_view name) {
  if (name.size() >= 3 && name.substr(name.size() - 3) == ".gz") name.remove_suffix(3);
  if (name.size() >= 6 && name.substr(name.size() - 6) == ".jsonl") name.remove_suffix(6);
  // Optional "-<digits>" after the hour stamp.
  auto hour_stamp_at_end = [](std::string_view text) {
    // "-YYYY-MM-DD-HH" is 14 characters.
    if (text.size() < 14) return false;
    std::string_view stamp = text.substr(text.size() - 14);
    return stamp[0] == '-' && IsDigits(stamp.substr(1, 4)) && stamp[5] == '-' &&
           IsDigits(stamp.substr(6, 2)) && stamp[8] == '-' && IsDigits(stamp.substr(9, 2)) &&
           stamp[11] == '-' && IsDigits(stamp.substr(12, 2));
  };
  if (hour_stamp_at_end(name)) return true;
  const size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || !IsDigits(name.substr(dash + 1))) return false;
  return hour_stamp_at_end(name.substr(0, dash));
}

Indexer::Indexer(SqliteDb& db, std::string index_dir, StoreReader& store, IndexerOptions options,
                 HistoryMetrics& metrics, std::shared_ptr<spdlog::logger> logger, Clock now_ms)
    : db_(db),
      index_dir_(std::move(index_dir)),
      store_(store),
      options_(options),
      metrics_(metrics),
      logger_(std::move(logger)),
      now_ms_(std::move(now_ms)),
      writer_(db),
      folder_(options.max_event_bytes) {}

Indexer::~Indexer() { Stop(); }

void Indexer::Start() {
  thread_ = std::thread([this] {
    while (!stopping()) {
      if (absl::Status ran = RunOnce(); !ran.ok()) {
        logger_->warn("indexing pass ended early: {}", strings::View(ran.message()));
      }
      MutexLock lock(mutex_);
      wake_.WaitFor(mutex_, options_.poll_interval, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
        return stopping() || !refresh_.empty();
      });
    }
  });
}

void Indexer::Stop() {
  {
    MutexLock lock(mutex_);
    stop_.store(true);
  }
  wake_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

void Indexer::Refresh(const std::string& cluster, const std::string& session_name) {
  {
    MutexLock lock(mutex_);
    if (refresh_.size() < 10'000) refresh_.emplace(cluster, session_name);
  }
  wake_.SignalAll();
}

absl::Status Indexer::ListAll(StoreListRequest request,
                              const std::function<void(const StoreListPage&)>& on_page) {
  for (;;) {
    metrics_.list_requests.fetch_add(1);
    absl::StatusOr<StoreListPage> page = store_.List(request);
    if (!page.ok()) {
      metrics_.store_errors.fetch_add(1);
      return page.status();
    }
    on_page(*page);
    if (page->next_continuation_token.empty() || stopping()) return absl::OkStatus();
    request.continuation_token = page->next_continuation_token;
  }
}

absl::Status Indexer::NoteSession(const SessionIdentity& identity, bool marker) {
  for (SessionState& session : sessions_) {
    if (session.identity.cluster() == identity.cluster() &&
        session.identity.name == identity.name) {
      if (!marker) return absl::OkStatus();
      absl::Status ensured = writer_.EnsureSession(identity, true).status();
      if (!ensured.ok()) discovery_index_error_ = true;
      return ensured;
    }
  }
  absl::StatusOr<int64_t> id = writer_.EnsureSession(identity, marker);
  if (!id.ok()) {
    discovery_index_error_ = true;
    return id.status();
  }
  SessionState session;
  session.id = *id;
  session.identity = identity;
  session.prefix = strings::Cat(kHistoryRoot, identity.cluster(), "/", identity.name, "/");
  session.status = "live";
  session.last_new_object_ms = now_ms_();
  sessions_.push_back(std::move(session));
  logger_->info("found session {}/{}", Escaped(identity.cluster()), identity.name);
  return absl::OkStatus();
}

absl::Status Indexer::LoadSessions() {
  sessions_.clear();
  absl::StatusOr<SqliteStatement> select = db_.Prepare(
      "SELECT id, kind, namespace, owner, cluster_name, name, status, last_new_object_ms, "
      "retrying_objects, skipped_prefixes FROM sessions");
  if (!select.ok()) return select.status();
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    SessionState session;
    session.id = select->Int(0);
    session.identity = {std::string(select->Text(1)), std::string(select->Text(2)),
                        std::string(select->Text(3)), std::string(select->Text(4)),
                        std::string(select->Text(5))};
    session.prefix =
        strings::Cat(kHistoryRoot, session.identity.cluster(), "/", session.identity.name, "/");
    session.status = std::string(select->Text(6));
    session.last_new_object_ms = select->Int(7);
    session.retrying = DecodeRetryCounts(select->Text(8));
    session.skipped_prefixes = select->Int(9);
    sessions_.push_back(std::move(session));
  }
  return absl::OkStatus();
}

absl::Status Indexer::DiscoverMarkers() {
  // cluster-metadata/<kind>/<ns>_[<owner>_]<cluster>/<session>: one key per
  // session, so a full listing is small.
  std::vector<SessionIdentity> found;
  absl::Status listed =
      ListAll(Listing(std::string(kMetadataRoot)), [&](const StoreListPage& page) {
        for (const StoreEntry& entry : page.objects) {
          std::string_view key = std::string_view(entry.key).substr(kMetadataRoot.size());
          const size_t first = key.find('/');
          const size_t second = first == std::string_view::npos ? first : key.find('/', first + 1);
          if (second == std::string_view::npos) continue;
          const std::string_view kind = key.substr(0, first);
          const std::string_view joined = key.substr(first + 1, second - first - 1);
          const std::string_view name = key.substr(second + 1);
          if (!IsKind(kind) || !IsSessionName(name)) continue;
          // DNS-1123 names hold no '_', so the parts split unambiguously.
          std::vector<std::string> parts;
          size_t start = 0;
          while (start <= joined.size()) {
            size_t underscore = joined.find('_', start);
            if (underscore == std::string_view::npos) underscore = joined.size();
            parts.emplace_back(joined.substr(start, underscore - start));
            start = underscore + 1;
          }
          SessionIdentity identity;
          identity.kind = std::string(kind);
          identity.name = std::string(name);
          if (kind == "raycluster" && parts.size() == 2) {
            identity.ray_namespace = parts[0];
            identity.cluster_name = parts[1];
          } else if (kind != "raycluster" && parts.size() == 3) {
            identity.ray_namespace = parts[0];
            identity.owner = parts[1];
            identity.cluster_name = parts[2];
          } else {
            continue;
          }
          found.push_back(std::move(identity));
        }
      });
  if (!listed.ok()) return listed;
  for (const SessionIdentity& identity : found) {
    if (absl::Status noted = NoteSession(identity, true); !noted.ok()) return noted;
  }
  return absl::OkStatus();
}

absl::Status Indexer::DiscoverHistory() {
  // cluster-history/<kind>/<ns>/[<owner>/]<cluster>/<session>/, one level
  // per delimiter listing.
  auto children = [&](const std::string& prefix, std::vector<std::string>& out) -> absl::Status {
    absl::Status listed = ListAll(Listing(prefix, "/"), [&](const StoreListPage& page) {
      for (const std::string& child : page.common_prefixes) out.push_back(child);
    });
    // A directory below the root that the store will not list (a control
    // character in its name) hides no other: skip it, not the discovery.
    if (!listed.ok() && prefix != kHistoryRoot && PrefixOnlyListFailure(listed)) {
      SkipPrefix(prefix, listed);
      return absl::OkStatus();
    }
    return listed;
  };
  std::vector<std::string> kinds;
  if (absl::Status s = children(std::string(kHistoryRoot), kinds); !s.ok()) return s;
  for (const std::string& kind_prefix : kinds) {
    const std::string kind(LastSegment(kind_prefix));
    if (!IsKind(kind)) continue;
    std::vector<std::string> namespaces;
    if (absl::Status s = children(kind_prefix, namespaces); !s.ok()) return s;
    for (const std::string& ns_prefix : namespaces) {
      std::vector<std::pair<std::string, std::string>> clusters;  // (owner, cluster prefix)
      std::vector<std::string> level;
      if (absl::Status s = children(ns_prefix, level); !s.ok()) return s;
      if (kind == "raycluster") {
        for (std::string& c : level) clusters.emplace_back("", std::move(c));
      } else {
        for (const std::string& owner_prefix : level) {
          std::vector<std::string> inner;
          if (absl::Status s = children(owner_prefix, inner); !s.ok()) return s;
          for (std::string& c : inner) {
            clusters.emplace_back(std::string(LastSegment(owner_prefix)), std::move(c));
          }
        }
      }
      for (const auto& [owner, cluster_prefix] : clusters) {
        std::vector<std::string> session_prefixes;
        if (absl::Status s = children(cluster_prefix, session_prefixes); !s.ok()) return s;
        for (const std::string& session_prefix : session_prefixes) {
          SessionIdentity identity{kind, std::string(LastSegment(ns_prefix)), owner,
                                   std::string(LastSegment(cluster_prefix)),
                                   std::string(LastSegment(session_prefix))};
          if (!IsSessionName(identity.name)) continue;
          if (absl::Status noted = NoteSession(identity, false); !noted.ok()) return noted;
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Indexer::Discover() {
  discovery_index_error_ = false;
  if (absl::Status s = DiscoverMarkers(); !s.ok()) return s;
  return DiscoverHistory();
}

absl::Status Indexer::SetStatus(SessionState& session, const std::string& status,
                                int64_t gone_since) {
  absl::StatusOr<SqliteStatement*> update =
      db_.Cached("UPDATE sessions SET status = ?, gone_since_ms = ? WHERE id = ?");
  if (!update.ok()) return update.status();
  (*update)->BindText(1, status).Bind(2, gone_since).Bind(3, session.id);
  if (absl::Status ran = (*update)->Run(); !ran.ok()) return ran;
  if (session.status != status) {
    logger_->info("session {}/{} is now {}", Escaped(session.identity.cluster()),
                  session.identity.name, status);
  }
  session.status = status;
  return absl::OkStatus();
}

void Indexer::SkipPrefix(const std::string& prefix, const absl::Status& why) {
  metrics_.prefixes_skipped.fetch_add(1);
  // Warned once per directory; every pass after that at debug level.
  const bool first_time =
      warned_prefixes_.size() < 10'000 && warned_prefixes_.insert(prefix).second;
  logger_->log(first_time ? spdlog::level::warn : spdlog::level::debug,
               "skipping {}, which cannot be listed: {}", Escaped(prefix),
               Escaped(strings::View(why.message())));
}

absl::Status Indexer::SaveSessionCounters(const SessionState& session) {
  absl::StatusOr<SqliteStatement*> update =
      db_.Cached("UPDATE sessions SET retrying_objects = ?, skipped_prefixes = ? WHERE id = ?");
  if (!update.ok()) return update.status();
  (*update)
      ->BindText(1, EncodeRetryCounts(session.retrying))
      .Bind(2, session.skipped_prefixes)
      .Bind(3, session.id);
  return (*update)->Run();
}

absl::Status Indexer::IndexObjects(size_t index,
                                   std::vector<std::pair<std::string, StoreEntry>>& objects,
                                   Pass& pass) {
  SessionState& session = sessions_[index];
  // Objects in listing order per prefix; a batch ends at batch_max_bytes of
  // folded state, and records how far each prefix got.
  BatchInput batch;
  std::map<std::string, std::string> progress;
  bool retrying_changed = false;
  auto flush = [&]() -> absl::Status {
    metrics_.objects_pending.store(pass.pending);
    if (batch.objects.empty() && progress.empty()) return absl::OkStatus();
    for (const auto& [prefix, last_key] : progress) batch.progress.push_back({prefix, last_key});
    const uint64_t objects_in_batch = batch.objects.size();
    const uint64_t tasks = batch.folded.tasks.size();
    absl::StatusOr<WriteStats> written = writer_.WriteBatch(session.id, std::move(batch));
    if (!written.ok()) return written.status();
    metrics_.batches_committed.fetch_add(1);
    metrics_.objects_indexed.fetch_add(objects_in_batch);
    metrics_.tasks_written.fetch_add(written->tasks_inserted + written->tasks_updated +
                                     written->tasks_reconciled);
    logger_->debug("session {}: {} objects, {} tasks committed", session.identity.name,
                   objects_in_batch, tasks);
    batch = BatchInput();
    progress.clear();
    return absl::OkStatus();
  };
  // A prefix whose object failed waits for it: nothing after it is read
  // until it is read or passed (SettleFailures).
  std::set<std::string> waiting;
  for (size_t i = 0; i < objects.size(); ++i) {
    const auto& [prefix, entry] = objects[i];
    if (stopping()) break;
    if (waiting.contains(prefix)) continue;
    ObjectOutcome outcome;
    outcome.key = entry.key;
    outcome.size = entry.size;
    std::optional<AbandonReason> abandoned;
    if (entry.size > options_.max_object_bytes) {
      outcome.error = "larger than the indexer's max_object_bytes";
      abandoned = AbandonReason::kTooLarge;
    } else {
      absl::StatusOr<StoreBlob> blob = store_.Get(entry.key, options_.max_object_bytes);
      if (!blob.ok()) {
        metrics_.store_errors.fetch_add(1);
        abandoned = FinalReadFailure(blob.status());
        if (!abandoned) {
          waiting.insert(prefix);
          const bool next_in_prefix = i + 1 < objects.size() && objects[i + 1].first == prefix;
          pass.failures.push_back({index, prefix, entry, blob.status(),
                                   next_in_prefix ? objects[i + 1].second.key : ""});
          continue;
        }
        switch (*abandoned) {
          case AbandonReason::kNotFound:
            outcome.error = "disappeared before it could be read";
            break;
          case AbandonReason::kTooLarge:
            outcome.error = "larger than the indexer's max_object_bytes";
            break;
          default:
            outcome.error = strings::Cat("the store refuses to read it: ",
                                         Escaped(strings::View(blob.status().message())));
        }
      } else {
        ++pass.objects_read;
        metrics_.object_bytes_read.fetch_add(blob->body.size());
        const FoldedObject folded = folder_.Fold(blob->body, batch.folded);
        outcome.events = folded.events;
        outcome.bad_lines = folded.bad_lines;
        outcome.error = folded.error;
        metrics_.events_folded.fetch_add(folded.events);
        metrics_.bad_lines.fetch_add(folded.bad_lines);
        for (const auto& [name, value] : blob->metadata) {
          // clang 14 cannot capture a structured binding (C++20 allows it): name it.
          auto number = [&text = value](int64_t& out) {
            int64_t parsed = 0;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
            if (ec == std::errc() && end == text.data() + text.size()) out = parsed;
          };
          if (name == "rayagg-writer") outcome.writer = value;
          if (name == "rayagg-seq-first") number(outcome.seq_first);
          if (name == "rayagg-seq-last") number(outcome.seq_last);
          if (name == "rayagg-drops") number(outcome.writer_drops);
          if (name == "rayagg-events") number(outcome.manifest_events);
          if (name == "rayagg-seq-void" && ParseSeqRanges(value).ok()) outcome.seq_void = value;
          if (name == "rayagg-dropped-task-attempts") number(outcome.dropped_task_attempts);
        }
      }
    }
    if (abandoned) metrics_.objects_abandoned[static_cast<size_t>(*abandoned)].fetch_add(1);
    if (session.retrying.erase(entry.key) > 0) retrying_changed = true;
    if (!outcome.error.empty()) {
      metrics_.bad_objects.fetch_add(1);
      logger_->warn("object {}: {} ({} events read)", Escaped(outcome.key), outcome.error,
                    outcome.events);
    }
    batch.objects.push_back(std::move(outcome));
    progress[prefix] = entry.key;
    batch.now_ms = now_ms_();
    --pass.pending;
    if (batch.folded.approximate_bytes >= options_.batch_max_bytes) {
      if (absl::Status flushed = flush(); !flushed.ok()) return flushed;
    }
  }
  if (absl::Status flushed = flush(); !flushed.ok()) return flushed;
  return retrying_changed ? SaveSessionCounters(session) : absl::OkStatus();
}

absl::Status Indexer::SettleFailures(Pass& pass) {
  if (pass.failures.empty()) return absl::OkStatus();
  // A failure counts against its object only while the store serves other
  // objects: when it served none this pass, the failure is taken to be the
  // store's (an outage, credentials), which must not mark every object
  // bad. With no other read to go by, the object after a failing one in
  // its prefix is read once to tell.
  if (pass.objects_read == 0) {
    for (const ReadFailure& failure : pass.failures) {
      if (failure.next_key.empty()) continue;
      absl::StatusOr<StoreBlob> probe = store_.Get(failure.next_key, options_.max_object_bytes);
      if (probe.ok()) {
        ++pass.objects_read;
      } else {
        metrics_.store_errors.fetch_add(1);
      }
      break;
    }
  }
  if (pass.objects_read == 0) {
    pass.store_failed = true;
    const std::string why = Escaped(strings::View(pass.failures.front().status.message()));
    logger_->warn("the store served no object this pass: {} reads failed ({}), retried next pass",
                  pass.failures.size(), why);
    if (pass.first_store_error.empty()) pass.first_store_error = why;
    return absl::OkStatus();
  }
  std::set<size_t> touched;
  for (const ReadFailure& failure : pass.failures) {
    SessionState& session = sessions_[failure.session];
    touched.insert(failure.session);
    const uint32_t tries = ++session.retrying[failure.entry.key];
    const bool denied = failure.status.code() == absl::StatusCode::kPermissionDenied;
    const std::string why = Escaped(strings::View(failure.status.message()));
    if (!denied && tries < options_.max_object_attempts) {
      logger_->warn("object {}: not read ({} of {} tries), retried next pass: {}",
                    Escaped(failure.entry.key), tries, options_.max_object_attempts, why);
      continue;
    }
    session.retrying.erase(failure.entry.key);
    const AbandonReason reason =
        denied ? AbandonReason::kPermissionDenied : AbandonReason::kAttempts;
    ObjectOutcome outcome;
    outcome.key = failure.entry.key;
    outcome.size = failure.entry.size;
    outcome.error = denied ? strings::Cat("access denied: ", why)
                           : strings::Cat("could not be read in ", tries, " passes: ", why);
    // Recorded as bad, and its prefix moves past it in the same commit.
    BatchInput batch;
    batch.objects.push_back(outcome);
    batch.progress.push_back({failure.prefix, failure.entry.key});
    absl::StatusOr<WriteStats> written = writer_.WriteBatch(session.id, std::move(batch));
    if (!written.ok()) return written.status();
    metrics_.bad_objects.fetch_add(1);
    metrics_.objects_abandoned[static_cast<size_t>(reason)].fetch_add(1);
    --pass.pending;
    logger_->warn("object {}: passed over and recorded as bad: {}", Escaped(outcome.key),
                  outcome.error);
  }
  for (size_t index : touched) {
    if (absl::Status saved = SaveSessionCounters(sessions_[index]); !saved.ok()) return saved;
  }
  return absl::OkStatus();
}

absl::Status Indexer::PollSession(size_t index, Pass& pass) {
  SessionState& session = sessions_[index];
  ++pass.sessions_polled;
  // The session's pass ends at a failed listing; what was listed before it
  // is still indexed (each prefix's listing is in key order).
  absl::Status store_error;
  auto note_store_error = [&] {
    ++pass.sessions_unlisted;
    const std::string why = Escaped(strings::View(store_error.message()));
    logger_->warn("session {}/{}: {}", Escaped(session.identity.cluster()), session.identity.name,
                  why);
    if (pass.first_store_error.empty()) pass.first_store_error = why;
  };
  // The event prefixes of every node: <node>/node_events/ and
  // <node>/job_events/<job>/ (logs/ and fetched_endpoints/ are not events).
  std::vector<std::string> nodes;
  store_error = ListAll(Listing(session.prefix, "/"), [&](const StoreListPage& page) {
    for (const std::string& p : page.common_prefixes) {
      if (LastSegment(p) != "fetched_endpoints") nodes.push_back(p);
    }
  });
  if (!store_error.ok()) {
    if (PrefixOnlyListFailure(store_error)) {
      // Its name (from a marker) is one the store refuses: nothing to read.
      SkipPrefix(session.prefix, store_error);
    } else {
      note_store_error();
    }
    return absl::OkStatus();
  }
  const int64_t now = now_ms_();
  if (nodes.empty()) {
    // Listed before and now empty: its objects are gone from the store.
    absl::StatusOr<SqliteStatement*> count =
        db_.Cached("SELECT objects FROM sessions WHERE id = ?");
    if (!count.ok()) return count.status();
    (*count)->Bind(1, session.id);
    absl::StatusOr<bool> row = (*count)->Step();
    if (!row.ok()) return row.status();
    const bool had_objects = *row && (*count)->Int(0) > 0;
    (*count)->Reset();
    if (had_objects && session.status != "gone") return SetStatus(session, "gone", now);
    return absl::OkStatus();
  }
  // A directory the store will not list for reasons of its own (a control
  // character in its name, a policy on it) is skipped and counted, not the
  // session; any other failure ends the session's pass.
  int64_t skipped = 0;
  auto list = [&](const std::string& prefix, const std::string& delimiter,
                  const std::string& start_after,
                  const std::function<void(const StoreListPage&)>& on_page) {
    absl::Status listed = ListAll(Listing(prefix, delimiter, start_after), on_page);
    if (listed.ok()) return true;
    if (!PrefixOnlyListFailure(listed)) {
      store_error = listed;
      return false;
    }
    ++skipped;
    SkipPrefix(prefix, listed);
    return false;
  };
  std::vector<std::string> prefixes;
  for (const std::string& node : nodes) {
    if (!store_error.ok()) break;
    prefixes.push_back(node + "node_events/");
    list(node + "job_events/", "/", "", [&](const StoreListPage& page) {
      for (const std::string& p : page.common_prefixes) prefixes.push_back(p);
    });
  }
  std::vector<std::pair<std::string, StoreEntry>> objects;
  for (const std::string& prefix : prefixes) {
    if (!store_error.ok()) break;
    // Progress keys are relative to the session; store keys are absolute.
    std::string relative = prefix.substr(session.prefix.size());
    absl::StatusOr<SqliteStatement*> position =
        db_.Cached("SELECT last_key FROM prefixes WHERE session_id = ? AND prefix = ?");
    if (!position.ok()) return position.status();
    (*position)->Bind(1, session.id).BindText(2, relative);
    absl::StatusOr<bool> row = (*position)->Step();
    if (!row.ok()) return row.status();
    std::string start_after = *row ? std::string((*position)->Text(0)) : "";
    (*position)->Reset();
    list(prefix, "", start_after, [&](const StoreListPage& page) {
      for (const StoreEntry& entry : page.objects) {
        const std::string_view name = LastSegment(entry.key);
        if (!IsEventFileName(name)) continue;
        objects.emplace_back(relative, entry);
      }
    });
  }
  pass.pending += objects.size();
  metrics_.objects_pending.store(pass.pending);
  const size_t count = objects.size();
  if (absl::Status indexed = IndexObjects(index, objects, pass); !indexed.ok()) return indexed;
  if (store_error.ok() && skipped != session.skipped_prefixes) {
    session.skipped_prefixes = skipped;
    if (absl::Status saved = SaveSessionCounters(session); !saved.ok()) return saved;
  }
  if (!store_error.ok()) note_store_error();
  if (count > 0) {
    session.last_new_object_ms = now;
    if (session.status != "live") return SetStatus(session, "live", 0);
    return absl::OkStatus();
  }
  // Nothing new: after session_idle this listing was the last one.
  if (store_error.ok() && session.status == "live" &&
      now - session.last_new_object_ms >= options_.session_idle.count()) {
    return SetStatus(session, "idle", 0);
  }
  return absl::OkStatus();
}

absl::Status Indexer::Evict(int64_t id, SessionRemoval removal) {
  if (absl::Status dropped = writer_.DropSession(id, &removal); !dropped.ok()) return dropped;
  metrics_.sessions_dropped.fetch_add(1);
  for (SessionState& session : sessions_) {
    if (session.id != id) continue;
    logger_->info("session {}/{} removed from the index ({}: {})",
                  Escaped(session.identity.cluster()), session.identity.name, removal.reason,
                  removal.detail);
    session.status = "evicted";
    session.retrying.clear();
    session.skipped_prefixes = 0;
  }
  return absl::OkStatus();
}

absl::Status Indexer::ApplyBounds() {
  const int64_t now = now_ms_();
  const int64_t retention = options_.retention.count();
  // Retention (0: keep everything): by the time since the session last had
  // something new indexed or its last event, whichever is later — so an old
  // archive indexed today is kept for a retention from today — or by the
  // time since its objects disappeared.
  if (retention > 0) {
    std::vector<std::pair<int64_t, bool>> expired;  // (id, gone)
    absl::StatusOr<SqliteStatement> select = db_.Prepare(
        "SELECT id, status = 'gone' AND gone_since_ms > 0 AND gone_since_ms <= ?1 FROM sessions "
        "WHERE status != 'evicted' AND ((status = 'gone' AND gone_since_ms > 0 AND "
        "gone_since_ms <= ?1) OR (max(last_event_ns / 1000000, last_new_object_ms) > 0 AND "
        "max(last_event_ns / 1000000, last_new_object_ms) <= ?1))");
    if (!select.ok()) return select.status();
    select->Bind(1, now - retention);
    for (;;) {
      absl::StatusOr<bool> row = select->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      expired.emplace_back(select->Int(0), select->Int(1) != 0);
    }
    const std::string setting = strings::Cat("index.retention is ", DurationText(retention));
    for (const auto& [id, gone] : expired) {
      if (absl::Status s = Evict(id, {gone ? "gone" : "retention", now, setting}); !s.ok()) {
        return s;
      }
    }
  }
  // max_bytes: the live size (pages in use), oldest sessions first.
  for (int round = 0; round < 1000; ++round) {
    absl::StatusOr<SqliteStatement> size = db_.Prepare(
        "SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM "
        "pragma_freelist_count()), (SELECT page_size FROM pragma_page_size())");
    if (!size.ok()) return size.status();
    absl::StatusOr<bool> row = size->Step();
    if (!row.ok()) return row.status();
    const uint64_t used = static_cast<uint64_t>(size->Int(0)) * static_cast<uint64_t>(size->Int(1));
    if (used <= options_.max_index_bytes) break;
    absl::StatusOr<SqliteStatement> oldest = db_.Prepare(
        "SELECT id FROM sessions WHERE status != 'evicted' ORDER BY last_event_ns, id LIMIT 2");
    if (!oldest.ok()) return oldest.status();
    std::vector<int64_t> ids;
    for (;;) {
      absl::StatusOr<bool> more = oldest->Step();
      if (!more.ok()) return more.status();
      if (!*more) break;
      ids.push_back(oldest->Int(0));
    }
    // Never the only session left: an index smaller than one session is
    // configured wrong, and emptying it would only re-read it.
    if (ids.size() < 2) {
      logger_->warn("index uses {} bytes, above index.max_bytes, with one session left", used);
      break;
    }
    const std::string setting = strings::Cat("index.max_bytes is ", options_.max_index_bytes,
                                             " bytes and the index used ", used);
    if (absl::Status s = Evict(ids[0], {"max_bytes", now, setting}); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Indexer::RunPass(Pass& pass) {
  if (sessions_.empty() && last_discovery_ms_ < 0) {
    if (absl::Status loaded = LoadSessions(); !loaded.ok()) return loaded;
  }
  const int64_t now = now_ms_();
  if (last_discovery_ms_ < 0 || now - last_discovery_ms_ >= options_.discovery_interval.count()) {
    if (absl::Status discovered = Discover(); !discovered.ok()) {
      // NoteSession's index errors come back here too.
      if (discovery_index_error_) return discovered;
      const std::string why = Escaped(strings::View(discovered.message()));
      logger_->warn("store discovery failed: {}", why);
      pass.first_store_error = why;
      pass.store_failed = true;
    } else {
      last_discovery_ms_ = now;
    }
  }
  std::set<std::pair<std::string, std::string>> refresh;
  {
    MutexLock lock(mutex_);
    refresh.swap(refresh_);
  }
  for (size_t index = 0; index < sessions_.size(); ++index) {
    if (stopping()) break;
    SessionState& session = sessions_[index];
    const bool forced = refresh.contains({session.identity.cluster(), session.identity.name});
    bool due = session.status == "live" || forced;
    if (!due && session.status == "idle" &&
        now - session.last_presence_check_ms >= options_.presence_check_interval.count()) {
      // An idle session is only checked for having disappeared.
      session.last_presence_check_ms = now;
      metrics_.list_requests.fetch_add(1);
      absl::StatusOr<StoreListPage> page = store_.List(Listing(session.prefix, "", "", 1));
      if (!page.ok()) metrics_.store_errors.fetch_add(1);
      if (page.ok() && page->objects.empty() && page->common_prefixes.empty()) {
        if (absl::Status s = SetStatus(session, "gone", now); !s.ok()) return s;
      }
      continue;
    }
    if (!due) continue;
    if (absl::Status polled = PollSession(index, pass); !polled.ok()) return polled;
  }
  if (absl::Status settled = SettleFailures(pass); !settled.ok()) return settled;
  if (pass.sessions_polled > 0 && pass.sessions_unlisted == pass.sessions_polled) {
    pass.store_failed = true;
  }
  return ApplyBounds();
}

absl::Status Indexer::RunOnce() {
  metrics_.polls.fetch_add(1);
  Pass pass;
  const absl::Status ran = RunPass(pass);
  // Gauges are set whatever became of the pass, so none goes stale while
  // passes fail (rayhist_last_pass_success_timestamp_seconds says when one
  // last succeeded).
  metrics_.sessions.store(sessions_.size());
  metrics_.index_bytes.store(IndexFileBytes(index_dir_));
  metrics_.objects_pending.store(pass.pending);
  const int64_t end = now_ms_();
  if (stopping() && ran.ok()) return absl::OkStatus();  // cut short: tells nothing
  const bool succeeded = ran.ok() && !pass.store_failed;
  metrics_.last_pass_ok.store(succeeded);
  if (succeeded) {
    metrics_.last_pass_success_ms.store(end);
  } else {
    metrics_.passes_failed.fetch_add(1);
  }
  // Caught up: everything listed was read or passed.
  if (succeeded && pass.first_store_error.empty() && pass.pending == 0) {
    metrics_.caught_up_at_ms.store(end);
  }
  if (!ran.ok()) return ran;
  if (!pass.first_store_error.empty()) return absl::UnavailableError(pass.first_store_error);
  return absl::OkStatus();
}

}  // namespace rayagg::history
