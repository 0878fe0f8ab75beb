#include "app/daemon.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "app/daemon_metrics.h"
#include "config/object_sink_config.h"
#include "ingest/event_keys.h"
#include "json/event_json_parser.h"
#include "merge/ray_event_merger.h"
#include "objsink/object_sink_factory.h"
#include "rayagg/object_store.h"
#include "sinks/sink_factory.h"

namespace rayagg {

namespace {

// A listener's HttpServerOptions from its section's address, port and limits.
HttpServerOptions ListenerOptions(const std::string& address, uint16_t port,
                                  const HttpListenerLimits& limits) {
  return HttpServerOptions{.address = address,
                           .port = port,
                           .max_header_bytes = static_cast<uint32_t>(limits.max_header_bytes),
                           .max_header_fields = static_cast<size_t>(limits.max_header_fields),
                           .max_connections = static_cast<size_t>(limits.max_connections),
                           .max_requests_per_connection = limits.max_requests_per_connection,
                           .idle_timeout = limits.idle_timeout,
                           .read_timeout = limits.read_timeout,
                           .write_timeout = std::chrono::seconds(10)};
}

}  // namespace

unsigned AllowedCpuCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
}

Daemon::Daemon(Config config, std::shared_ptr<spdlog::logger> logger)
    : Daemon(std::move(config), std::move(logger), real_clock_) {}

Daemon::Daemon(Config config, std::shared_ptr<spdlog::logger> logger, Clock& clock)
    : config_(std::move(config)),
      logger_(std::move(logger)),
      clock_(clock),
      log_(EventLog::Limits{config_.buffer.max_events, config_.buffer.max_bytes},
           EventLog::Options{
               .dedup_window_events = config_.buffer.dedup_window_events,
               .merger_factory = config_.buffer.coalesce ? RayEventMerger::Factory() : nullptr}) {}

Daemon::~Daemon() { Stop(); }

absl::Status Daemon::Start() {
  if (started_) return absl::FailedPreconditionError("daemon already started");
  started_ = true;
  if (config_.spool.enabled()) {
    if (absl::Status opened = OpenSpool(); !opened.ok()) {
      spool_.reset();
      stopped_ = true;
      return opened;
    }
  }
  work_guard_.emplace(io_.get_executor());
  // Sinks first: their cursors must exist before the first event arrives.
  for (const SinkConfig& sink_config : config_.sinks) {
    absl::Status made;
    if (IsObjectStoreSinkUrl(sink_config.url)) {
      // With the spool on, the writer and its numbering outlive the process.
      auto sink = MakeObjectSink(asio::make_strand(io_), sink_config, log_, *logger_, clock_,
                                 config_.spool.dir);
      if (sink.ok()) {
        (*sink)->ReportSenderDrops(ingest_counters_.sender_dropped_task_attempts);
        object_sinks_.push_back(*std::move(sink));
      }
      made = sink.status();
    } else {
      auto sink = MakeSink(asio::make_strand(io_), sink_config, log_, *logger_, clock_);
      if (sink.ok()) sinks_.push_back(*std::move(sink));
      made = sink.status();
    }
    if (!made.ok()) {
      sinks_.clear();  // none started yet: nothing to drain
      object_sinks_.clear();
      work_guard_.reset();
      stopped_ = true;
      return made;
    }
  }
  if (sinks_.empty() && object_sinks_.empty()) {
    logger_->warn(
        "no sinks configured: events are accepted and discarded "
        "(add `sinks:` to the config or set RAY_DASHBOARD_AGGREGATOR_AGENT_EVENTS_EXPORT_ADDR)");
  }
  if (spool_) {
    ResumeSinks();
    log_.SetReleaseListener([this] { PublishSpoolPositions(); });
    PublishSpoolPositions();  // the ledger names every sink from the start
  }
  for (auto& sink : sinks_) sink->Start();
  for (auto& sink : object_sinks_) sink->Start();
  // One thread per sink up to the CPUs we may use; each sink is a strand, so
  // sinks run in parallel but each one's state is single-threaded.
  const size_t threads = std::clamp<size_t>(sinks_.size() + object_sinks_.size(), 1,
                                            static_cast<size_t>(AllowedCpuCount()));
  for (size_t i = 0; i < threads; ++i) io_threads_.emplace_back([this] { RunIoThread(); });

  grpc_server_ = std::make_unique<GrpcIngestServer>(config_.grpc, log_, ingest_counters_, *logger_,
                                                    config_.ingest_auth, clock_);
  absl::StatusOr<int> port = grpc_server_->Start();
  if (!port.ok()) {
    Stop();
    return port.status();
  }
  grpc_port_ = *port;
  if (config_.http_ingest.enabled) {
    if (absl::Status http = StartHttpIngest(); !http.ok()) {
      Stop();
      return http;
    }
  }
  if (config_.ops.enabled) {
    if (absl::Status ops = StartOps(); !ops.ok()) {
      Stop();
      return ops;
    }
  }
  ready_ = true;
  return absl::OkStatus();
}

absl::Status Daemon::OpenSpool() {
  const SpoolConfig& config = config_.spool;
  spool::SpoolOptions options;
  options.directory = config.dir;
  options.max_bytes = config.max_bytes;
  options.segment_bytes = config.segment_bytes;
  options.sync = config.sync == SpoolConfig::Sync::kAlways  ? spool::SyncMode::kAlways
                 : config.sync == SpoolConfig::Sync::kNever ? spool::SyncMode::kNever
                                                            : spool::SyncMode::kInterval;
  options.sync_interval = config.sync_interval;
  options.on_write_error = config.on_write_error == SpoolConfig::OnWriteError::kRefuse
                               ? spool::OnWriteError::kRefuse
                               : spool::OnWriteError::kMemory;
  absl::StatusOr<std::unique_ptr<spool::Spool>> opened =
      spool::Spool::Open(spool_fs_, clock_, options, "pid " + std::to_string(getpid()));
  if (!opened.ok()) return opened.status();
  spool_ = *std::move(opened);
  for (const std::string& problem : spool_->open_problems()) logger_->error("spool: {}", problem);
  spool_link_ = std::make_unique<SpoolLink>(log_, *logger_);
  log_.UseSpool(*spool_, spool_->first_sequence());
  // Recovery reads the earlier run's segments behind serving (this run's
  // records go to new segments meanwhile); sinks resumed before this run
  // read them once it is done. The last dedup_window_events ids it sees go
  // back into the dedup window.
  const size_t window = static_cast<size_t>(config_.buffer.dedup_window_events);
  auto recovered_ids = std::make_shared<std::vector<uint64_t>>();
  auto next_id = std::make_shared<size_t>(0);
  spool_->StartRecovery(
      [recovered_ids, next_id, window](const spool::RecordHeader&, std::string_view payload) {
        if (window == 0) return;
        const std::optional<WireEventFacts> facts = FactsOfWire(payload);
        if (!facts) return;
        if (recovered_ids->size() < window) {
          recovered_ids->push_back(facts->keys.event_id_hash);
        } else {
          (*recovered_ids)[*next_id] = facts->keys.event_id_hash;
          *next_id = (*next_id + 1) % window;
        }
      },
      [this, recovered_ids, next_id](const spool::RecoveryReport& report) {
        for (const std::string& problem : report.problems) {
          logger_->error("spool recovery: {}", problem);
        }
        logger_->info(
            "spool recovered segments={} records={} bytes={} torn_bytes={} corrupt_regions={}",
            report.segments, report.records, report.bytes_scanned, report.torn_bytes,
            report.corrupt.size());
        // Oldest first, so the newest stay longest in the window.
        std::rotate(recovered_ids->begin(),
                    recovered_ids->begin() + static_cast<std::ptrdiff_t>(*next_id),
                    recovered_ids->end());
        log_.RememberIds(*recovered_ids);
        log_.NotifyAll();
      });
  spool_->Start(log_, *spool_link_, /*stream_start=*/0);
  logger_->info("spool open dir={} first_sequence={}", config.dir, spool_->first_sequence());
  return absl::OkStatus();
}

std::vector<std::pair<std::string, EventReader::CursorId>> Daemon::SinkCursors() const {
  std::vector<std::pair<std::string, EventReader::CursorId>> cursors;
  for (const auto& sink : sinks_) cursors.emplace_back(sink->name(), sink->cursor());
  for (const auto& sink : object_sinks_) cursors.emplace_back(sink->name(), sink->cursor());
  return cursors;
}

void Daemon::ResumeSinks() {
  const spool::LedgerState& ledger = spool_->ledger();
  for (const auto& [sink_name, cursor] : SinkCursors()) {
    // Without a ledger (none yet, or moved aside as unreadable) every sink
    // starts at the oldest record on disk: duplicates, never a loss. A sink
    // the ledger does not name is new and starts with this run.
    std::optional<uint64_t> position;
    if (ledger.positions.empty()) position = 0;
    for (const auto& [name, released] : ledger.positions) {
      if (name == sink_name) position = released;
    }
    if (!position || *position >= spool_->first_sequence()) continue;
    log_.ResumeCursor(cursor, *position);
    logger_->info("sink resumes from the spool sink={} position={}", sink_name, *position);
  }
}

void Daemon::PublishSpoolPositions() {
  std::vector<std::pair<std::string, uint64_t>> positions;
  for (const auto& [name, cursor] : SinkCursors()) {
    positions.emplace_back(name, log_.ReleasedPosition(cursor));
  }
  spool_link_->PublishPositions(*spool_, std::move(positions));
}

absl::Status Daemon::StartOps() {
  ops_listener_.Start();
  HttpServerOptions options =
      ListenerOptions(config_.ops.address, config_.ops.port, config_.ops.limits);
  options.max_body_bytes = 0;
  ops_server_ = std::make_unique<HttpServer>(ops_listener_.io_context(), std::move(options));
  ops_server_->AddRoute("/metrics", {http::verb::get}, [this](HttpRequest& request) {
    return MakeHttpResponse(request, http::status::ok, RenderMetricsPage(),
                            "text/plain; version=0.0.4; charset=utf-8");
  });
  ops_server_->AddRoute("/healthz", {http::verb::get}, [](HttpRequest& request) {
    return MakeHttpResponse(request, http::status::ok, "ok\n");
  });
  ops_server_->AddRoute("/readyz", {http::verb::get}, [this](HttpRequest& request) {
    // The spool's state is a line of the body, never a reason for 503:
    // ingest accepts while it is down (or answers 503 itself when refusing).
    const std::string spool = spool_link_ ? spool_link_->HealthLine() + "\n" +
                                                SpoolLink::RecoveryLine(spool_->Stats()) + "\n"
                                          : std::string();
    return ready_.load()
               ? MakeHttpResponse(request, http::status::ok, "ready\n" + spool)
               : MakeHttpResponse(request, http::status::service_unavailable, "draining\n" + spool);
  });
  absl::StatusOr<uint16_t> port = ops_server_->Start();
  if (!port.ok()) {
    return absl::Status(port.status().code(), "ops: " + std::string(port.status().message()));
  }
  ops_port_ = *port;
  logger_->info("serving ops address={}:{} paths=/metrics,/healthz,/readyz", config_.ops.address,
                ops_port_);
  return absl::OkStatus();
}

absl::Status Daemon::Reload(const absl::StatusOr<Config>& loaded) {
  auto refuse = [this](absl::Status status) {
    reloads_failed_.fetch_add(1);
    return status;
  };
  if (!loaded.ok()) return refuse(loaded.status());
  const Config& config = *loaded;
  if (!started_ || stopped_) return refuse(absl::FailedPreconditionError("daemon is not running"));
  if (config.spool != config_.spool) {
    return refuse(absl::FailedPreconditionError(
        "the new config changes the spool section; spool settings need a restart"));
  }
  if (config.sinks.size() != config_.sinks.size()) {
    return refuse(absl::FailedPreconditionError(
        "the new config adds or removes sinks; that needs a restart"));
  }
  // Object-store sinks keep the settings they started with (their
  // credentials files are re-read when they change); the others are
  // reconfigured, matched in order.
  std::vector<size_t> reconfigured;  // indexes into config.sinks, one per sinks_ entry
  for (size_t i = 0; i < config.sinks.size(); ++i) {
    const bool object_store = IsObjectStoreSinkUrl(config_.sinks[i].url);
    if (config.sinks[i].name != config_.sinks[i].name ||
        object_store != IsObjectStoreSinkUrl(config.sinks[i].url)) {
      return refuse(absl::FailedPreconditionError(
          "sink names, kinds or their order changed (sinks[" + std::to_string(i) + "] is \"" +
          config.sinks[i].name + "\", was \"" + config_.sinks[i].name +
          "\"); that needs a restart"));
    }
    if (!object_store) reconfigured.push_back(i);
  }
  // Build everything first: a sink whose new settings fail leaves all as they were.
  std::vector<SinkParts> parts;
  for (size_t j = 0; j < sinks_.size(); ++j) {
    const size_t i = reconfigured[j];
    // The slot count is fixed for a sink's life: max_in_flight applies on restart.
    SinkConfig sink_config = config.sinks[i];
    sink_config.max_in_flight = static_cast<uint32_t>(sinks_[j]->slot_count());
    absl::StatusOr<SinkParts> made = MakeSinkParts(sinks_[j]->executor(), sink_config, *logger_);
    if (!made.ok()) return refuse(made.status());
    parts.push_back(*std::move(made));
  }
  for (size_t j = 0; j < sinks_.size(); ++j) {
    sinks_[j]->Reconfigure(config.sinks[reconfigured[j]], std::move(parts[j].transports),
                           std::move(parts[j].encoder));
  }
  if (http_bearer_check_) {
    // A rotated (or newly set, or removed) token applies to the next request's header.
    http_bearer_check_->SetToken(config.http_ingest.bearer_token);
    LogHttpIngestAuth(!config.http_ingest.bearer_token.empty());
  }
  reloads_succeeded_.fetch_add(1);
  return absl::OkStatus();
}

std::string Daemon::RenderMetricsPage() const {
  std::vector<HttpListenerCounters> listeners;
  if (http_server_) {
    listeners.push_back(
        {"http_ingest", http_server_->counters(), http_server_->connection_counts()});
  }
  if (ops_server_) {
    listeners.push_back({"ops", ops_server_->counters(), ops_server_->connection_counts()});
  }
  const double now = std::chrono::duration<double>(clock_.WallNow().time_since_epoch()).count();
  std::vector<SinkMetricsSource> sinks;
  auto next_sink = sinks_.begin();
  auto next_object_sink = object_sinks_.begin();
  for (const SinkConfig& sink_config : config_.sinks) {
    if (IsObjectStoreSinkUrl(sink_config.url) && next_object_sink != object_sinks_.end()) {
      const ObjectSink& sink = **next_object_sink++;
      sinks.push_back({sink.name(), sink.counters(), sink.drops(), sink.request_stats(),
                       &sink.object_counters(), log_.ReleasedPosition(sink.cursor()),
                       log_.ReplayedEvents(sink.cursor())});
    } else if (next_sink != sinks_.end()) {
      const Sink& sink = **next_sink++;
      sinks.push_back({sink.name(), sink.counters(), sink.drops(), sink.request_stats(), nullptr,
                       log_.ReleasedPosition(sink.cursor()), log_.ReplayedEvents(sink.cursor())});
    }
  }
  return RenderMetrics(MetricsInput{.ingest = ingest_counters_,
                                    .buffer = log_.GetSnapshot(),
                                    .buffer_config = config_.buffer,
                                    .sinks = std::move(sinks),
                                    .http_listeners = std::move(listeners),
                                    .ready = ready_.load(),
                                    .reloads_succeeded = reloads_succeeded_.load(),
                                    .reloads_failed = reloads_failed_.load(),
                                    .unix_now_seconds = now,
                                    .spool = spool_.get(),
                                    .log = &log_},
                       config_.ops.constant_labels);
}

absl::Status Daemon::StartHttpIngest() {
  const HttpIngestConfig& http = config_.http_ingest;
  ingest_listener_.Start();
  http_ingest_ = std::make_unique<HttpIngestHandler>(log_, ingest_counters_, *logger_,
                                                     http.max_body_bytes, clock_);
  HttpServerOptions options = ListenerOptions(http.address, http.port, http.limits);
  options.max_body_bytes = http.max_body_bytes;
  options.body_spare_bytes = kJsonSpareBytes;
  http_server_ = std::make_unique<HttpServer>(ingest_listener_.io_context(), std::move(options));
  // Installed even without a token, so that a reload can turn the check on.
  http_bearer_check_ = std::make_unique<HttpBearerCheck>(http.bearer_token);
  http_server_->AddAsyncRoute(
      http.path, {http::verb::post},
      [handler = http_ingest_.get()](HttpRequest& request, HttpResponder respond) {
        handler->HandleAsync(request, std::move(respond));
      },
      http_bearer_check_->AsHeaderCheck());
  absl::StatusOr<uint16_t> port = http_server_->Start();
  if (!port.ok()) {
    return absl::Status(port.status().code(),
                        "http_ingest: " + std::string(port.status().message()));
  }
  http_port_ = *port;
  LogHttpIngestAuth(!http.bearer_token.empty());
  return absl::OkStatus();
}

void Daemon::LogHttpIngestAuth(bool authenticated) const {
  const HttpIngestConfig& http = config_.http_ingest;
  logger_->info("HTTP JSON ingest listening on {}:{}{} auth={}", http.address, http_port_,
                http.path, authenticated ? "bearer-token" : "none");
  boost::system::error_code unparsed;
  const bool loopback = asio::ip::make_address(http.address, unparsed).is_loopback();
  if (!authenticated && !loopback) {
    // Ray's own publisher cannot authenticate; say so, so that a wider bind
    // is a decision (docs/SECURITY.md).
    logger_->warn(
        "HTTP ingest is unauthenticated: anything that can connect to {}:{} can post events "
        "(bind loopback, restrict it with a NetworkPolicy, or set http_ingest.bearer_token_file "
        "for senders other than Ray)",
        http.address, http_port_);
  }
}

void Daemon::StopHttpListeners() {
  if (http_server_) http_server_->Stop();
  ingest_listener_.Stop();
  if (ops_server_) ops_server_->Stop();
  ops_listener_.Stop();
}

void Daemon::RunIoThread() {
  try {
    io_.run();
  } catch (const std::exception& error) {
    // A sink loop threw: a bug, not an environment error. Fail loudly so the
    // supervisor restarts us instead of running with a dead sink.
    logger_->critical("internal error in a sink loop: {}", error.what());
    logger_->flush();
    std::abort();
  }
}

void Daemon::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  // Readiness first: load balancers and probes see 503 for the whole drain.
  ready_ = false;
  if (http_server_) http_server_->Stop();  // stop accepting HTTP ingest
  if (grpc_server_) {
    // Reactions finish at once, so a short grace period is plenty. gRPC waits
    // out the whole period while any client keeps an idle channel open (Ray's
    // senders always do), so it also delays every shutdown: keep it short.
    grpc_server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  }
  const auto drain_timeout = config_.shutdown.drain_timeout;
  const SteadyTime deadline = clock_.Now() + drain_timeout;
  for (auto& sink : sinks_) sink->Drain(deadline);
  for (auto& sink : object_sinks_) sink->Drain(deadline);
  // A request in flight at the deadline may still run to its own timeout.
  Duration longest_request{0};
  for (const auto& sink_config : config_.sinks) {
    Duration request = sink_config.request_timeout;
    // An upload's deadline grows with its object (rayagg/object_store.h),
    // plus a second of slack.
    if (IsObjectStoreSinkUrl(sink_config.url)) {
      request += ObjectTransferTime(sink_config.object.max_bytes) + std::chrono::seconds(1);
    }
    longest_request = std::max(longest_request, request);
  }
  const auto wait_limit = drain_timeout + longest_request + std::chrono::seconds(1);
  const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wait_limit);
  for (auto& sink : sinks_) {
    if (!sink->WaitFinished(wait_ms))
      logger_->error("sink did not stop in time sink={}", sink->name());
  }
  for (auto& sink : object_sinks_) {
    if (!sink->WaitFinished(wait_ms))
      logger_->error("sink did not stop in time sink={}", sink->name());
  }
  work_guard_.reset();
  io_.stop();
  io_threads_.clear();  // joins
  // Writes and syncs what was accepted, and the sinks' final positions.
  if (spool_) spool_->Stop();
  StopHttpListeners();  // the ops listener last
  uint64_t sent = 0, dropped = 0;
  for (const auto& sink : sinks_) {
    sent += sink->counters().sent_events.load();
    dropped += sink->drops().Total();
  }
  for (const auto& sink : object_sinks_) {
    sent += sink->counters().sent_events.load();
    dropped += sink->drops().Total();
  }
  logger_->info("stopped received_events={} sent_events={} dropped_events={}",
                ingest_counters_.received_events.load(), sent, dropped);
}

}  // namespace rayagg
