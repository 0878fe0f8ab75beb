#include "support/daemon_fixture.h"

#include <grpcpp/generic/generic_stub.h>

#include <algorithm>
#include <future>
#include <iostream>
#include <thread>
#include <utility>

#include "absl/strings/escaping.h"
#include "support/json_compare.h"

namespace rayagg::test {
namespace {

constexpr size_t kLogLinesKept = 200;

std::chrono::system_clock::time_point DeadlineIn(std::chrono::milliseconds timeout) {
  return RpcDeadlineIn(timeout);
}

}  // namespace

SinkConfig FastHttpSink(std::string url, std::string name) {
  SinkConfig sink;
  sink.name = std::move(name);
  sink.url = std::move(url);
  sink.event_types = EventTypeFilter::All();
  sink.batch.flush_interval = Duration(10);
  sink.request_timeout = Duration(2000);
  sink.retry.initial_backoff = Duration(5);
  sink.retry.max_backoff = Duration(50);
  return sink;
}

Config TestConfig(std::vector<SinkConfig> sinks) {
  Config config;
  config.grpc.address = "127.0.0.1";
  config.grpc.port = 0;
  config.sinks = std::move(sinks);
  config.shutdown.drain_timeout = Duration(1000);
  return config;
}

std::string JsonEventId(const RayEvent& event) { return absl::Base64Escape(event.event_id()); }

size_t ElementCount(std::string_view body) {
  const auto value = nlohmann::json::parse(body.begin(), body.end(), nullptr,
                                           /*allow_exceptions=*/false);
  return value.is_array() ? value.size() : 0;
}

std::vector<nlohmann::json> ElementsOf(const std::vector<ReceivedRequest>& requests,
                                       size_t first_request) {
  std::vector<nlohmann::json> elements;
  for (size_t i = first_request; i < requests.size(); ++i) {
    for (auto& element : JsonArrayElements(requests[i].body))
      elements.push_back(std::move(element));
  }
  return elements;
}

bool WaitForElements(TestHttpServer& server, size_t count, std::chrono::milliseconds timeout) {
  // The server only ever appends requests, and wakes this up at each one:
  // each body is parsed once, not again at every wake-up (quadratic in the
  // requests, and slow under ASan while the server waits for its lock).
  size_t counted_requests = 0;
  size_t total = 0;
  return server.WaitUntil(
      [&](const std::vector<ReceivedRequest>& requests) {
        for (; counted_requests < requests.size(); ++counted_requests) {
          total += ElementCount(requests[counted_requests].body);
        }
        return total >= count;
      },
      timeout);
}

std::string EventIdOf(const nlohmann::json& element) {
  if (!element.is_object()) return "";
  for (const char* key : {"eventId", "event_id"}) {
    auto it = element.find(key);
    if (it != element.end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

std::vector<std::string> IdsOf(const std::vector<RayEvent>& events) {
  std::vector<std::string> ids;
  for (const auto& event : events) ids.push_back(JsonEventId(event));
  return ids;
}

std::vector<std::string> IdsOf(const std::vector<nlohmann::json>& elements) {
  std::vector<std::string> ids;
  for (const auto& element : elements) ids.push_back(EventIdOf(element));
  return ids;
}

bool WaitForEvent(TestHttpServer& server, const RayEvent& event,
                  std::chrono::milliseconds timeout) {
  const std::string id = JsonEventId(event);
  return server.WaitUntil(
      [&id](const std::vector<ReceivedRequest>& requests) {
        return std::any_of(requests.begin(), requests.end(), [&id](const ReceivedRequest& r) {
          const auto value = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
          if (!value.is_array()) return false;
          return std::any_of(value.begin(), value.end(),
                             [&id](const nlohmann::json& e) { return EventIdOf(e) == id; });
        });
      },
      timeout);
}

DaemonHarness::DaemonHarness(Config config, Clock* clock)
    : log_lines_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(kLogLinesKept)) {
  // Logs are kept for failure messages; only their volume is ever asserted on
  // (CountRecentLogLines), never their wording. Debug level
  // so that every log statement's formatting runs (and is sanitized).
  auto logger = std::make_shared<spdlog::logger>("rayagg-test", log_lines_);
  logger->set_level(spdlog::level::debug);
  daemon_ = clock ? std::make_unique<Daemon>(std::move(config), std::move(logger), *clock)
                  : std::make_unique<Daemon>(std::move(config), std::move(logger));
  start_status_ = daemon_->Start();
  if (!start_status_.ok()) return;
  channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(daemon_->grpc_port()),
                                 grpc::InsecureChannelCredentials());
  stub_ = ray::rpc::events::EventAggregatorService::NewStub(channel_);
}

DaemonHarness::~DaemonHarness() { Stop(); }

void DaemonHarness::Stop() {
  stub_.reset();
  channel_.reset();
  daemon_->Stop();
}

grpc::Status DaemonHarness::AddEvents(const AddEventsRequest& request, AddEventsReply* reply,
                                      std::chrono::milliseconds deadline) {
  if (!stub_) return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "daemon not running");
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(deadline));
  AddEventsReply ignored;
  return stub_->AddEvents(&context, request, reply != nullptr ? reply : &ignored);
}

grpc::Status DaemonHarness::AddEvents(std::span<const RayEvent> events,
                                      std::chrono::milliseconds deadline) {
  return AddEvents(RequestOf(events), nullptr, deadline);
}

grpc::Status DaemonHarness::AddEventsRaw(std::string_view payload, std::string* reply_bytes,
                                         std::chrono::milliseconds deadline) {
  if (!channel_) return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "daemon not running");
  grpc::GenericStub generic(channel_);
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(deadline));
  grpc::Slice slice(payload.data(), payload.size());
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  generic.UnaryCall(&context, std::string(kAddEventsMethod), grpc::StubOptions(), &request,
                    &response, [&done](grpc::Status status) { done.set_value(std::move(status)); });
  std::future<grpc::Status> result = done.get_future();
  // The call's own deadline ends it; cancelling is a belt for a gRPC that
  // would not, because context and buffers must outlive the callback.
  if (result.wait_for(deadline + std::chrono::seconds(5)) != std::future_status::ready) {
    context.TryCancel();
  }
  grpc::Status status = result.get();
  if (status.ok() && reply_bytes != nullptr) {
    grpc::Slice reply;
    reply_bytes->clear();
    if (response.DumpToSingleSlice(&reply).ok()) {
      reply_bytes->assign(reinterpret_cast<const char*>(reply.begin()), reply.size());
    }
  }
  return status;
}

std::vector<std::string> DaemonHarness::RecentLogs() const { return log_lines_->last_formatted(); }

size_t DaemonHarness::CountRecentLogLines(std::string_view text) const {
  size_t count = 0;
  for (const std::string& line : log_lines_->last_formatted()) {
    if (line.find(text) != std::string::npos) ++count;
  }
  return count;
}

void DaemonTest::StartDaemon(Config config, Clock* clock) {
  ASSERT_EQ(harness_, nullptr) << "one daemon per test";
  harness_ = std::make_unique<DaemonHarness>(std::move(config), clock);
  ASSERT_TRUE(harness_->start_status().ok())
      << "daemon did not start: " << harness_->start_status().ToString();
}

void DaemonTest::StopDaemon() {
  if (harness_) harness_->Stop();
}

TestHttpServer& DaemonTest::AddServer() { return extra_servers_.emplace_back(); }

void DaemonTest::TearDown() {
  if (harness_ && HasFailure()) {
    // Context for the failure; tests never assert on log text.
    std::string lines;
    for (const std::string& line : harness_->RecentLogs()) lines += "  " + line;
    std::cerr << "recent daemon log lines:\n" << lines;
  }
}

}  // namespace rayagg::test
