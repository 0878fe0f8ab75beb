// Runs a whole Daemon in-process on an OS-chosen port and talks to it like
// Ray does: over a real gRPC channel, every call with a deadline.
//
//   DaemonHarness  - the daemon, its log ring buffer and a client; usable anywhere.
//   DaemonTest     - a GoogleTest fixture owning TestHttpServers and one
//                    DaemonHarness, declared so that the daemon stops (and
//                    drains) before the servers it posts to go away, and that
//                    prints the daemon's recent log lines when a test fails.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "app/daemon.h"
#include "rayagg/config.h"
#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"
#include "support/condition_wait.h"
#include "support/manual_clock.h"
#include "support/sample_events.h"
#include "support/test_http_server.h"

namespace rayagg::test {

using ray::rpc::events::AddEventsReply;

// Every gRPC call the tests make carries this deadline unless told otherwise:
// generous, only a broken daemon makes a call wait this long.
inline constexpr std::chrono::milliseconds kRpcDeadline = kConditionTimeout;
// How long a test waits for something that should happen in milliseconds
// (generous: only a failing test waits this long).
inline constexpr std::chrono::milliseconds kWaitTimeout = kConditionTimeout;

inline constexpr std::string_view kAddEventsMethod =
    "/ray.rpc.events.EventAggregatorService/AddEvents";

// An http:// sink to `url` that accepts every event type and retries fast,
// so tests of failures finish in milliseconds.
SinkConfig FastHttpSink(std::string url, std::string name = "test-sink");

// A Config listening on 127.0.0.1 port 0 (the OS picks) with `sinks`, and a
// short drain so a test that leaves events undeliverable still ends quickly.
Config TestConfig(std::vector<SinkConfig> sinks);

// ---- What the endpoint received ----

// How RayEvent.event_id appears in the JSON (bytes print as base64).
std::string JsonEventId(const RayEvent& event);

// The number of elements of a body that is a JSON array, else 0. Never fails
// the test, so it can run inside TestHttpServer::WaitUntil predicates.
size_t ElementCount(std::string_view body);

// Every element of the bodies of requests[first_request...], in arrival order.
std::vector<nlohmann::json> ElementsOf(const std::vector<ReceivedRequest>& requests,
                                       size_t first_request = 0);

// Waits until the bodies the server received hold `count` elements in total.
bool WaitForElements(TestHttpServer& server, size_t count,
                     std::chrono::milliseconds timeout = kWaitTimeout);

// Waits until some body holds the event with `event`'s id (either key style).
bool WaitForEvent(TestHttpServer& server, const RayEvent& event,
                  std::chrono::milliseconds timeout = kWaitTimeout);

// The element's event id under either key style, or "" if absent.
std::string EventIdOf(const nlohmann::json& element);

// The ids of `events` / `elements` as they appear in the JSON, in order.
std::vector<std::string> IdsOf(const std::vector<RayEvent>& events);
std::vector<std::string> IdsOf(const std::vector<nlohmann::json>& elements);

class DaemonHarness {
 public:
  // Starts the daemon; check start_status() before use. With `clock` (a
  // ManualClock that outlives the harness) the daemon takes its time from it,
  // else from a RealClock of its own.
  explicit DaemonHarness(Config config, Clock* clock = nullptr);
  ~DaemonHarness();  // Stop()
  DaemonHarness(const DaemonHarness&) = delete;
  DaemonHarness& operator=(const DaemonHarness&) = delete;

  const absl::Status& start_status() const { return start_status_; }
  Daemon& daemon() { return *daemon_; }
  int port() const { return daemon_->grpc_port(); }
  const Sink& sink(size_t index) const { return *daemon_->sinks().at(index); }

  // AddEvents through the generated stub.
  grpc::Status AddEvents(const AddEventsRequest& request, AddEventsReply* reply = nullptr,
                         std::chrono::milliseconds deadline = kRpcDeadline);
  grpc::Status AddEvents(std::span<const RayEvent> events,
                         std::chrono::milliseconds deadline = kRpcDeadline);
  // AddEvents with `payload` sent as the request message verbatim (no
  // serialization), for malformed or hand-built wire bytes.
  grpc::Status AddEventsRaw(std::string_view payload, std::string* reply_bytes = nullptr,
                            std::chrono::milliseconds deadline = kRpcDeadline);

  // Stops the daemon (drains its sinks). Idempotent.
  void Stop();

  // The daemon's most recent log lines, for failure messages.
  std::vector<std::string> RecentLogs() const;
  // How many of the recent log lines contain `text`: only for the tests whose
  // subject is the log's volume (rate-limited warnings, recovery lines).
  size_t CountRecentLogLines(std::string_view text) const;

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_lines_;
  std::unique_ptr<Daemon> daemon_;
  absl::Status start_status_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<ray::rpc::events::EventAggregatorService::Stub> stub_;
};

class DaemonTest : public ::testing::Test {
 protected:
  void TearDown() override;

  // Starts the daemon with `config`; fails the test (fatally) if it cannot.
  // Call as ASSERT_NO_FATAL_FAILURE(StartDaemon(config)). The daemon runs on
  // real time, or on `clock` (normally &manual_clock_).
  void StartDaemon(Config config, Clock* clock = nullptr);
  void StopDaemon();
  DaemonHarness& harness() { return *harness_; }
  // One more server, owned by the fixture so it outlives the daemon.
  TestHttpServer& AddServer();

  TestHttpServer server_;  // the first endpoint; most tests need exactly one
  // For StartDaemon(config, &manual_clock_): outlives the daemon.
  ManualClock manual_clock_;

 private:
  std::deque<TestHttpServer> extra_servers_;
  std::unique_ptr<DaemonHarness> harness_;  // last: destroyed first
};

}  // namespace rayagg::test
