// ray-task-history: indexes the Ray events an object store holds (written by
// the daemon's object-store sink or KubeRay's collector) into SQLite and
// serves the query API, Ray's State API for tasks and the page
// (docs/HISTORY.md). Flags and config, then: open the index, connect the
// store, start the API listener (the API and the page), the ops listener
// (its own thread) and the indexer thread, write the port files, wait for
// SIGTERM/SIGINT, stop them all. An index of a
// newer schema is never touched: both listeners serve, the API and /readyz
// answer 503 naming both versions, and nothing is indexed (no crash loop).
#include <pthread.h>
#include <signal.h>

#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/listener_thread.h"
#include "app/port_file.h"
#include "common/real_clock.h"
#include "common/text.h"
#include "config/environment.h"
#include "history/api/api_server.h"
#include "history/history_config.h"
#include "history/index/index_schema.h"
#include "history/index/indexer.h"
#include "history/index/store_adapter.h"
#include "history/ui/page_server.h"
#include "http/bearer_token_file.h"
#include "http/host_allowlist.h"
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
  // The access rule: the token file must be readable now (it is re-read
  // whenever it changes afterwards).
  std::unique_ptr<BearerTokenFile> token;
  if (!config->bearer_token_file.empty()) {
    token = std::make_unique<BearerTokenFile>("http.bearer_token_file", config->bearer_token_file);
    if (absl::Status read = token->Check(); !read.ok()) {
      std::cerr << "invalid configuration: " << read.message() << "\n";
      return 2;
    }
  }
  if (cli->check_config) {
    std::cout << "configuration is valid\n" << DescribeHistoryConfig(*config) << "\n";
    return 0;
  }
  logger->info("starting ray-task-history {}: {}", RAYAGG_VERSION, DescribeHistoryConfig(*config));
  if (token == nullptr && !IsLoopbackAddress(config->http_address)) {
    logger->warn(
        "SERVING WITHOUT AUTHENTICATION on {} (not a loopback address): anyone who can reach it "
        "reads every task, error message, stack trace and runtime env of the indexed sessions. "
        "Set http.bearer_token_file, or bind 127.0.0.1 and put an authenticating proxy in front",
        config->http_address);
  }

  std::error_code created;
  std::filesystem::create_directories(config->index_dir, created);
  if (created) {
    logger->error("cannot create index directory {}: {}", config->index_dir, created.message());
    return 1;
  }
  absl::StatusOr<OpenedIndex> index =
      OpenIndexForWriting(config->index_dir, config->cache_bytes, config->mmap_bytes);
  // Why the API does not answer, if it does not (a newer index).
  absl::Status unavailable = absl::OkStatus();
  if (!index.ok()) {
    const absl::StatusOr<int64_t> found = ReadIndexVersion(config->index_dir);
    if (!found.ok() || *found <= kIndexSchemaVersion) {
      logger->error("cannot open the index in {}: {}", config->index_dir,
                    strings::View(index.status().message()));
      return 1;
    }
    // A newer binary's index: never migrated down, never overwritten. Stay
    // up and say so (a restart would only fail again).
    unavailable = absl::UnavailableError(strings::Cat(
        "index schema version ", *found, " found, newer than this binary's version ",
        kIndexSchemaVersion, ": run a newer ray-task-history, or delete the index to rebuild it"));
    logger->error("{} ({}); serving 503 and not indexing", strings::View(unavailable.message()),
                  IndexPath(config->index_dir));
  } else if (index->rebuilt) {
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
  std::optional<Indexer> indexer;
  if (index.ok()) {
    indexer.emplace(*index->db, config->index_dir, reader, config->indexing, metrics, logger,
                    wall_now_ms);
  }
  ReaderPool readers(config->index_dir, config->readers, config->reader_cache_bytes,
                     config->mmap_bytes);
  HistoryApi api(
      readers, metrics,
      ApiOptions{.limits = config->limits,
                 .index_dir = config->index_dir,
                 .mmap_bytes = config->mmap_bytes,
                 .ui = config->ui,
                 .version = RAYAGG_VERSION},
      [&unavailable] { return unavailable; }, wall_now_ms);

  asio::io_context io_context;
  HttpServerOptions http_options = HistoryListenerOptions(
      config->http_address, config->http_port, AllowedHostsFor(*config, config->http_address));
  http_options.gzip_responses = true;
  // Exports page the index on a pool of their own, one thread per export
  // slot, so a running export never holds one of the query threads.
  asio::thread_pool export_threads(ApiOptions{}.max_exports);
  http_options.producer_executor = export_threads.get_executor();
  if (token != nullptr) {
    // The page loads without the token (it asks for it when the API answers
    // 401); every other path needs it.
    http_options.authorize = ExceptThePage([&token](const HttpRequest::header_type& header) {
      const auto authorization = header.find(http::field::authorization);
      if (authorization == header.end()) return token->Allows(std::nullopt);
      return token->Allows(
          std::string_view(authorization->value().data(), authorization->value().size()));
    });
  }
  HttpServer server(io_context, http_options);
  api.AddRoutes(server);
  const PageServer page;
  page.AddRoutes(server);
  if (!kEmbeddedUiBuilt) {
    logger->warn(
        "the page is not built into this binary: / answers a page saying how to build it "
        "(scripts/run, or cd ui && npm ci && npm run build, then rebuild)");
  }
  // The ops listener: its own io_context and thread, so /healthz, /readyz
  // and /metrics never wait behind a query.
  ListenerThread ops_thread("ops", *logger);
  HttpServer ops_server(ops_thread.io_context(),
                        HistoryListenerOptions(config->ops_address, config->ops_port,
                                               AllowedHostsFor(*config, config->ops_address)));
  api.AddOpsRoutes(ops_server, {{"api", &server}, {"ops", &ops_server}});
  absl::StatusOr<uint16_t> port = server.Start();
  if (!port.ok()) {
    logger->error("cannot start the API listener: {}", strings::View(port.status().message()));
    return 1;
  }
  // From here on the threads run, so every exit goes through the stops below.
  ops_thread.Start();
  // Queries are synchronous handlers: one io thread per reader connection.
  auto work = asio::make_work_guard(io_context);
  std::vector<std::jthread> io_threads;
  for (uint64_t i = 0; i < config->readers; ++i) {
    io_threads.emplace_back([&io_context] { io_context.run(); });
  }
  int exit_code = 0;
  absl::StatusOr<uint16_t> ops_port = ops_server.Start();
  if (!ops_port.ok()) {
    logger->error("cannot start the ops listener: {}", strings::View(ops_port.status().message()));
    exit_code = 1;
  } else {
    if (indexer) indexer->Start();
    logger->info("serving the API on {}:{} (auth={}), ops on {}:{}; {} {}", config->http_address,
                 *port, token != nullptr ? "bearer token" : "none", config->ops_address, *ops_port,
                 indexer ? "indexing" : "NOT indexing", reader.Describe());
    // The ops port first: whoever waits for the API's port file finds both.
    for (const auto& [path, bound] :
         {std::pair{cli->ops_port_file, *ops_port}, std::pair{cli->port_file, *port}}) {
      if (!path || exit_code != 0) continue;
      if (absl::Status written = WritePortFile(*path, bound); !written.ok()) {
        logger->error("{}", strings::View(written.message()));
        exit_code = 1;
      }
    }
  }
  if (exit_code == 0) {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    logger->info("received {}, stopping", signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
  }
  if (indexer) indexer->Stop();  // ends the running pass at its next batch boundary
  server.Stop();
  ops_server.Stop();
  ops_thread.Stop();
  work.reset();
  io_context.stop();
  io_threads.clear();  // joins
  export_threads.join();
  logger->info("stopped");
  return exit_code;
}
