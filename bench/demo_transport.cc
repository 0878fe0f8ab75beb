#include "demo_transport.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <optional>
#include <random>
#include <thread>

#include "common/url.h"
#include "demo/sim_events.h"
#include "rayagg/asio.h"
#include "rayagg/event_json_encoder.h"
#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"

namespace rayagg::bench {
namespace {

using ray::rpc::events::AddEventsRequest;
constexpr std::chrono::seconds kTryDeadline{3};

class GrpcTransport : public DemoTransport {
 public:
  explicit GrpcTransport(std::string target)
      : target_(std::move(target)),
        stub_(ray::rpc::events::EventAggregatorService::NewStub(
            grpc::CreateChannel(target_, grpc::InsecureChannelCredentials()))) {}

  absl::Status SendOnce(const AddEventsRequest& request) override {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kTryDeadline);
    ray::rpc::events::AddEventsReply reply;
    const grpc::Status status = stub_->AddEvents(&context, request, &reply);
    if (status.ok()) return absl::OkStatus();
    return absl::UnavailableError("gRPC AddEvents to " + target_ + ": " + status.error_message());
  }
  std::string Describe() const override { return "grpc://" + target_; }

 private:
  std::string target_;
  std::unique_ptr<ray::rpc::events::EventAggregatorService::Stub> stub_;
};

// A keep-alive connection, every step under a deadline (beast's stream
// timeouts; the resolver's by running the io_context for so long).
class HttpTransport : public DemoTransport {
 public:
  explicit HttpTransport(Url url) : url_(std::move(url)), encoder_(MakeFastJsonEncoder({})) {}

  absl::Status SendOnce(const AddEventsRequest& request) override {
    body_ = "[";
    for (const auto& event : request.events_data().events()) {
      if (body_.size() > 1) body_ += ",";
      demo::SerializeDeterministic(event, serialized_);
      if (absl::Status s = encoder_->AppendEvent(serialized_, body_); !s.ok()) return s;
    }
    body_ += "]";
    absl::Status status = Post();
    if (!status.ok()) stream_.reset();  // a fresh connection for the next try
    return status;
  }
  std::string Describe() const override { return "http://" + url_.host_header + url_.target; }

 private:
  absl::Status Fail(const std::string& what, const beast::error_code& error) {
    return absl::UnavailableError("POST " + Describe() + ": " + what + ": " + error.message());
  }

  absl::Status Connect() {
    asio::ip::tcp::resolver resolver(io_);
    std::optional<asio::ip::tcp::resolver::results_type> endpoints;
    beast::error_code error = asio::error::timed_out;
    resolver.async_resolve(url_.host, std::to_string(url_.port),
                           [&](const beast::error_code& e, auto results) {
                             error = e;
                             endpoints = std::move(results);
                           });
    io_.restart();
    io_.run_for(kTryDeadline);
    if (!endpoints) resolver.cancel(), io_.restart(), io_.run();
    if (error || !endpoints) return Fail("resolve", error);
    stream_ = std::make_unique<beast::tcp_stream>(io_);
    stream_->expires_after(kTryDeadline);
    stream_->async_connect(*endpoints, [&](const beast::error_code& e, const auto&) { error = e; });
    io_.restart();
    io_.run();
    if (error) return Fail("connect", error);
    return absl::OkStatus();
  }

  absl::Status Post() {
    if (!stream_) {
      if (absl::Status s = Connect(); !s.ok()) return s;
    }
    // What aiohttp sends for Ray's publisher.
    http::request<http::string_body> post{http::verb::post, url_.target, 11};
    post.set(http::field::host, url_.host_header);
    post.set(http::field::accept, "*/*");
    post.set(http::field::accept_encoding, "gzip, deflate");
    post.set(http::field::user_agent, "Python/3.11 aiohttp/3.9.5");
    post.set(http::field::content_type, "application/json");
    post.body() = body_;
    post.prepare_payload();
    beast::error_code error;
    stream_->expires_after(kTryDeadline);
    http::async_write(*stream_, post, [&](const beast::error_code& e, size_t) { error = e; });
    io_.restart();
    io_.run();
    if (error) return Fail("write", error);
    http::response<http::string_body> response;
    buffer_.clear();
    http::async_read(*stream_, buffer_, response,
                     [&](const beast::error_code& e, size_t) { error = e; });
    io_.restart();
    io_.run();
    if (error) return Fail("read", error);
    if (!response.keep_alive()) stream_.reset();
    if (response.result_int() / 100 != 2) {
      return absl::UnavailableError("POST " + Describe() + " answered " +
                                    std::to_string(response.result_int()));
    }
    return absl::OkStatus();
  }

  Url url_;
  asio::io_context io_;
  std::unique_ptr<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
  std::unique_ptr<EventJsonEncoder> encoder_;
  std::string body_, serialized_;
};

}  // namespace

std::unique_ptr<DemoTransport> MakeGrpcTransport(const std::string& target) {
  return std::make_unique<GrpcTransport>(target);
}

absl::StatusOr<std::unique_ptr<DemoTransport>> MakeHttpTransport(const std::string& text) {
  absl::StatusOr<Url> url = ParseUrl(text);
  if (!url.ok()) return url.status();
  if (url->scheme != "http") return absl::InvalidArgumentError("--http must be an http:// URL");
  if (url->target == "/") url->target = "/v1/events";
  return std::make_unique<HttpTransport>(*std::move(url));
}

absl::Status SendWithRetries(DemoTransport& transport, const AddEventsRequest& request,
                             std::chrono::milliseconds give_up_after,
                             const std::function<bool()>& stop, SendTotals& totals) {
  const auto first = std::chrono::steady_clock::now();
  std::minstd_rand jitter(static_cast<unsigned>(request.events_data().events_size()));
  double backoff_s = 0.01;
  while (true) {
    ++totals.requests;
    absl::Status status = transport.SendOnce(request);
    if (status.ok()) return status;
    if (std::chrono::steady_clock::now() - first >= give_up_after) return status;
    ++totals.retries;
    backoff_s = std::min(5.0, backoff_s * 2);
    const double factor = 0.9 + 0.2 * std::uniform_real_distribution<double>(0, 1)(jitter);
    const auto due = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(backoff_s * factor));
    while (std::chrono::steady_clock::now() < due) {
      if (stop()) return absl::CancelledError("stopped");
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          std::chrono::milliseconds(50), due - std::chrono::steady_clock::now()));
    }
  }
}

}  // namespace rayagg::bench
