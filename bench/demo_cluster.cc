// rayagg-demo-cluster: a simulated Ray cluster (src/demo/) sending its
// events to a daemon over Ray's wire formats, or writing them straight into a
// store. Three modes:
//   demo (default)  live-looking traffic for --duration: events go out as
//                   their simulated time comes, flushed once a second per
//                   node as Ray's agents do, stamped with wall-clock times;
//   --fixture       the browser tests' small fixed session (ui-contract.md
//                   §4) as fast as the daemon accepts it, and --expect-out
//                   FILE: what the history must report, from the model;
//   --write-store   DIR: --tasks tasks in the dir:// layout ray-task-history
//                   indexes (the benchmarks' 1M/10M-task sessions).
// Exit status: 0 once every request was accepted (or the store written), 1
// when a request kept failing for --give-up-after or a write failed, 2 for a
// bad flag.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "demo/sim_cluster.h"
#include "demo/sim_expectation.h"
#include "demo/store_writer.h"
#include "demo_transport.h"
#include "flags.h"

namespace rayagg::bench {
namespace {

using demo::kSecond;
using ray::rpc::events::AddEventsRequest;
using ray::rpc::events::RayEvent;

constexpr char kUsage[] =
    "usage: rayagg-demo-cluster [mode] [options]\n"
    "  demo (default): --grpc HOST:PORT and/or --http http://HOST:PORT[/path]\n"
    "        [--duration 180s] [--tasks-per-second 40] [--seed N]\n"
    "  --fixture --expect-out FILE (--grpc ... | --http ...): the browser tests' session\n"
    "  --write-store DIR [--tasks 1000000] [--tasks-per-second 1000] [--events-per-object 20000]\n"
    "        [--expect-out FILE]: straight into a dir:// store's layout\n"
    "  common: --namespace default --cluster-name demo-cluster (as the daemon's sink\n"
    "        names the cluster), --worker-nodes 4, --give-up-after 60s\n";

volatile std::sig_atomic_t stop_requested = 0;
extern "C" void RequestStop(int) { stop_requested = 1; }

// "180s", "3m", "250ms" or plain seconds.
int64_t ParseDuration(const Flags& flags, const std::string& name, const std::string& fallback) {
  const std::string text = flags.String(name, fallback);
  size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) != 0)) {
    ++digits;
  }
  const std::string unit = text.substr(digits);
  int64_t scale = 0;
  if (unit.empty() || unit == "s") scale = kSecond;
  if (unit == "ms") scale = kSecond / 1000;
  if (unit == "m") scale = 60 * kSecond;
  if (digits == 0 || scale == 0) flags.Fail("--" + name + " must be like 180s, 3m or 500ms");
  return std::stoll(text.substr(0, digits)) * scale;
}

std::string ClusterName(const Flags& flags) {
  return "raycluster/" + flags.String("namespace", "default") + "/" +
         flags.String("cluster-name", "demo-cluster");
}

bool WriteExpectation(const Flags& flags, const demo::SimLayout& layout, uint64_t events) {
  if (!flags.Has("expect-out")) return true;
  const std::string path = flags.String("expect-out", "");
  std::ofstream out(path, std::ios::trunc);
  out << demo::ExpectationJson(demo::Expect(layout), ClusterName(flags), layout.session_name(),
                               events);
  out.close();
  if (!out) std::cerr << "error: cannot write " << path << "\n";
  return static_cast<bool>(out);
}

// Demo and fixture: one request per node and simulated second.
int Send(const Flags& flags, demo::SimOptions options, bool paced) {
  std::vector<std::unique_ptr<DemoTransport>> transports;
  if (flags.Has("grpc")) transports.push_back(MakeGrpcTransport(flags.String("grpc", "")));
  if (flags.Has("http")) {
    absl::StatusOr<std::unique_ptr<DemoTransport>> http =
        MakeHttpTransport(flags.String("http", ""));
    if (!http.ok()) flags.Fail("--http: " + std::string(http.status().message()));
    transports.push_back(*std::move(http));
  }
  if (transports.empty()) flags.Fail("give --grpc HOST:PORT and/or --http URL");
  const auto give_up =
      std::chrono::milliseconds(ParseDuration(flags, "give-up-after", "60s") / 1'000'000);

  demo::SimCluster cluster(std::move(options));
  const demo::SimLayout& layout = cluster.layout();
  const size_t nodes = layout.nodes().size();
  std::printf("simulated Ray cluster %s: %zu nodes, %zu jobs, %zu actors, %llu tasks; session %s\n",
              ClusterName(flags).c_str(), nodes, layout.jobs().size(), layout.actors().size(),
              static_cast<unsigned long long>(layout.options().tasks),
              layout.session_name().c_str());
  std::string where;
  for (const auto& t : transports) where += (where.empty() ? "" : " and ") + t->Describe();
  std::printf("sending to %s (nodes alternate when both are given)\n", where.c_str());
  std::fflush(stdout);

  std::vector<AddEventsRequest> flushes(nodes);
  SendTotals totals;
  const auto wall_start = std::chrono::system_clock::now();
  auto last_report = std::chrono::steady_clock::now();
  bool more = true;
  for (int64_t second = 1; more && stop_requested == 0; ++second) {
    more = cluster.EmitUntil(second * kSecond, [&](size_t node, RayEvent& event) {
      flushes[node].mutable_events_data()->add_events()->Swap(&event);
    });
    if (paced) {
      // Simulated second s goes out when wall time reaches it.
      const auto due = wall_start + std::chrono::seconds(second);
      while (stop_requested == 0 && std::chrono::system_clock::now() < due) {
        std::this_thread::sleep_for(std::min<std::chrono::system_clock::duration>(
            std::chrono::milliseconds(100), due - std::chrono::system_clock::now()));
      }
    }
    for (size_t node = 0; node < nodes; ++node) {
      if (flushes[node].events_data().events_size() == 0) continue;
      DemoTransport& transport = *transports[node % transports.size()];
      absl::Status s = SendWithRetries(
          transport, flushes[node], give_up, [] { return stop_requested != 0; }, totals);
      if (absl::IsCancelled(s)) break;
      if (!s.ok()) {
        std::fprintf(stderr, "error: gave up after %lld s: %s\n",
                     static_cast<long long>(give_up.count() / 1000),
                     std::string(s.message()).c_str());
        return 1;
      }
      flushes[node].Clear();
    }
    if (paced && std::chrono::steady_clock::now() - last_report >= std::chrono::minutes(1)) {
      last_report = std::chrono::steady_clock::now();
      std::printf("%lld s of %lld s: %llu events sent in %llu requests (%llu retried)\n",
                  static_cast<long long>(second), static_cast<long long>(layout.end_ns() / kSecond),
                  static_cast<unsigned long long>(cluster.events_emitted()),
                  static_cast<unsigned long long>(totals.requests),
                  static_cast<unsigned long long>(totals.retries));
      std::fflush(stdout);
    }
  }
  std::printf("%s: %llu events sent in %llu requests (%llu retried)\n",
              stop_requested != 0 ? "stopped" : "done",
              static_cast<unsigned long long>(cluster.events_emitted()),
              static_cast<unsigned long long>(totals.requests),
              static_cast<unsigned long long>(totals.retries));
  if (stop_requested != 0) return 0;
  return WriteExpectation(flags, layout, cluster.events_emitted()) ? 0 : 1;
}

int WriteStore(const Flags& flags) {
  const uint64_t tasks = flags.Uint("tasks", 1'000'000);
  demo::SimOptions options =
      demo::StoreOptions(flags.Uint("seed", 1), tasks, flags.Double("tasks-per-second", 1000));
  options.worker_nodes = static_cast<int>(flags.Uint("worker-nodes", 8));
  demo::SimCluster cluster(std::move(options));
  const demo::SimLayout& layout = cluster.layout();
  absl::StatusOr<std::unique_ptr<demo::StoreWriter>> writer =
      demo::StoreWriter::Open(flags.String("write-store", ""), flags.String("namespace", "default"),
                              flags.String("cluster-name", "demo-cluster"), layout.session_name(),
                              flags.Uint("events-per-object", 20'000));
  if (!writer.ok()) {
    std::cerr << "error: " << writer.status().message() << "\n";
    return 1;
  }
  std::printf("writing %llu tasks of session %s/%s\n", static_cast<unsigned long long>(tasks),
              ClusterName(flags).c_str(), layout.session_name().c_str());
  std::fflush(stdout);
  absl::Status status;
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  for (int64_t at = 10 * kSecond; status.ok() && stop_requested == 0; at += 10 * kSecond) {
    const bool more = cluster.EmitUntil(at, [&](size_t, RayEvent& event) {
      if (status.ok()) status = (*writer)->Add(event);
    });
    if (std::chrono::steady_clock::now() - last_report >= std::chrono::seconds(30)) {
      last_report = std::chrono::steady_clock::now();
      std::printf("  %llu events, %llu objects, simulated %lld s\n",
                  static_cast<unsigned long long>(cluster.events_emitted()),
                  static_cast<unsigned long long>((*writer)->objects()),
                  static_cast<long long>(at / kSecond));
      std::fflush(stdout);
    }
    if (!more) break;
  }
  if (status.ok()) status = (*writer)->Finish();
  if (!status.ok()) {
    std::cerr << "error: " << status.message() << "\n";
    return 1;
  }
  if (stop_requested != 0) return 1;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("done: %llu events, %llu objects, %.1f MiB JSON, %.1f MiB stored, %.1f s\n",
              static_cast<unsigned long long>(cluster.events_emitted()),
              static_cast<unsigned long long>((*writer)->objects()),
              static_cast<double>((*writer)->json_bytes()) / 1048576,
              static_cast<double>((*writer)->stored_bytes()) / 1048576, seconds);
  return WriteExpectation(flags, layout, cluster.events_emitted()) ? 0 : 1;
}

int Run(int argc, char** argv) {
  // --fixture alone (ui-contract.md §4 writes it so) means --fixture=1; every
  // other flag takes a value.
  std::vector<std::string> args(argv, argv + argc);
  std::vector<char*> argp;
  for (std::string& arg : args) {
    if (arg == "--fixture") arg = "--fixture=1";
    argp.push_back(arg.data());
  }
  argc = static_cast<int>(argp.size());
  argv = argp.data();
  const Flags flags(argc, argv,
                    {"grpc", "http", "seed", "duration", "tasks-per-second", "fixture",
                     "expect-out", "write-store", "tasks", "events-per-object", "namespace",
                     "cluster-name", "worker-nodes", "give-up-after"},
                    kUsage);
  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);
  if (flags.Has("write-store")) return WriteStore(flags);
  if (flags.Has("fixture") && flags.String("fixture", "0") != "0") {
    demo::SimOptions options = demo::FixtureOptions();
    if (flags.Has("seed")) options.seed = flags.Uint("seed", options.seed);
    return Send(flags, std::move(options), false);
  }
  const int64_t duration = ParseDuration(flags, "duration", "180s");
  if (duration < kSecond) flags.Fail("--duration must be at least 1s");
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  demo::SimOptions options =
      demo::DemoOptions(flags.Uint("seed", 1), now, duration, flags.Double("tasks-per-second", 40));
  options.worker_nodes = static_cast<int>(flags.Uint("worker-nodes", 4));
  return Send(flags, std::move(options), true);
}

}  // namespace
}  // namespace rayagg::bench

int main(int argc, char** argv) { return rayagg::bench::Run(argc, argv); }
