// rayagg-flood-bench: what a connection flood costs a running daemon (issue
// 19). Measures, against the daemon at the given ports, the latency of
// /healthz (ops listener), of a one-event gRPC AddEvents (one channel, kept
// open, as Ray's agent keeps it) and of a one-event HTTP ingest POST by a
// well-behaved sender (a new connection per POST, its request sent at once),
// first without a flood, then while `--idle` idle and `--slowloris`
// trickling connections (a request header begun and never finished) are
// open on the HTTP ingest port and `--grpc-idle` idle ones on the gRPC port,
// with `--flood-per-sample` more opened before every sample so the flood
// goes on while it is measured. Also the daemon's RSS at the end of each
// phase. Prints a Markdown table and one key=value line; exits 1 if any
// request failed. The flood helpers are the flood test's
// (tests/support/connection_flood.h).
#include <grpcpp/grpcpp.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "flags.h"
#include "rayagg/asio.h"
#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"
#include "support/connection_flood.h"
#include "task_events.h"

namespace {

using namespace rayagg;
using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: rayagg-flood-bench --pid PID --grpc-port P --http-port P --ops-port P [options]\n"
    "  --idle N              idle connections on the HTTP ingest port (default 3000)\n"
    "  --slowloris N         trickling connections on the HTTP ingest port (default 200)\n"
    "  --grpc-idle N         idle connections on the gRPC port (default 200)\n"
    "  --flood-per-sample N  more flood connections before each sample (default 10)\n"
    "  --samples N           samples of each request per phase (default 500)\n";

// No request may hang the benchmark: every one has this deadline.
constexpr std::chrono::seconds kRequestDeadline{30};

struct Latencies {
  std::vector<double> healthz_ms, grpc_ms, http_ms;
  size_t failures = 0;
};

double Percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto at = static_cast<size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(at, values.size() - 1)];
}

double Millis(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// One HTTP/1.1 request on a new connection; the status, or 0 on any error.
unsigned HttpRequest(uint16_t port, http::verb method, std::string_view target,
                     const std::string& body) {
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  boost::system::error_code ec;
  socket.connect({asio::ip::make_address_v4("127.0.0.1"), port}, ec);
  if (ec) return 0;
  timeval limit{kRequestDeadline.count(), 0};
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
  http::request<http::string_body> request{method, std::string(target), 11};
  request.set(http::field::host, "127.0.0.1");
  if (method == http::verb::post) {
    request.set(http::field::content_type, "application/json");
    request.body() = body;
  }
  request.prepare_payload();
  http::write(socket, request, ec);
  if (ec) return 0;
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response, ec);
  if (ec) return 0;
  return response.result_int();
}

long RssKib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

class Sampler {
 public:
  Sampler(uint16_t grpc_port, uint16_t http_port, uint16_t ops_port)
      : http_port_(http_port),
        ops_port_(ops_port),
        stub_(ray::rpc::events::EventAggregatorService::NewStub(grpc::CreateChannel(
            "127.0.0.1:" + std::to_string(grpc_port), grpc::InsecureChannelCredentials()))),
        request_(bench::BuildTaskEventsRequest(1, 0)) {}

  // One of each request, latencies added to `out`.
  void Sample(Latencies& out) {
    auto start = Clock::now();
    if (HttpRequest(ops_port_, http::verb::get, "/healthz", "") == 200) {
      out.healthz_ms.push_back(Millis(start));
    } else {
      ++out.failures;
    }

    bench::StampForSend(request_, bench::ReserveSequences(1), std::chrono::system_clock::now());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kRequestDeadline);
    ray::rpc::events::AddEventsReply reply;
    start = Clock::now();
    if (stub_->AddEvents(&context, request_, &reply).ok()) {
      out.grpc_ms.push_back(Millis(start));
    } else {
      ++out.failures;
    }

    const std::string body = test::OneEventBody(next_body_++);
    start = Clock::now();
    if (HttpRequest(http_port_, http::verb::post, "/v1/events", body) == 200) {
      out.http_ms.push_back(Millis(start));
    } else {
      ++out.failures;
    }
  }

  // A few unmeasured requests: connections made, code paged in.
  void WarmUp() {
    Latencies ignored;
    for (int i = 0; i < 10; ++i) Sample(ignored);
  }

 private:
  uint16_t http_port_;
  uint16_t ops_port_;
  std::unique_ptr<ray::rpc::events::EventAggregatorService::Stub> stub_;
  ray::rpc::events::AddEventsRequest request_;
  size_t next_body_ = 0;
};

void Row(std::string_view name, const std::vector<double>& quiet,
         const std::vector<double>& flooded) {
  const double quiet_p50 = Percentile(quiet, 0.5), quiet_p99 = Percentile(quiet, 0.99);
  const double flood_p50 = Percentile(flooded, 0.5), flood_p99 = Percentile(flooded, 0.99);
  std::printf("| %s | %.2f / %.2f | %.2f / %.2f | %.2fx / %.2fx | %zu / %zu |\n",
              std::string(name).c_str(), quiet_p50, quiet_p99, flood_p50, flood_p99,
              quiet_p50 > 0 ? flood_p50 / quiet_p50 : 0, quiet_p99 > 0 ? flood_p99 / quiet_p99 : 0,
              quiet.size(), flooded.size());
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Flags flags(argc, argv,
                           {"pid", "grpc-port", "http-port", "ops-port", "idle", "slowloris",
                            "grpc-idle", "flood-per-sample", "samples"},
                           kUsage);
  const auto pid = static_cast<int>(flags.Uint("pid", 0));
  const auto grpc_port = static_cast<uint16_t>(flags.Uint("grpc-port", 0));
  const auto http_port = static_cast<uint16_t>(flags.Uint("http-port", 0));
  const auto ops_port = static_cast<uint16_t>(flags.Uint("ops-port", 0));
  if (pid == 0 || grpc_port == 0 || http_port == 0 || ops_port == 0) {
    flags.Fail("--pid, --grpc-port, --http-port and --ops-port are required");
  }
  const size_t idle = flags.Uint("idle", 3000);
  const size_t slowloris = flags.Uint("slowloris", 200);
  const size_t grpc_idle = flags.Uint("grpc-idle", 200);
  const size_t per_sample = flags.Uint("flood-per-sample", 10);
  const size_t samples = flags.Uint("samples", 500);
  const size_t flood_total = idle + slowloris + grpc_idle + samples * per_sample;
  // Only the client ends live here (the daemon is another process), plus the
  // sampler's own connections.
  if (!test::RaiseFileLimit(static_cast<rlim_t>(flood_total + 1024))) {
    std::cerr << "RLIMIT_NOFILE's hard limit is below " << flood_total + 1024 << "\n";
    return 2;
  }

  Sampler sampler(grpc_port, http_port, ops_port);
  sampler.WarmUp();
  Latencies quiet;
  for (size_t i = 0; i < samples; ++i) sampler.Sample(quiet);
  const long quiet_rss = RssKib(pid);

  test::Flood flood;
  const auto flood_start = Clock::now();
  bool opened = flood.Open(http_port, idle) &&
                flood.Open(http_port, slowloris, test::kSlowlorisStart) &&
                flood.Open(grpc_port, grpc_idle);
  const double open_ms = Millis(flood_start);
  Latencies flooded;
  for (size_t i = 0; opened && i < samples; ++i) {
    // Half idle, half trickling: the flood goes on while it is measured.
    opened = flood.Open(http_port, per_sample / 2) &&
             flood.Open(http_port, per_sample - per_sample / 2, test::kSlowlorisStart);
    sampler.Sample(flooded);
  }
  if (!opened) {
    std::cerr << "cannot open flood connection " << flood.size() + 1 << ": " << std::strerror(errno)
              << "\n";
    return 1;
  }
  const long flood_rss = RssKib(pid);

  std::printf(
      "flood: %zu idle + %zu slowloris on HTTP ingest, %zu idle on gRPC, %zu more "
      "(half idle, half slowloris) before each of %zu samples: %zu connections, "
      "opened at first in %.0f ms\n\n",
      idle, slowloris, grpc_idle, per_sample, samples, flood.size(), open_ms);
  std::printf(
      "| request | quiet p50 / p99 ms | flood p50 / p99 ms | ratio p50 / p99 | samples "
      "quiet / flood |\n|---|---:|---:|---:|---:|\n");
  Row("/healthz (ops)", quiet.healthz_ms, flooded.healthz_ms);
  Row("gRPC AddEvents, 1 event", quiet.grpc_ms, flooded.grpc_ms);
  Row("HTTP ingest POST, 1 event, new connection", quiet.http_ms, flooded.http_ms);
  std::printf("| daemon RSS MiB | %.1f | %.1f | %.2fx | |\n", quiet_rss / 1024.0,
              flood_rss / 1024.0, quiet_rss > 0 ? static_cast<double>(flood_rss) / quiet_rss : 0);
  std::printf(
      "\nfailures_quiet=%zu failures_flood=%zu flood_connections=%zu rss_quiet_kib=%ld "
      "rss_flood_kib=%ld\n",
      quiet.failures, flooded.failures, flood.size(), quiet_rss, flood_rss);
  return quiet.failures + flooded.failures == 0 ? 0 : 1;
}
