// rayagg-bench-sink: a loopback HTTP/1.1 collector for benchmarks. Answers
// 200 to every POST on kept-alive connections and counts requests, bytes and
// JSON array elements (events); see SinkStats for the stats file.
// Single-threaded: under the benchmark it shares one core with the loadgen.
#include <cstdio>
#include <iostream>

#include "flags.h"
#include "rayagg/asio.h"
#include "sink_stats.h"

namespace rayagg::bench {
namespace {

using tcp = asio::ip::tcp;

// Well above the daemon's default batch.max_bytes (10 MiB).
constexpr uint64_t kMaxBodyBytes = 256ull * 1024 * 1024;
constexpr auto kStatsInterval = std::chrono::milliseconds(100);

constexpr char kUsage[] =
    "usage: rayagg-bench-sink [options]\n"
    "  --port N           port on 127.0.0.1, 0 = the OS picks (default 0)\n"
    "  --port-file PATH   write the bound port here once listening\n"
    "  --stats-file PATH  rewritten every 100 ms and at exit: requests, events, bytes, ...\n"
    "  --delay-ms N       answer each POST N ms after receiving it (a slow collector)\n";

void LogException(std::exception_ptr error) {
  if (!error) return;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sink: %s\n", e.what());
  }
}

asio::awaitable<void> Serve(tcp::socket socket, SinkStats& stats, std::chrono::milliseconds delay) {
  beast::flat_buffer buffer;
  asio::steady_timer delay_timer(socket.get_executor());
  boost::system::error_code error;
  while (true) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(kMaxBodyBytes);
    co_await http::async_read(socket, buffer, parser,
                              asio::redirect_error(asio::use_awaitable, error));
    if (error) break;  // the peer closed, or sent something that is not HTTP
    http::request<http::string_body>& request = parser.get();
    const bool is_post = request.method() == http::verb::post;
    if (is_post) stats.Record(request.body(), std::chrono::system_clock::now());
    if (is_post && delay.count() > 0) {
      delay_timer.expires_after(delay);
      co_await delay_timer.async_wait(asio::redirect_error(asio::use_awaitable, error));
    }
    http::response<http::empty_body> response(
        is_post ? http::status::ok : http::status::method_not_allowed, request.version());
    response.keep_alive(request.keep_alive());
    response.prepare_payload();
    co_await http::async_write(socket, response, asio::redirect_error(asio::use_awaitable, error));
    if (error || !response.keep_alive()) break;
  }
  socket.shutdown(tcp::socket::shutdown_both, error);
}

asio::awaitable<void> AcceptLoop(tcp::acceptor& acceptor, SinkStats& stats,
                                 std::chrono::milliseconds delay) {
  while (acceptor.is_open()) {
    boost::system::error_code error;
    tcp::socket socket =
        co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, error));
    if (error == asio::error::operation_aborted) break;
    if (error) continue;
    socket.set_option(tcp::no_delay(true), error);
    asio::co_spawn(acceptor.get_executor(), Serve(std::move(socket), stats, delay), LogException);
  }
}

class StatsWriter {
 public:
  StatsWriter(asio::io_context& io, std::string path, SinkStats& stats)
      : timer_(io), path_(std::move(path)), stats_(stats) {}

  void Start() { Schedule(); }
  void Stop() { timer_.cancel(); }

  // Writes only when something changed since the last write.
  void WriteIfChanged() {
    if (path_.empty() || (written_once_ && stats_.requests() == written_requests_)) return;
    if (!WriteFileAtomically(path_, stats_.Format())) {
      std::fprintf(stderr, "sink: cannot write %s\n", path_.c_str());
    }
    written_once_ = true;
    written_requests_ = stats_.requests();
  }

 private:
  void Schedule() {
    timer_.expires_after(kStatsInterval);
    timer_.async_wait([this](boost::system::error_code error) {
      if (error) return;
      WriteIfChanged();
      Schedule();
    });
  }

  asio::steady_timer timer_;
  std::string path_;
  SinkStats& stats_;
  bool written_once_ = false;
  uint64_t written_requests_ = 0;
};

int Run(const Flags& flags) {
  const uint64_t port = flags.Uint("port", 0);
  if (port > 65535) flags.Fail("--port must be at most 65535");
  const std::string port_file = flags.String("port-file", "");

  // Declared before the io_context: connection coroutines destroyed with it
  // still refer to the stats.
  SinkStats stats;
  asio::io_context io(1);
  tcp::acceptor acceptor(io);
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(port));
  boost::system::error_code error;
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(tcp::acceptor::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (!error) acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    std::fprintf(stderr, "sink: cannot listen on 127.0.0.1:%llu: %s\n",
                 static_cast<unsigned long long>(port), error.message().c_str());
    return 1;
  }
  StatsWriter writer(io, flags.String("stats-file", ""), stats);
  writer.WriteIfChanged();  // a zero file exists before the first request
  writer.Start();

  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code, int) {
    writer.Stop();
    writer.WriteIfChanged();
    acceptor.close();
    io.stop();
  });
  const std::chrono::milliseconds delay(flags.Uint("delay-ms", 0));
  asio::co_spawn(io, AcceptLoop(acceptor, stats, delay), LogException);

  if (!port_file.empty() &&
      !WriteFileAtomically(port_file, std::to_string(acceptor.local_endpoint().port()) + "\n")) {
    std::fprintf(stderr, "sink: cannot write %s\n", port_file.c_str());
    return 1;
  }
  io.run();
  return 0;
}

}  // namespace
}  // namespace rayagg::bench

int main(int argc, char** argv) {
  using namespace rayagg::bench;
  const Flags flags(argc, argv, {"port", "port-file", "stats-file", "delay-ms"}, kUsage);
  return Run(flags);
}
