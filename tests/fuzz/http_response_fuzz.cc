// A sink's HTTP client reading a collector's answer: arbitrary bytes are what
// a loopback peer answers to one POST (then it closes its side), read by the
// sink's client (http/http_client.h: status
// line, headers, Content-Length or chunked body, interim 1xx, the body and
// header limits), turned into a DeliveryOutcome as the sink's transport
// does (sinks/http_transport.cc), then classified under both retry
// policies with its Retry-After parsed (sinks/delivery_policy.h), as the
// delivery planner does. Properties: an answer has a status of three digits; a Retry-After
// never asks for a negative wait.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/url.h"
#include "http/http_client.h"
#include "rayagg/asio.h"
#include "rayagg/config.h"
#include "sinks/delivery_policy.h"

namespace {

using rayagg::asio::ip::tcp;
namespace asio = rayagg::asio;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "http_response_fuzz: %s\n", what);
  std::abort();
}

struct Peer {
  asio::io_context io;
  tcp::acceptor acceptor{io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)};
};

// Accepts the client's connection, answers `answer`, closes its sending
// side and reads until the client closes; then resets (no TIME_WAIT).
asio::awaitable<void> Answer(tcp::acceptor& acceptor, std::string answer) {
  boost::system::error_code ec;
  tcp::socket socket =
      co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return;
  co_await asio::async_write(socket, asio::buffer(answer),
                             asio::redirect_error(asio::use_awaitable, ec));
  socket.shutdown(tcp::socket::shutdown_send, ec);
  char request[4096];
  while (!ec) {
    co_await socket.async_read_some(asio::buffer(request),
                                    asio::redirect_error(asio::use_awaitable, ec));
  }
  socket.set_option(asio::socket_base::linger(true, 0), ec);
  socket.close(ec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Peer* peer = new Peer;
  const std::string url =
      "http://127.0.0.1:" + std::to_string(peer->acceptor.local_endpoint().port()) + "/events";
  absl::StatusOr<rayagg::Url> parsed = rayagg::ParseUrl(url);
  if (!parsed.ok()) Fail("bad URL");

  rayagg::DeliveryOutcome outcome;
  {
    rayagg::HttpClient client(peer->io.get_executor(), *parsed, std::chrono::seconds(20));
    asio::co_spawn(peer->io,
                   Answer(peer->acceptor, std::string(reinterpret_cast<const char*>(data), size)),
                   [](std::exception_ptr error) {
                     if (error) std::rethrow_exception(error);
                   });
    asio::co_spawn(
        peer->io,
        [&]() -> asio::awaitable<void> {
          rayagg::HttpResult result = co_await client.Post("[]", {});
          client.Close();
          // As sinks/http_transport.cc reports it.
          if (result.error) {
            outcome.reason = rayagg::FailureReason::kConnection;
          } else {
            outcome.status = result.response.status;
            outcome.retry_after = std::move(result.response.retry_after);
            if (result.response.body.size() > rayagg::kMaxResponseBodyBytes) {
              Fail("a response body above the limit");
            }
          }
        },
        [](std::exception_ptr error) {
          if (error) std::rethrow_exception(error);
        });
    peer->io.restart();
    peer->io.run();
  }

  if (outcome.status && *outcome.status > 999) Fail("a status of more than three digits");
  for (rayagg::RetryPolicy policy :
       {rayagg::RetryPolicy::kDefault, rayagg::RetryPolicy::kRayCompat}) {
    (void)rayagg::Classify(policy, outcome);
  }
  if (outcome.retry_after) {
    const auto wait =
        rayagg::ParseRetryAfter(*outcome.retry_after, std::chrono::system_clock::now());
    if (wait && wait->count() < 0) Fail("a negative Retry-After wait");
  }
  return 0;
}
