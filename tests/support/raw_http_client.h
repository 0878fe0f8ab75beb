// A blocking loopback HTTP client that sends bytes verbatim, for requests our
// HttpClient does not make (other methods, malformed, chunked or
// byte-identical foreign requests, idle sockets). Every read and write gives
// up after `timeout` (SO_RCVTIMEO / SO_SNDTIMEO), so a broken server fails
// the test instead of hanging it.
#pragma once

#include <sys/socket.h>
#include <sys/time.h>

#include <array>
#include <chrono>
#include <string>

#include "rayagg/asio.h"

namespace rayagg::test {

class RawHttpClient {
 public:
  explicit RawHttpClient(uint16_t port,
                         std::chrono::milliseconds timeout = std::chrono::seconds(10))
      : socket_(io_) {
    socket_.connect(asio::ip::tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), port));
    timeval limit{};
    limit.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    limit.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
    setsockopt(socket_.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
  }

  void Send(const std::string& bytes) { asio::write(socket_, asio::buffer(bytes)); }

  // Half-closes the connection: the server sees the end of what we send.
  void ShutdownSend() { socket_.shutdown(asio::ip::tcp::socket::shutdown_send); }

  // Reads one response; `head` for the answer to a HEAD request or an
  // interim 1xx (no body).
  http::response<http::string_body> Read(bool head = false) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    parser.skip(head);
    http::read(socket_, buffer_, parser);
    return parser.release();
  }

  // Reads until the server closes; returns what arrived. Throws on timeout.
  std::string ReadUntilClosed() {
    std::string received(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    buffer_.consume(buffer_.size());
    std::array<char, 4096> chunk;
    for (;;) {
      boost::system::error_code ec;
      const size_t n = socket_.read_some(asio::buffer(chunk), ec);
      received.append(chunk.data(), n);
      if (ec == asio::error::eof || ec == asio::error::connection_reset) return received;
      if (ec) throw boost::system::system_error(ec);
    }
  }

 private:
  asio::io_context io_;
  asio::ip::tcp::socket socket_;
  beast::flat_buffer buffer_;
};

}  // namespace rayagg::test
