// The daemon's shared HTTP server (http/http_server.h) reading requests:
// arbitrary bytes are what one loopback client sends on a connection (then
// it closes its sending side), parsed by the server with the ingest and ops
// routes' shapes: an async POST route with a small body limit and GET routes
// (HEAD too). Request line, headers, Content-Length and chunked bodies,
// Expect: 100-continue, pipelining and keep-alive all come from the input.
// Properties: the server ends the connection once the client's side is
// closed; whatever it writes is HTTP responses, none a 5xx (our handlers
// never fail, so a 5xx is the server's own error).
#include <sys/socket.h>
#include <sys/time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "http/http_server.h"
#include "rayagg/asio.h"
#include "support/io_thread.h"

namespace {

namespace asio = rayagg::asio;
namespace http = rayagg::http;
using asio::ip::tcp;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "http_request_fuzz: %s\n", what);
  std::abort();
}

struct Server {
  Server() {
    rayagg::HttpServerOptions options;
    options.max_body_bytes = 4096;
    options.max_header_bytes = 2048;
    server = std::make_unique<rayagg::HttpServer>(io, options);
    server->AddAsyncRoute(
        "/api/events", {http::verb::post},
        [](rayagg::HttpRequest& request, rayagg::HttpResponder respond) {
          respond(rayagg::MakeHttpResponse(request, http::status::ok,
                                           "accepted " + std::to_string(request.body().size())));
        });
    server->AddRoute("/healthz", {http::verb::get}, [](rayagg::HttpRequest& request) {
      return rayagg::MakeHttpResponse(request, http::status::ok, "ok");
    });
    server->AddRoute("/metrics", {http::verb::get}, [](rayagg::HttpRequest& request) {
      return rayagg::MakeHttpResponse(request, http::status::ok, "up 1\n", "text/plain");
    });
    absl::StatusOr<uint16_t> bound = server->Start();
    if (!bound.ok()) Fail("cannot start the server");
    port = *bound;
    thread = std::make_unique<rayagg::test::IoThread>(io);
  }
  asio::io_context io;
  std::unique_ptr<rayagg::HttpServer> server;
  uint16_t port = 0;
  std::unique_ptr<rayagg::test::IoThread> thread;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = new Server;
  asio::io_context io;
  tcp::socket socket(io);
  boost::system::error_code ec;
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), server->port);
  // libFuzzer's timer signal can interrupt the connect too (a busy machine
  // makes it likelier): start over on a fresh socket, a bounded number of times.
  for (int attempt = 0;; ++attempt) {
    socket.connect(endpoint, ec);
    if (ec != asio::error::interrupted || attempt == 100) break;
    boost::system::error_code ignored;
    socket.close(ignored);
  }
  if (ec) {
    std::fprintf(stderr, "http_request_fuzz: connect: %s\n", ec.message().c_str());
    Fail("cannot connect");
  }
  // A server that never ends the connection fails the run instead of hanging it.
  const timeval timeout{.tv_sec = 20, .tv_usec = 0};
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  // libFuzzer's timers interrupt blocking calls (EINTR): go on after them.
  size_t written = 0;
  while (written < size) {
    written += socket.write_some(asio::buffer(data + written, size - written), ec);
    if (ec && ec != asio::error::interrupted) break;
  }
  socket.shutdown(tcp::socket::shutdown_send, ec);
  std::string answer;
  char buffer[4096];
  while (true) {
    const size_t read = socket.read_some(asio::buffer(buffer), ec);
    answer.append(buffer, read);
    if (ec && ec != asio::error::interrupted) break;
  }
  if (ec != asio::error::eof && ec != asio::error::connection_reset) {
    std::fprintf(stderr, "http_request_fuzz: read ended with %s\n", ec.message().c_str());
    Fail("the server did not end the connection");
  }
  socket.set_option(asio::socket_base::linger(true, 0), ec);
  socket.close(ec);

  // An HTTP/1.0 request is answered in HTTP/1.0.
  if (!answer.empty() && !answer.starts_with("HTTP/1.1 ") && !answer.starts_with("HTTP/1.0 ")) {
    Fail("an answer that is not HTTP");
  }
  if (answer.find("HTTP/1.1 5") != std::string::npos ||
      answer.find("HTTP/1.0 5") != std::string::npos) {
    Fail("a 5xx answer");
  }
  return 0;
}
