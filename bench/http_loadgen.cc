// rayagg-http-loadgen: POSTs realistic Ray task events to an aggregator's
// HTTP JSON ingest exactly as Ray's agent formats them (JSON array,
// lowerCamelCase or snake_case keys, ", " and ": " separators) and prints
// one key=value summary line, like rayagg-loadgen does for gRPC.
//
// Events are the loadgen's (bench/task_events.h, fresh ids per request), so
// the same daemon work (dedup, coalescing, sinks) follows either transport.
// Every body is printed before the clock starts: the figure measures the
// daemon, not this tool's JSON printing.
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "common/url.h"
#include "flags.h"
#include "rayagg/asio.h"
#include "rayagg/event_json_encoder.h"
#include "rayagg/mutex.h"
#include "task_events.h"

namespace {

using namespace rayagg;
using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: rayagg-http-loadgen --url http://127.0.0.1:PORT/v1/events --total N [options]\n"
    "  --batch N        events per POST (default 1000)\n"
    "  --concurrency N  threads, each with its own keep-alive connection (default 2)\n"
    "  --snake-case 1   snake_case keys (Ray's ..._PRESERVE_PROTO_FIELD_NAME=1)\n"
    "  --write-bodies FILE  write the bodies to FILE, one per line, and send nothing\n"
    "                   (for rayagg-http-blast; --url is then not needed)\n";

// Python's json.dumps separators: ", " and ": " outside strings.
std::string WithPythonSeparators(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 8);
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    out += c;
    if (in_string) {
      if (c == '\\') {
        out += json[++i];
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',' || c == ':') {
      out += ' ';
    }
  }
  return out;
}

std::vector<std::string> BuildBodies(size_t requests, size_t batch, bool snake_case) {
  auto encoder = MakeFastJsonEncoder(JsonOptions{.preserve_proto_field_names = snake_case});
  std::vector<ray::rpc::events::AddEventsRequest> pool;
  for (uint64_t variant = 0; variant < 4; ++variant) {
    pool.push_back(bench::BuildTaskEventsRequest(batch, variant));
  }
  std::vector<std::string> bodies;
  bodies.reserve(requests);
  std::string serialized, json;
  for (size_t i = 0; i < requests; ++i) {
    auto& request = pool[i % pool.size()];
    bench::StampForSend(request, bench::ReserveSequences(batch), std::chrono::system_clock::now());
    json = "[";
    for (const auto& event : request.events_data().events()) {
      if (json.size() > 1) json += ",";
      event.SerializeToString(&serialized);
      if (!encoder->AppendEvent(serialized, json).ok()) std::abort();
    }
    json += "]";
    bodies.push_back(WithPythonSeparators(json));
  }
  return bodies;
}

struct Totals {
  std::atomic<uint64_t> ok_calls{0}, ok_events{0}, failed_calls{0}, sent_events{0};
  Mutex mutex;
  std::vector<double> latencies_ms ABSL_GUARDED_BY(mutex);
};

void Worker(const Url& url, const std::vector<std::string>& bodies, std::atomic<size_t>& next,
            size_t batch, Totals& totals) {
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  socket.connect(asio::ip::tcp::endpoint(asio::ip::make_address(url.host), url.port));
  timeval limit{30, 0};  // no call may hang the benchmark
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
  beast::flat_buffer buffer;
  std::vector<double> latencies;
  for (size_t i = next++; i < bodies.size(); i = next++) {
    http::request<http::span_body<const char>> request{http::verb::post, url.target, 11};
    request.set(http::field::host, url.host_header);
    request.set(http::field::accept, "*/*");
    request.set(http::field::accept_encoding, "gzip, deflate");
    request.set(http::field::user_agent, "Python/3.11 aiohttp/3.9.5");
    request.set(http::field::content_type, "application/json");
    request.body() = beast::span<const char>(bodies[i].data(), bodies[i].size());
    request.prepare_payload();
    const auto start = Clock::now();
    totals.sent_events += batch;
    boost::system::error_code ec;
    http::write(socket, request, ec);
    http::response<http::string_body> response;
    if (!ec) http::read(socket, buffer, response, ec);
    latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    const auto accepted = response.body().find("\"accepted\":");
    if (ec || response.result_int() != 200 || accepted == std::string::npos) {
      ++totals.failed_calls;
      if (ec) return;  // the connection is gone
      continue;
    }
    ++totals.ok_calls;
    totals.ok_events += std::strtoull(response.body().c_str() + accepted + 11, nullptr, 10);
  }
  MutexLock lock(totals.mutex);
  totals.latencies_ms.insert(totals.latencies_ms.end(), latencies.begin(), latencies.end());
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Flags flags(
      argc, argv, {"url", "batch", "concurrency", "total", "snake-case", "write-bodies"}, kUsage);
  const size_t batch = flags.Uint("batch", 1000);
  const size_t concurrency = flags.Uint("concurrency", 2);
  const size_t total = flags.Uint("total", 0);
  if (batch == 0 || concurrency == 0 || total == 0) {
    flags.Fail("--batch, --concurrency and --total must be at least 1");
  }
  const std::vector<std::string> bodies =
      BuildBodies((total + batch - 1) / batch, batch, flags.Uint("snake-case", 0) != 0);
  uint64_t body_bytes = 0;
  for (const auto& body : bodies) body_bytes += body.size();
  if (flags.Has("write-bodies")) {
    // JSON text has no raw newline (strings escape it): one body per line.
    std::ofstream out(flags.String("write-bodies", ""), std::ios::trunc);
    for (const auto& body : bodies) out << body << '\n';
    out.close();
    if (!out) flags.Fail("--write-bodies: cannot write the file");
    std::cout << "bodies=" << bodies.size() << " events=" << bodies.size() * batch
              << " body_bytes_per_event=" << body_bytes / std::max<size_t>(1, bodies.size() * batch)
              << std::endl;
    return 0;
  }
  auto url = ParseUrl(flags.String("url", ""));
  if (!url.ok()) flags.Fail("--url: " + std::string(url.status().message()));

  Totals totals;
  std::atomic<size_t> next{0};
  const auto start = Clock::now();
  {
    std::vector<std::jthread> workers;
    for (size_t i = 0; i < concurrency; ++i) {
      workers.emplace_back([&] { Worker(*url, bodies, next, batch, totals); });
    }
  }
  const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  auto& latencies = totals.latencies_ms;
  std::sort(latencies.begin(), latencies.end());
  auto percentile = [&](double p) {
    return latencies.empty() ? 0.0 : latencies[static_cast<size_t>(p * (latencies.size() - 1))];
  };
  const uint64_t ok_events = totals.ok_events.load();
  std::cout << "sent_events=" << totals.sent_events.load() << " ok_calls=" << totals.ok_calls.load()
            << " ok_events=" << ok_events << " failed_calls=" << totals.failed_calls.load()
            << " elapsed_s=" << elapsed_s << " events_per_s=" << (ok_events / elapsed_s)
            << " body_bytes_per_event=" << (body_bytes / std::max<size_t>(1, bodies.size() * batch))
            << " latency_p50_ms=" << percentile(0.5) << " latency_p99_ms=" << percentile(0.99)
            << std::endl;
  return totals.failed_calls.load() == 0 ? 0 : 1;
}
