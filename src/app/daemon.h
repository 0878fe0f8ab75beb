// The composition root: builds every component from one validated Config,
// wires them by constructor injection and owns start and stop order.
//
//   start: spool opened (when on) -> event log -> sinks (cursors registered)
//          -> io threads -> gRPC -> HTTP ingest (when enabled)
//   stop:  HTTP ingest and gRPC stop accepting -> sinks drain until shutdown.drain_timeout
//          -> io threads joined -> spool written, synced and closed
//          -> components destroyed in reverse order
#pragma once

#include <spdlog/logger.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "app/listener_thread.h"
#include "app/spool_link.h"
#include "buffer/event_log.h"
#include "common/real_clock.h"
#include "http/http_server.h"
#include "ingest/grpc_ingest_server.h"
#include "ingest/http_bearer_check.h"
#include "ingest/http_ingest_handler.h"
#include "ingest/ingest_counters.h"
#include "rayagg/asio.h"
#include "rayagg/config.h"
#include "sinks/sink.h"
#include "spool/spool.h"

namespace rayagg {

class ObjectSink;  // objsink/object_sink.h

class Daemon {
 public:
  // Time comes from a RealClock of the daemon's own.
  Daemon(Config config, std::shared_ptr<spdlog::logger> logger);
  // Time comes from `clock`, which outlives the daemon (tests: a ManualClock).
  Daemon(Config config, std::shared_ptr<spdlog::logger> logger, Clock& clock);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Builds the sinks, starts their threads and the gRPC listener.
  absl::Status Start();

  // Stops accepting, drains the sinks within shutdown.drain_timeout, joins
  // every thread. Idempotent.
  void Stop();

  int grpc_port() const { return grpc_port_; }
  // The bound HTTP ingest port; 0 when http_ingest is disabled.
  int http_port() const { return http_port_; }
  // SIGHUP: `loaded` is the configuration read again from the same sources,
  // or why it could not be read. Applies its sink settings to the running
  // sinks, matched by name, without losing buffered events. Refused (nothing
  // changes, the error says why) when it did not load, when sinks would be
  // added or removed, when the spool section changed, or when a sink's new
  // settings cannot be built. Every outcome is counted
  // (rayagg_config_reloads_total{result}). Sinks and HTTP ingest's bearer
  // token (http_ingest.bearer_token_file, read again by LoadConfig) are
  // reloaded; other sections need a restart. Thread-safe with respect to
  // the running daemon.
  absl::Status Reload(const absl::StatusOr<Config>& loaded);

  // The bound ops port (/metrics, /healthz, /readyz); 0 when ops is disabled.
  int ops_port() const { return ops_port_; }
  // True from a successful Start() until Stop() begins (what /readyz says).
  bool ready() const { return ready_.load(); }
  // The /metrics page (docs/METRICS.md). Thread-safe.
  std::string RenderMetricsPage() const;
  const IngestCounters& ingest_counters() const { return ingest_counters_; }
  // The http(s):// and file:// sinks, in config order.
  const std::vector<std::unique_ptr<Sink>>& sinks() const { return sinks_; }
  // The object-store (s3://, dir://) sinks, in config order.
  const std::vector<std::unique_ptr<ObjectSink>>& object_sinks() const { return object_sinks_; }
  EventLog::Snapshot buffer_snapshot() const { return log_.GetSnapshot(); }
  const EventLog& log() const { return log_; }
  // The disk spool; null when spool.dir is not set.
  const spool::Spool* spool() const { return spool_.get(); }

 private:
  void RunIoThread();
  // Opens spool.dir (its lock refuses a second daemon), starts recovery of
  // what an earlier run left and the writer, and makes the log durable.
  absl::Status OpenSpool();
  // Moves each sink's cursor back to its ledger position from an earlier
  // run, so it reads the spool from there. Before the sinks start.
  void ResumeSinks();
  // Every sink's (name, cursor), HTTP and object-store sinks alike.
  std::vector<std::pair<std::string, EventReader::CursorId>> SinkCursors() const;
  // The sinks' released positions to the spool's ledger (after releases).
  void PublishSpoolPositions();
  absl::Status StartHttpIngest();
  // Logs whether HTTP ingest checks a bearer token, warning when it does not
  // and listens beyond loopback (at start and after a reload).
  void LogHttpIngestAuth(bool authenticated) const;
  void StopHttpListeners();
  absl::Status StartOps();

  const Config config_;
  std::shared_ptr<spdlog::logger> logger_;
  // The process's one clock: sinks, drain deadlines and log rate limiting
  // read time and wait through it (include/rayagg/clock.h).
  RealClock real_clock_;
  Clock& clock_;
  IngestCounters ingest_counters_;
  EventLog log_;
  // With spool.dir set: the spool and what links it to the log and sinks.
  // Declared after the log (which it reads) and before the sinks (whose
  // releases it records), so it is destroyed between them.
  spool::PosixFileSystem spool_fs_;
  std::unique_ptr<SpoolLink> spool_link_;
  std::unique_ptr<spool::Spool> spool_;
  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_guard_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  std::vector<std::unique_ptr<ObjectSink>> object_sinks_;
  std::vector<std::jthread> io_threads_;
  std::unique_ptr<GrpcIngestServer> grpc_server_;
  int grpc_port_ = 0;
  // Each HTTP listener runs on a thread of its own: parsing a large JSON
  // body never delays the sinks' io threads nor the ops listener.
  ListenerThread ingest_listener_{"http_ingest", *logger_};
  ListenerThread ops_listener_{"ops", *logger_};
  std::unique_ptr<HttpIngestHandler> http_ingest_;
  // http_ingest's token check; Reload() gives it the re-read token. Before
  // http_server_, whose route refers to it.
  std::unique_ptr<HttpBearerCheck> http_bearer_check_;
  std::unique_ptr<HttpServer> http_server_;  // after the listener threads: destroyed before them
  int http_port_ = 0;
  std::unique_ptr<HttpServer> ops_server_;  // stopped last: /readyz answers 503 while draining
  int ops_port_ = 0;
  std::atomic<bool> ready_{false};
  std::atomic<uint64_t> reloads_succeeded_{0};
  std::atomic<uint64_t> reloads_failed_{0};
  bool started_ = false;
  bool stopped_ = false;
};

// How many CPUs this process may run on (sched_getaffinity), at least 1.
unsigned AllowedCpuCount();

}  // namespace rayagg
