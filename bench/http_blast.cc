// rayagg-http-blast: POSTs prepared JSON bodies to any HTTP JSON collector
// for a fixed time and counts what it accepts, so that the aggregator and a
// peer (Fluent Bit answers 201 with an empty body, we answer 200 with a JSON
// summary) are measured by the same client on the same bodies.
//
// Bodies come from a file written before the clock starts (one body per line,
// e.g. by `rayagg-http-loadgen --write-bodies`); request k (counted over all
// connections) sends body k mod N. Each connection is a keep-alive HTTP/1.1
// connection with one request in flight and the headers of Ray's agent
// (aiohttp). Any 2xx counts as accepted. Prints one key=value line.
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/url.h"
#include "flags.h"
#include "json_array_scan.h"
#include "rayagg/asio.h"
#include "rayagg/mutex.h"

namespace {

using namespace rayagg;
using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: rayagg-http-blast --url http://127.0.0.1:PORT/path --bodies FILE --seconds S "
    "[options]\n"
    "  --connections N  keep-alive connections, one request in flight each (default 1)\n"
    "  --rate N         offered events per second over all connections (default: as fast as\n"
    "                   answers come)\n";

struct Body {
  std::string text;
  uint64_t events = 0;
  uint64_t transitions = 0;  // TASK_LIFECYCLE_EVENT state transitions
};

uint64_t CountOf(std::string_view haystack, std::string_view needle) {
  uint64_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string_view::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

std::vector<Body> ReadBodies(const std::string& path) {
  std::ifstream in(path);
  std::vector<Body> bodies;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    Body body;
    body.events = bench::ScanJsonArray(line).elements;
    // Python's separators ({"state": "...) or compact ones.
    body.transitions = CountOf(line, "{\"state\": \"") + CountOf(line, "{\"state\":\"");
    body.text = std::move(line);
    bodies.push_back(std::move(body));
  }
  return bodies;
}

int64_t UnixNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Totals {
  std::atomic<uint64_t> requests{0}, accepted_requests{0}, accepted_events{0},
      accepted_transitions{0}, connection_errors{0};
  std::atomic<int64_t> last_answer_unix_ns{0};
  rayagg::Mutex mutex;
  std::map<int, uint64_t> statuses ABSL_GUARDED_BY(mutex);
  std::vector<double> latencies_ms ABSL_GUARDED_BY(mutex);
};

struct Plan {
  const Url* url;
  const std::vector<Body>* bodies;
  Clock::time_point start;
  Clock::time_point stop;
  double rate = 0;  // events/s; 0: unpaced
  uint64_t events_per_body = 1000;
};

void Connection(const Plan& plan, std::atomic<uint64_t>& next, Totals& totals) {
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  std::vector<double> latencies;
  std::map<int, uint64_t> statuses;
  boost::system::error_code ec;
  socket.connect(asio::ip::tcp::endpoint(asio::ip::make_address(plan.url->host), plan.url->port),
                 ec);
  if (ec) {
    ++totals.connection_errors;
    return;
  }
  timeval limit{30, 0};  // no call may hang the benchmark
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
  beast::flat_buffer buffer;
  while (true) {
    const uint64_t k = next++;
    if (plan.rate > 0) {
      const auto due =
          plan.start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                           static_cast<double>(k * plan.events_per_body) / plan.rate));
      if (due >= plan.stop) break;
      std::this_thread::sleep_until(due);
    }
    if (Clock::now() >= plan.stop) break;
    const Body& body = (*plan.bodies)[k % plan.bodies->size()];
    http::request<http::span_body<const char>> request{http::verb::post, plan.url->target, 11};
    request.set(http::field::host, plan.url->host_header);
    request.set(http::field::accept, "*/*");
    request.set(http::field::accept_encoding, "gzip, deflate");
    request.set(http::field::user_agent, "Python/3.11 aiohttp/3.9.5");
    request.set(http::field::content_type, "application/json");
    request.body() = beast::span<const char>(body.text.data(), body.text.size());
    request.prepare_payload();
    const auto sent = Clock::now();
    ++totals.requests;
    http::write(socket, request, ec);
    http::response<http::string_body> response;
    if (!ec) http::read(socket, buffer, response, ec);
    if (ec) {
      ++totals.connection_errors;
      break;  // the connection is gone
    }
    latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
    ++statuses[response.result_int()];
    if (response.result_int() / 100 == 2) {
      ++totals.accepted_requests;
      totals.accepted_events += body.events;
      totals.accepted_transitions += body.transitions;
      totals.last_answer_unix_ns = UnixNanos();
    }
    if (!response.keep_alive()) break;
  }
  rayagg::MutexLock lock(totals.mutex);
  totals.latencies_ms.insert(totals.latencies_ms.end(), latencies.begin(), latencies.end());
  for (const auto& [status, count] : statuses) totals.statuses[status] += count;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Flags flags(argc, argv, {"url", "bodies", "seconds", "connections", "rate"}, kUsage);
  auto url = ParseUrl(flags.String("url", ""));
  if (!url.ok()) flags.Fail("--url: " + std::string(url.status().message()));
  const std::vector<Body> bodies = ReadBodies(flags.String("bodies", ""));
  if (bodies.empty()) flags.Fail("--bodies: no bodies read");
  const double seconds = flags.Double("seconds", 0);
  const size_t connections = flags.Uint("connections", 1);
  if (seconds <= 0 || connections == 0) flags.Fail("--seconds and --connections must be > 0");

  Totals totals;
  std::atomic<uint64_t> next{0};
  Plan plan{&*url, &bodies, Clock::now(), {}, flags.Double("rate", 0), bodies.front().events};
  plan.stop = plan.start +
              std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  const int64_t first_send_unix_ns = UnixNanos();
  {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < connections; ++i) {
      threads.emplace_back([&] { Connection(plan, next, totals); });
    }
  }
  const double elapsed_s = std::chrono::duration<double>(Clock::now() - plan.start).count();
  rayagg::MutexLock lock(totals.mutex);  // the threads have ended; the analysis wants it held
  auto& latencies = totals.latencies_ms;
  std::sort(latencies.begin(), latencies.end());
  auto percentile = [&](double p) {
    return latencies.empty() ? 0.0 : latencies[static_cast<size_t>(p * (latencies.size() - 1))];
  };
  std::string statuses;
  for (const auto& [status, count] : totals.statuses) {
    statuses +=
        (statuses.empty() ? "" : ",") + std::to_string(status) + ":" + std::to_string(count);
  }
  std::cout << "requests=" << totals.requests.load()
            << " accepted_requests=" << totals.accepted_requests.load()
            << " accepted_events=" << totals.accepted_events.load()
            << " accepted_transitions=" << totals.accepted_transitions.load()
            << " connection_errors=" << totals.connection_errors.load()
            << " statuses=" << (statuses.empty() ? "none" : statuses) << " elapsed_s=" << elapsed_s
            << " accepted_events_per_s=" << (totals.accepted_events.load() / elapsed_s)
            << " first_send_unix_ns=" << first_send_unix_ns
            << " last_answer_unix_ns=" << totals.last_answer_unix_ns.load()
            << " latency_p50_ms=" << percentile(0.5) << " latency_p99_ms=" << percentile(0.99)
            << std::endl;
  return totals.connection_errors.load() == 0 ? 0 : 1;
}
