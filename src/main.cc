// ray-event-aggregator: parse flags, load config, run the daemon until
// SIGTERM/SIGINT, drain, exit. Everything else lives in src/app/daemon.cc.
#include <pthread.h>
#include <signal.h>

#include <iostream>
#include <string>
#include <vector>

#include "app/daemon.h"
#include "app/port_file.h"
#include "app/probe.h"
#include "common/url.h"
#include "config/command_line.h"
#include "config/environment.h"
#include "config/load_config.h"
#include "ops/logger.h"

int main(int argc, char** argv) {
  using namespace rayagg;
  const std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<CommandLine> cli = ParseCommandLine(args);
  if (!cli.ok()) {
    std::cerr << "error: " << cli.status().message() << "\n(see --help)\n";
    return 2;
  }
  if (cli->show_help) {
    std::cout << UsageText();
    return 0;
  }
  if (cli->show_version) {
    std::cout << "ray-event-aggregator " << RAYAGG_VERSION << "\n";
    return 0;
  }
  if (cli->probe_url) {
    const ProbeResult probe = Probe(*cli->probe_url);
    if (!probe.ok)
      std::cerr << "probe " << RedactUrl(*cli->probe_url) << ": " << probe.detail << "\n";
    return probe.ok ? 0 : 1;
  }
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(*cli, Environment::FromProcess());
  if (!loaded.ok()) {
    std::cerr << "invalid configuration: " << loaded.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<std::shared_ptr<spdlog::logger>> made_logger = MakeLogger(loaded->config.log);
  if (!made_logger.ok()) {
    std::cerr << "invalid configuration: " << made_logger.status().message() << "\n";
    return 2;
  }
  std::shared_ptr<spdlog::logger> logger = *made_logger;
  for (const std::string& warning : loaded->warnings) logger->warn("{}", warning);
  if (cli->check_config) {
    std::cout << "configuration is valid\n" << DescribeConfig(loaded->config) << "\n";
    return 0;
  }
  logger->info("starting ray-event-aggregator {}: {}", RAYAGG_VERSION,
               DescribeConfig(loaded->config));

  // Block the stop signals in every thread (threads inherit the mask), and
  // take them synchronously here with sigwait: no async-signal handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // A console sink whose reader went away must get EPIPE, not kill us.
  signal(SIGPIPE, SIG_IGN);

  Daemon daemon(loaded->config, logger);
  if (absl::Status started = daemon.Start(); !started.ok()) {
    logger->error("cannot start: {}", std::string(started.message()));
    return 1;
  }
  // The ops port file comes before the gRPC one, which tells Ray (and
  // supervisors) that everything is serving.
  if (cli->ops_port_file) {
    if (absl::Status written = WritePortFile(*cli->ops_port_file, daemon.ops_port());
        !written.ok()) {
      logger->error("{}", std::string(written.message()));
      daemon.Stop();
      return 1;
    }
  }
  if (cli->port_file) {
    if (absl::Status written = WritePortFile(*cli->port_file, daemon.grpc_port()); !written.ok()) {
      logger->error("{}", std::string(written.message()));
      daemon.Stop();
      return 1;
    }
  }
  if (cli->http_port_file) {
    if (absl::Status written = WritePortFile(*cli->http_port_file, daemon.http_port());
        !written.ok()) {
      logger->error("{}", std::string(written.message()));
      daemon.Stop();
      return 1;
    }
  }
  int signal_number = 0;
  while (true) {
    sigwait(&stop_signals, &signal_number);
    if (signal_number != SIGHUP) break;
    // Reload: the same file, environment and flags. An invalid config is
    // refused (and counted) and the running one stays.
    absl::StatusOr<LoadedConfig> reloaded = LoadConfig(*cli, Environment::FromProcess());
    const absl::Status applied =
        daemon.Reload(reloaded.ok() ? absl::StatusOr<Config>(reloaded->config) : reloaded.status());
    if (!applied.ok()) {
      logger->error("SIGHUP: configuration refused, keeping the running one: {}",
                    std::string(applied.message()));
      continue;
    }
    ApplyLogLevel(*logger, reloaded->config.log.level);
    logger->info(
        "SIGHUP: reloaded sink settings, http_ingest's bearer token and log.level={} (other "
        "sections take effect on restart)",
        reloaded->config.log.level);
  }
  logger->info("received {}, draining", signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
  daemon.Stop();
  return 0;
}
