// ray-task-history: indexes the Ray events an object store holds (written by
// the daemon's object-store sink or KubeRay's collector) into SQLite and
// serves the query API and Ray's State API for tasks (docs/HISTORY.md).
// Flags and config, then: open the index, connect the store, start the API
// listener and the indexer thread, write the port file, wait for
// SIGTERM/SIGINT, stop both.
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app/port_file.h"
#include "common/real_clock.h"
#include "common/text.h"
#include "config/environment.h"
#include "history/api/api_server.h"
#include "history/history_config.h"
#include "history/index/index_schema.h"
#include "history/index/indexer.h"
#include "history/index/store_adapter.h"
#include "objstore/object_store_factory.h"
#include "ops/logger.h"

int main(int argc, char** argv) {
  using namespace rayagg;
  using namespace rayagg::history;
  const std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<HistoryCommandLine> cli = ParseHistoryCommandLine(args);
  if (!cli.ok()) {
    std::cerr << "error: " << cli.status().message() << "\n(see --help)\n";
    return 2;
  }
  if (cli->show_help) {
    std::cout << HistoryUsageText();
    return 0;
  }
  absl::StatusOr<HistoryConfig> config = LoadHistoryConfig(*cli, Environment::FromProcess());
  if (!config.ok()) {
    std::cerr << "invalid configuration: " << config.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<std::shared_ptr<spdlog::logger>> made_logger = MakeLogger(config->log);
  if (!made_logger.ok()) {
    std::cerr << "invalid configuration: " << made_logger.status().message() << "\n";
    return 2;
  }
  std::shared_ptr<spdlog::logger> logger = *made_logger;
  // Stop signals are taken synchronously by sigwait below; every thread
  // started after this (the directory store's I/O thread too) inherits the
  // blocked mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  RealClock clock;
  // The store is made (and its settings checked) before --check-config
  // answers; it connects to nothing until the first call.
  absl::StatusOr<std::unique_ptr<BlockingObjectStore>> store =
      BlockingObjectStore::Make([&](asio::any_io_executor executor) {
        return MakeObjectStore(std::move(executor), config->store, *logger, clock);
      });
  if (!store.ok()) {
    std::cerr << "invalid configuration: store: " << store.status().message() << "\n";
    return 2;
  }
  if (cli->check_config) {
    std::cout << "configuration is valid\n" << DescribeHistoryConfig(*config) << "\n";
    return 0;
  }
  logger->info("starting ray-task-history {}: {}", RAYAGG_VERSION, DescribeHistoryConfig(*config));

  std::error_code created;
  std::filesystem::create_directories(config->index_dir, created);
  if (created) {
    logger->error("cannot create index directory {}: {}", config->index_dir, created.message());
    return 1;
  }
  absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(config->index_dir, config->cache_bytes);
  if (!index.ok()) {
    logger->error("cannot open the index in {}: {}", config->index_dir,
                  strings::View(index.status().message()));
    return 1;
  }
  if (index->rebuilt) {
    logger->warn(
        "index schema version {} is older than this binary's and cannot be migrated: "
        "rebuilding the index from the store",
        index->found_version);
  } else if (index->migrated) {
    logger->info("index migrated from schema version {}", index->found_version);
  }

  // Retention and the API's "live" answers read wall time from the process's
  // one clock, as the object store does.
  const auto wall_now_ms = [&clock] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock.WallNow().time_since_epoch())
        .count();
  };
  HistoryMetrics metrics;
  ObjectStoreReader reader(*std::move(store));
  Indexer indexer(*index->db, config->index_dir, reader, config->indexing, metrics, logger,
                  wall_now_ms);
  ReaderPool readers(config->index_dir, config->readers, config->reader_cache_bytes);
  HistoryApi api(
      readers, metrics, ApiOptions{config->limits}, [] { return true; }, wall_now_ms);

  asio::io_context io_context;
  HttpServerOptions http_options;
  http_options.address = config->http_address;
  http_options.port = config->http_port;
  HttpServer server(io_context, http_options);
  api.AddRoutes(server);
  absl::StatusOr<uint16_t> port = server.Start();
  if (!port.ok()) {
    logger->error("cannot start the API listener: {}", strings::View(port.status().message()));
    return 1;
  }
  // Queries are synchronous handlers: one io thread per reader connection.
  auto work = asio::make_work_guard(io_context);
  std::vector<std::jthread> io_threads;
  for (uint64_t i = 0; i < config->readers; ++i) {
    io_threads.emplace_back([&io_context] { io_context.run(); });
  }
  indexer.Start();
  logger->info("serving on {}:{}, indexing {}", config->http_address, *port, reader.Describe());

  int exit_code = 0;
  if (cli->port_file) {
    if (absl::Status written = WritePortFile(*cli->port_file, *port); !written.ok()) {
      logger->error("{}", strings::View(written.message()));
      exit_code = 1;
    }
  }
  if (exit_code == 0) {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    logger->info("received {}, stopping", signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
  }
  indexer.Stop();  // ends the running pass at its next batch boundary
  server.Stop();
  work.reset();
  io_context.stop();
  io_threads.clear();  // joins
  logger->info("stopped");
  return exit_code;
}
