// Streamed (chunked) answers of HttpServer over real loopback sockets: 100 MB
// read whole by a client, a client that stops reading cut off after one
// chunk deadline with its producer destroyed, a producer error that leaves
// the answer visibly truncated, gzip'd streams, HTTP/1.0 and HEAD, and a
// blocking producer on its own executor that does not hold up the io thread.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "http/http_server.h"
#include "rayagg/mutex.h"
#include "support/condition_wait.h"
#include "support/gunzip.h"
#include "support/io_thread.h"
#include "support/raw_http_client.h"

namespace rayagg {
namespace {

namespace http = rayagg::http;
using tcp = asio::ip::tcp;
using RawClient = test::RawHttpClient;

constexpr size_t kPiece = 64 * 1024;

// What the test watches of one answer's producer.
struct ProducerLog {
  std::atomic<uint64_t> calls{0};
  std::atomic<bool> destroyed{false};
};

// `pieces` pieces of kPiece bytes (0: without end), each byte a function of
// its offset; fails instead of producing piece number `fail_at`.
class CountingProducer : public HttpBodyProducer {
 public:
  CountingProducer(ProducerLog& log, uint64_t pieces, std::optional<uint64_t> fail_at)
      : log_(log), pieces_(pieces), fail_at_(fail_at) {}
  ~CountingProducer() override { log_.destroyed = true; }
  absl::StatusOr<bool> Next(std::string& out) override {
    const uint64_t index = log_.calls++;
    if (fail_at_ && index == *fail_at_) return absl::InternalError("the index went away");
    out.resize(kPiece);
    for (size_t i = 0; i < kPiece; ++i) out[i] = static_cast<char>('a' + (index * kPiece + i) % 26);
    return pieces_ == 0 || index + 1 < pieces_;
  }

 private:
  ProducerLog& log_;
  const uint64_t pieces_;
  const std::optional<uint64_t> fail_at_;
};

// A blocking HTTP/1.1 client that reads a body of any size in pieces,
// checking its bytes without keeping them.
class StreamReader {
 public:
  explicit StreamReader(uint16_t port) : socket_(io_) {
    socket_.connect(tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), port));
  }
  void Send(const std::string& bytes) { asio::write(socket_, asio::buffer(bytes)); }

  struct Result {
    http::response_header<> header;
    uint64_t bytes = 0;
    bool pattern_ok = true;
    boost::system::error_code error;  // set when the body ended early
  };
  Result Read() {
    Result result;
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    http::read_header(socket_, buffer_, parser);
    result.header = parser.get().base();
    std::string piece(kPiece, '\0');
    while (!parser.is_done()) {
      parser.get().body().data = piece.data();
      parser.get().body().size = piece.size();
      boost::system::error_code ec;
      http::read(socket_, buffer_, parser, ec);
      if (ec == http::error::need_buffer) ec = {};
      const size_t n = piece.size() - parser.get().body().size;
      for (size_t i = 0; i < n; ++i) {
        if (piece[i] != static_cast<char>('a' + (result.bytes + i) % 26)) result.pattern_ok = false;
      }
      result.bytes += n;
      if (ec) {
        result.error = ec;
        break;
      }
    }
    return result;
  }

 private:
  asio::io_context io_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
};

class HttpServerStreamTest : public ::testing::Test {
 protected:
  void Start(HttpServerOptions options, uint64_t pieces, std::optional<uint64_t> fail_at = {}) {
    server_ = std::make_unique<HttpServer>(io_, std::move(options));
    server_->AddStreamRoute(
        "/stream", {http::verb::get}, [this, pieces, fail_at](HttpRequest& request) {
          HttpStreamedResponse answer{MakeHttpResponse(request, http::status::ok, "", "text/csv"),
                                      std::make_unique<CountingProducer>(log_, pieces, fail_at)};
          return answer;
        });
    server_->AddPrefixStreamRoute("/refuse/", {http::verb::get}, [](HttpRequest& request) {
      return HttpStreamedResponse{
          MakeHttpResponse(request, http::status::bad_request, "bad parameter\n"), nullptr};
    });
    server_->AddRoute("/ping", {http::verb::get}, [](HttpRequest& request) {
      return MakeHttpResponse(request, http::status::ok, "pong");
    });
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  ProducerLog log_;
  asio::io_context io_;
  test::IoThread thread_a_{io_};
  test::IoThread thread_b_{io_};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerStreamTest, HundredMegabytesAreReadWholeAndTheConnectionGoesOn) {
  constexpr uint64_t kPieces = 100 * 1024 * 1024 / kPiece;
  Start({}, kPieces);
  StreamReader reader(server_->port());
  reader.Send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
  const StreamReader::Result result = reader.Read();
  EXPECT_FALSE(result.error) << result.error.message();
  EXPECT_EQ(result.header.result_int(), 200);
  EXPECT_EQ(result.header[http::field::transfer_encoding], "chunked");
  EXPECT_EQ(result.header.count(http::field::content_length), 0u);
  EXPECT_EQ(result.header[http::field::content_type], "text/csv");
  EXPECT_EQ(result.header["X-Content-Type-Options"], "nosniff");
  EXPECT_EQ(result.bytes, kPieces * kPiece);
  EXPECT_TRUE(result.pattern_ok);
  EXPECT_EQ(log_.calls.load(), kPieces);
  EXPECT_TRUE(test::WaitFor([&] { return log_.destroyed.load(); }));
  // The last chunk was written: the same connection serves the next request.
  reader.Send("GET /refuse/x HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(reader.Read().header.result_int(), 400);
  EXPECT_EQ(server_->counters().streams_completed.load(), 1u);
}

TEST_F(HttpServerStreamTest, AClientThatStopsReadingIsCutOffAndItsProducerDestroyed) {
  // A short chunk deadline: the test waits for it to pass, once.
  Start({.write_timeout = std::chrono::milliseconds(300)}, /*pieces=*/0);
  RawClient client(server_->port());
  client.Send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
  // Never read: the socket buffers fill, a chunk's write passes its deadline.
  ASSERT_TRUE(test::WaitFor([&] { return log_.destroyed.load(); }));
  EXPECT_TRUE(test::WaitFor([&] { return server_->counters().timeouts.load() == 1; }));
  // One piece at a time: what was produced is what the socket buffers held
  // (a few MB on loopback), not an endless stream piling up in memory.
  const uint64_t calls = log_.calls.load();
  EXPECT_LT(calls * kPiece, 64u * 1024 * 1024) << calls;
  EXPECT_TRUE(test::WaitFor([&] { return server_->connection_counts().open == 0; }));
  EXPECT_EQ(log_.calls.load(), calls);
  EXPECT_EQ(server_->counters().streams_completed.load(), 0u);
}

TEST_F(HttpServerStreamTest, AProducerErrorLeavesTheAnswerTruncated) {
  Start({}, /*pieces=*/10, /*fail_at=*/3);
  StreamReader reader(server_->port());
  reader.Send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
  const StreamReader::Result result = reader.Read();
  EXPECT_EQ(result.header.result_int(), 200);
  EXPECT_EQ(result.bytes, 3 * kPiece);
  EXPECT_TRUE(result.pattern_ok);
  // No final 0-chunk: the client cannot take it for a complete answer.
  EXPECT_EQ(result.error, http::error::partial_message) << result.error.message();
  EXPECT_TRUE(test::WaitFor([&] { return log_.destroyed.load(); }));
  EXPECT_EQ(server_->counters().stream_errors.load(), 1u);
  EXPECT_EQ(server_->counters().streams_completed.load(), 0u);
}

TEST_F(HttpServerStreamTest, StreamsAreGzippedPieceByPieceWhenAsked) {
  Start({.gzip_responses = true}, /*pieces=*/16);
  RawClient client(server_->port());
  client.Send("GET /stream HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n");
  const auto answer = client.Read();
  EXPECT_EQ(answer[http::field::content_encoding], "gzip");
  EXPECT_EQ(answer[http::field::vary], "Accept-Encoding");
  EXPECT_EQ(answer[http::field::transfer_encoding], "chunked");
  const std::optional<std::string> body = test::Gunzip(answer.body());
  ASSERT_TRUE(body.has_value());
  ASSERT_EQ(body->size(), 16 * kPiece);
  for (size_t i = 0; i < body->size(); i += 4099) {
    ASSERT_EQ((*body)[i], static_cast<char>('a' + i % 26)) << i;
  }
  EXPECT_LT(answer.body().size(), body->size() / 10);
}

TEST_F(HttpServerStreamTest, Http10GetsTheBodyUntilCloseAndHeadNoBody) {
  Start({}, /*pieces=*/4);
  RawClient old(server_->port());
  old.Send("GET /stream HTTP/1.0\r\n\r\n");
  const std::string raw = old.ReadUntilClosed();
  const size_t body = raw.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos);
  EXPECT_EQ(raw.find("chunked"), std::string::npos);
  EXPECT_EQ(raw.size() - body - 4, 4 * kPiece);
  EXPECT_EQ(log_.calls.load(), 4u);

  RawClient head(server_->port());
  head.Send("HEAD /stream HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto answer = head.Read(/*head=*/true);
  EXPECT_EQ(answer.result_int(), 200);
  EXPECT_EQ(answer[http::field::transfer_encoding], "chunked");
  head.Send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(head.Read().body(), "pong");
  EXPECT_EQ(log_.calls.load(), 4u);  // HEAD never called the producer
}

// Where the blocking producer waits until the test lets it go.
class Gate {
 public:
  ~Gate() { Open(); }  // a failed test never leaves the producer blocked
  void Block() {
    MutexLock lock(mutex_);
    entered_ = true;
    changed_.SignalAll();
    changed_.Wait(mutex_, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return open_; });
  }
  bool WaitEntered() {
    MutexLock lock(mutex_);
    return changed_.WaitFor(mutex_, test::kConditionTimeout,
                            [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return entered_; });
  }
  void Open() {
    MutexLock lock(mutex_);
    open_ = true;
    changed_.SignalAll();
  }

 private:
  Mutex mutex_;
  CondVar changed_;
  bool entered_ ABSL_GUARDED_BY(mutex_) = false;
  bool open_ ABSL_GUARDED_BY(mutex_) = false;
};

// One io thread and a producer that blocks: on its own executor, the io
// thread goes on serving other connections meanwhile.
TEST(HttpServerStreamExecutorTest, ABlockingProducerDoesNotHoldTheIoThread) {
  asio::io_context io;
  asio::thread_pool producers(1);
  {
    test::IoThread thread(io);
    HttpServer server(io, {.producer_executor = producers.get_executor()});
    Gate gate;  // destroyed (opened) before the server stops
    server.AddStreamRoute("/slow", {http::verb::get}, [&gate](HttpRequest& request) {
      auto next = [&gate, done = false](std::string& out) mutable -> absl::StatusOr<bool> {
        if (done) return false;
        gate.Block();
        out = "slow piece";
        done = true;
        return true;
      };
      return HttpStreamedResponse{MakeHttpResponse(request, http::status::ok, ""),
                                  MakeHttpBodyProducer(std::move(next))};
    });
    server.AddRoute("/ping", {http::verb::get}, [](HttpRequest& request) {
      return MakeHttpResponse(request, http::status::ok, "pong");
    });
    ASSERT_TRUE(server.Start().ok());
    RawClient slow(server.port());
    slow.Send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(gate.WaitEntered());
    RawClient ping(server.port());
    ping.Send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(ping.Read().body(), "pong");  // while the producer still blocks
    gate.Open();
    EXPECT_EQ(slow.Read().body(), "slow piece");
  }
  producers.join();
}

}  // namespace
}  // namespace rayagg
