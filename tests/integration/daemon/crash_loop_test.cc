// The kill -9 loop (issue 15, "Tests with real crashes"): the real binary
// with its disk spool, under steady load over real gRPC and HTTP ingest,
// delivering to a real loopback sink, is killed with SIGKILL at random
// moments and restarted on the same spool.dir, with coalescing on and off.
//
// - Every event whose request was acknowledged reaches the sink.
// - Duplicates (an event delivered again) are at most max_in_flight batches
//   per kill per sink.
// - Within the last process's lifetime its /metrics account for every event:
//   received - coalesced - deduplicated + replayed = delivered + dropped + held,
//   where "replayed" are the events the sink delivered in that lifetime that
//   an earlier one had accepted (the sink URL names the lifetime, so the
//   loopback server tells them apart).
//
// The same loop with an object-store sink (issue 16): a dir:// store, the
// writer kept in the spool. Every acknowledged event is in some object at
// least once (an object stored but not yet released when the kill came is
// uploaded again), and ray-task-history's manifest check over every object
// finds one writer and no gap.
//
// A "random moment" is a random count of requests acknowledged in that
// lifetime (0 kills the daemon while it starts or recovers), drawn from a
// seed that is printed; RAYAGG_CRASH_SEED=N replays a run and
// RAYAGG_CRASH_KILLS=N changes how many kills (RAYAGG_CRASH_KILLS_DEFAULT,
// 20, fewer under sanitizers: docs/TESTING.md).
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "http/http_client.h"
#include "rayagg/mutex.h"
#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"
#include "store_manifests.h"
#include "support/condition_wait.h"
#include "support/daemon_fixture.h"
#include "support/gunzip.h"
#include "support/metrics_scrape.h"
#include "support/prometheus_text.h"
#include "support/run_coroutine.h"
#include "support/sample_events.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"
#include "support/test_http_server.h"

#ifndef RAYAGG_BINARY
#error "RAYAGG_BINARY must name the ray-event-aggregator executable"
#endif
#ifndef RAYAGG_CRASH_KILLS_DEFAULT
#define RAYAGG_CRASH_KILLS_DEFAULT 20
#endif

namespace rayagg::test {
namespace {

using std::chrono::milliseconds;

constexpr int kMaxInFlight = 2;
constexpr int kBatchEvents = 20;
// Not a multiple of the three reports per task: a task's reports straddle
// requests, so coalescing joins events of different requests too.
constexpr int kEventsPerRequest = 8;
constexpr int kReportsPerTask = 3;
// Transition timestamps are kBaseSeconds + the event's serial: the key by
// which an event is found again at the sink, merged or not.
constexpr int64_t kBaseSeconds = 1'700'000'000;
// A lifetime is killed after 0 .. kMaxAckedBeforeKill acknowledged requests.
constexpr int kMaxAckedBeforeKill = 60;

int EnvOr(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

// Event `serial`: a lifecycle report of task serial / 3 with one transition
// whose timestamp is the serial.
RayEvent EventOf(int64_t serial) {
  static constexpr ray::rpc::TaskStatus kStates[kReportsPerTask] = {
      ray::rpc::PENDING_NODE_ASSIGNMENT, ray::rpc::RUNNING, ray::rpc::FINISHED};
  RayEvent event = TaskLifecycleEvent("crash-task-" + std::to_string(serial / kReportsPerTask), 0,
                                      kStates[serial % kReportsPerTask]);
  event.mutable_task_lifecycle_event()
      ->mutable_state_transitions(0)
      ->mutable_timestamp()
      ->set_seconds(kBaseSeconds + serial);
  return event;
}

std::string JsonArrayOf(const std::vector<RayEvent>& events) {
  std::string body = "[";
  for (const RayEvent& event : events) {
    std::string json;
    EXPECT_TRUE(google::protobuf::util::MessageToJsonString(event, &json).ok());
    if (body.size() > 1) body += ",";
    body += json;
  }
  return body + "]";
}

// What the test sent and what the daemon acknowledged, across lifetimes.
class SentLog {
 public:
  // The serials of the next request.
  int64_t Take() { return next_serial_.fetch_add(kEventsPerRequest); }

  void Acknowledged(int64_t first_serial) {
    MutexLock lock(mutex_);
    for (int i = 0; i < kEventsPerRequest; ++i) acknowledged_.push_back(first_serial + i);
    ++acknowledged_requests_;
    changed_.SignalAll();
  }
  void Failed() { failed_requests_.fetch_add(1); }

  // Waits until `count` requests in all were acknowledged.
  bool WaitForAcknowledged(uint64_t count, milliseconds timeout) {
    MutexLock lock(mutex_);
    return changed_.WaitFor(mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return acknowledged_requests_ >= count;
    });
  }
  uint64_t acknowledged_requests() const {
    MutexLock lock(mutex_);
    return acknowledged_requests_;
  }
  std::vector<int64_t> acknowledged() const {
    MutexLock lock(mutex_);
    return acknowledged_;
  }
  int64_t next_serial() const { return next_serial_.load(); }
  uint64_t failed_requests() const { return failed_requests_.load(); }

 private:
  std::atomic<int64_t> next_serial_{0};
  std::atomic<uint64_t> failed_requests_{0};
  mutable Mutex mutex_;
  CondVar changed_;
  std::vector<int64_t> acknowledged_ ABSL_GUARDED_BY(mutex_);
  uint64_t acknowledged_requests_ ABSL_GUARDED_BY(mutex_) = 0;
};

// Steady load on one daemon lifetime: one thread sends AddEvents over gRPC,
// one POSTs JSON to HTTP ingest, back to back, each request new events,
// until Stop(). A request that fails (the daemon was killed under it) is not
// retried: its events may or may not arrive, and count as unacknowledged.
class Load {
 public:
  Load(SentLog& sent, int grpc_port, int http_port) : sent_(sent) {
    threads_.emplace_back([this, grpc_port] { SendGrpc(grpc_port); });
    threads_.emplace_back([this, http_port] { SendHttp(http_port); });
  }
  ~Load() { Stop(); }

  void Stop() {
    stop_ = true;
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }

 private:
  static std::vector<RayEvent> EventsFrom(int64_t first_serial) {
    std::vector<RayEvent> events;
    for (int i = 0; i < kEventsPerRequest; ++i) events.push_back(EventOf(first_serial + i));
    return events;
  }

  void SendGrpc(int port) {
    auto stub = ray::rpc::events::EventAggregatorService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
    while (!stop_) {
      const int64_t first = sent_.Take();
      const std::vector<RayEvent> events = EventsFrom(first);
      grpc::ClientContext context;
      context.set_deadline(RpcDeadlineIn(kRpcDeadline));
      AddEventsReply reply;
      if (stub->AddEvents(&context, RequestOf(events), &reply).ok()) {
        sent_.Acknowledged(first);
      } else {
        sent_.Failed();
      }
    }
  }

  void SendHttp(int port) {
    asio::io_context io;
    absl::StatusOr<Url> url = ParseUrl("http://127.0.0.1:" + std::to_string(port) + "/v1/events");
    if (!url.ok()) return;
    HttpClient client(io.get_executor(), *url, kRpcDeadline);
    while (!stop_) {
      const int64_t first = sent_.Take();
      const HttpResult result = RunCoroutine(io, client.Post(JsonArrayOf(EventsFrom(first)), {}));
      const bool accepted_all =
          !result.error && result.response.status == 200 &&
          result.response.body.find("\"accepted\":" + std::to_string(kEventsPerRequest)) !=
              std::string::npos;
      if (accepted_all) {
        sent_.Acknowledged(first);
      } else {
        sent_.Failed();
      }
    }
  }

  SentLog& sent_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// What the loopback sink received, decoded incrementally (its requests are
// only ever appended to).
struct Delivered {
  size_t requests_seen = 0;
  // Per transition serial, how many delivered elements carried it.
  std::map<int64_t, int> serials;
  std::map<std::string, int> event_ids;  // element event_id -> deliveries
  size_t elements = 0;
  // Elements delivered by each lifetime (its sink URL path), and of those,
  // the ones an earlier lifetime had accepted (serial below its first).
  std::map<std::string, size_t> elements_by_path;
  std::map<std::string, size_t> replayed_by_path;
  // Elements a lifetime delivered that an earlier one had delivered already.
  std::map<std::string, size_t> duplicates_by_path;
  std::map<std::string, int64_t> first_serial_by_path;  // filled by the test
  size_t undecodable = 0;

  void Add(const std::vector<ReceivedRequest>& requests) {
    for (; requests_seen < requests.size(); ++requests_seen) {
      const ReceivedRequest& request = requests[requests_seen];
      const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
      if (!body.is_array()) {
        ++undecodable;
        continue;
      }
      for (const nlohmann::json& element : body) {
        RayEvent event;
        google::protobuf::util::JsonParseOptions options;
        options.ignore_unknown_fields = true;
        if (!google::protobuf::util::JsonStringToMessage(element.dump(), &event, options).ok()) {
          ++undecodable;
          continue;
        }
        ++elements;
        ++elements_by_path[request.target];
        if (++event_ids[event.event_id()] > 1) ++duplicates_by_path[request.target];
        bool replayed = false;
        for (const auto& transition : event.task_lifecycle_event().state_transitions()) {
          const int64_t serial = transition.timestamp().seconds() - kBaseSeconds;
          ++serials[serial];
          const auto first = first_serial_by_path.find(request.target);
          if (first != first_serial_by_path.end() && serial < first->second) replayed = true;
        }
        if (replayed) ++replayed_by_path[request.target];
      }
    }
  }
  size_t duplicates() const { return elements - event_ids.size(); }
};

struct Ports {
  int grpc = 0;
  int http = 0;
  int ops = 0;
};

class CrashLoopTest : public ::testing::TestWithParam<bool> {
 protected:
  void TearDown() override {
    if (HasFailure()) {
      std::ifstream in(dir_.Path("stderr.txt"));
      std::cerr << "last daemon's stderr:\n" << in.rdbuf() << "\n";
    }
  }

  // The config of lifetime `run`.
  std::string ConfigFor(int run) const {
    const std::string yaml =
        "grpc: {address: 127.0.0.1, port: 0}\n"
        "http_ingest: {enabled: true, address: 127.0.0.1, port: 0}\n"
        "ops: {enabled: true, address: 127.0.0.1, port: 0}\n"
        "buffer: {coalesce: " +
        std::string(GetParam() ? "true" : "false") +
        "}\n"
        "spool:\n"
        "  dir: " +
        dir_.Path("spool") +
        "\n"
        "  max_bytes: 256MiB\n"
        "  segment_bytes: 64KiB\n"
        "  sync: 100ms\n"
        "shutdown: {drain_timeout: 2s}\n"
        "sinks:\n" +
        SinkYaml(run);
    const std::string path = dir_.Path("config.yaml");
    std::ofstream(path, std::ios::trunc) << yaml;
    return path;
  }
  // The sink of lifetime `run`: this one posts to /run-<run>.
  virtual std::string SinkYaml(int run) const {
    return "  - name: collector\n"
           "    url: " +
           server_.Url(PathOf(run)) +
           "\n"
           "    event_types: [ALL]\n"
           "    max_in_flight: " +
           std::to_string(kMaxInFlight) +
           "\n"
           "    batch: {max_events: " +
           std::to_string(kBatchEvents) +
           ", flush_interval: 5ms}\n"
           "    retry: {initial_backoff: 5ms, max_backoff: 50ms}\n";
  }
  static std::string PathOf(int run) { return "/run-" + std::to_string(run); }

  std::unique_ptr<Subprocess> Start(int run, Ports& ports) {
    for (const char* name : {"grpc.port", "http.port", "ops.port"}) {
      std::filesystem::remove(dir_.Path(name));
    }
    delivered_.first_serial_by_path[PathOf(run)] = sent_.next_serial();
    auto daemon = std::make_unique<Subprocess>(
        RAYAGG_BINARY,
        std::vector<std::string>{"--config", ConfigFor(run), "--port-file", dir_.Path("grpc.port"),
                                 "--http-port-file", dir_.Path("http.port"), "--ops-port-file",
                                 dir_.Path("ops.port")},
        dir_.Path("stdout.txt"), dir_.Path("stderr.txt"));
    const auto grpc = WaitForPortFile(*daemon, dir_.Path("grpc.port"), kWaitTimeout);
    const auto http = WaitForPortFile(*daemon, dir_.Path("http.port"), kWaitTimeout);
    const auto ops = WaitForPortFile(*daemon, dir_.Path("ops.port"), kWaitTimeout);
    if (!grpc || !http || !ops) {
      ADD_FAILURE() << "lifetime " << run << ": no port files; daemon "
                    << DescribeStatus(daemon->WaitForExit(milliseconds(0)));
      return nullptr;
    }
    ports = Ports{*grpc, *http, *ops};
    return daemon;
  }

  // Waits until the sink has every acknowledged event.
  bool WaitForEveryAcknowledged(std::vector<int64_t>& missing) {
    const std::vector<int64_t> acknowledged = sent_.acknowledged();
    const bool all = server_.WaitUntil(
        [&](const std::vector<ReceivedRequest>& requests) {
          delivered_.Add(requests);
          missing.clear();
          for (const int64_t serial : acknowledged) {
            if (!delivered_.serials.contains(serial)) missing.push_back(serial);
          }
          return missing.empty();
        },
        kWaitTimeout);
    return all;
  }

  // What else a lifetime waits for before its kill (under load).
  virtual void BeforeKill(int /*run*/, int /*moment*/) {}

  static uint64_t Seed() {
    const char* seed_text = std::getenv("RAYAGG_CRASH_SEED");
    return seed_text != nullptr && *seed_text != '\0' ? std::strtoull(seed_text, nullptr, 10)
                                                      : std::random_device{}();
  }

  // `kills` lifetimes, each under load and killed with SIGKILL after a
  // random count of acknowledged requests.
  void KillRepeatedly(int kills, uint64_t seed) {
    std::cout << "crash loop: coalesce=" << GetParam() << " kills=" << kills << " seed=" << seed
              << " (RAYAGG_CRASH_SEED to replay)\n";
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<int> acked_before_kill(0, kMaxAckedBeforeKill);
    for (int run = 0; run < kills; ++run) {
      Ports ports;
      std::unique_ptr<Subprocess> daemon = Start(run, ports);
      ASSERT_NE(daemon, nullptr);
      const int moment = acked_before_kill(random);
      {
        Load load(sent_, ports.grpc, ports.http);
        ASSERT_TRUE(sent_.WaitForAcknowledged(sent_.acknowledged_requests() + moment, kWaitTimeout))
            << "lifetime " << run << ": fewer than " << moment << " requests acknowledged";
        ASSERT_NO_FATAL_FAILURE(BeforeKill(run, moment));
        ASSERT_TRUE(daemon->Signal(SIGKILL));
        const std::optional<int> status = daemon->WaitForExit(kWaitTimeout);
        ASSERT_TRUE(status && WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL)
            << DescribeStatus(status);
        load.Stop();
      }
      std::cout << "lifetime " << run << ": killed after " << moment
                << " acknowledged requests; acknowledged so far " << sent_.acknowledged_requests()
                << "\n";
    }
  }

  // The last lifetime's start, which is not killed: the daemon on lifetime
  // `run` (left running in `daemon`), loaded until kMaxAckedBeforeKill more
  // requests were acknowledged, and none of them refused.
  void RunLastLifetime(int run, Ports& ports, std::unique_ptr<Subprocess>& daemon) {
    daemon = Start(run, ports);
    ASSERT_NE(daemon, nullptr);
    const uint64_t failed_before = sent_.failed_requests();
    {
      Load load(sent_, ports.grpc, ports.http);
      ASSERT_TRUE(sent_.WaitForAcknowledged(sent_.acknowledged_requests() + kMaxAckedBeforeKill,
                                            kWaitTimeout));
      load.Stop();
    }
    EXPECT_EQ(sent_.failed_requests(), failed_before) << "the last lifetime refused requests";
  }

  TempDir dir_;
  TestHttpServer server_;
  SentLog sent_;
  Delivered delivered_;
};

TEST_P(CrashLoopTest, KilledUnderLoadLosesNothingAcknowledged) {
  const int kills = EnvOr("RAYAGG_CRASH_KILLS", RAYAGG_CRASH_KILLS_DEFAULT);
  const uint64_t seed = Seed();
  SCOPED_TRACE("RAYAGG_CRASH_SEED=" + std::to_string(seed));
  ASSERT_NO_FATAL_FAILURE(KillRepeatedly(kills, seed));

  // The last lifetime: load, then everything acknowledged must arrive.
  const int last = kills;
  Ports ports;
  std::unique_ptr<Subprocess> daemon;
  ASSERT_NO_FATAL_FAILURE(RunLastLifetime(last, ports, daemon));

  std::vector<int64_t> missing;
  ASSERT_TRUE(WaitForEveryAcknowledged(missing))
      << missing.size() << " acknowledged events never reached the sink, e.g. serial "
      << missing.front() << " (of " << sent_.acknowledged().size() << ")";

  // Duplicates: at most max_in_flight batches per kill (one sink). What a
  // lifetime delivers again is what the lifetime before it had delivered
  // but not yet recorded in the ledger (or had itself replayed).
  const size_t per_kill = static_cast<size_t>(kMaxInFlight) * kBatchEvents;
  size_t most_after_one_kill = 0;
  for (const auto& [path, duplicates] : delivered_.duplicates_by_path) {
    most_after_one_kill = std::max(most_after_one_kill, duplicates);
    EXPECT_LE(duplicates, per_kill) << "delivered again by the lifetime posting to " << path;
  }
  std::cout << "delivered elements " << delivered_.elements << ", duplicates "
            << delivered_.duplicates() << " (at most " << most_after_one_kill
            << " after one kill; bound " << per_kill << " per kill), acknowledged events "
            << sent_.acknowledged().size() << ", sent events " << sent_.next_serial() << "\n";
  EXPECT_LE(delivered_.duplicates(), static_cast<size_t>(kills) * per_kill);
  EXPECT_EQ(delivered_.undecodable, 0u);

  // Accounting within the last lifetime, with events held: the sink now
  // refuses, one more request is acknowledged and stays in the spool.
  server_.SetDefaultBehavior(Respond{.status = 503});
  {
    const int64_t first = sent_.Take();
    std::vector<RayEvent> events;
    for (int i = 0; i < kEventsPerRequest; ++i) events.push_back(EventOf(first + i));
    auto stub = ray::rpc::events::EventAggregatorService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(ports.grpc), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(RpcDeadlineIn(kRpcDeadline));
    AddEventsReply reply;
    ASSERT_TRUE(stub->AddEvents(&context, RequestOf(events), &reply).ok());
    sent_.Acknowledged(first);
  }
  const std::string path = PathOf(last);
  std::string accounting;
  const bool balanced = WaitFor([&] {
    const std::optional<PrometheusPage> page = ScrapeMetrics(ports.ops);
    if (!page) return false;
    const auto value = [&](const std::string& name,
                           const std::map<std::string, std::string>& labels = {}) {
      return page->Value(name, labels).value_or(-1);
    };
    const double received = value("rayagg_events_received_total");
    const double coalesced = value("rayagg_events_coalesced_total");
    const double deduplicated = value("rayagg_events_deduplicated_total");
    const double sent = value("rayagg_sink_sent_events_total", {{"sink", "collector"}});
    double dropped = 0;  // every reason and event type
    if (const PrometheusFamily* drops = page->Find("rayagg_sink_dropped_events_total")) {
      for (const PrometheusSample& sample : drops->samples) {
        if (sample.Label("sink") == "collector") dropped += sample.value;
      }
    }
    const double held = value("rayagg_sink_backlog_entries", {{"sink", "collector"}});
    const double failed = value("rayagg_sink_failed_attempts_total", {{"sink", "collector"}});
    server_.WaitUntil(
        [&](const std::vector<ReceivedRequest>& requests) {
          delivered_.Add(requests);
          return true;
        },
        milliseconds(0));
    const double replayed = static_cast<double>(delivered_.replayed_by_path[path]);
    accounting = "received " + std::to_string(received) + " - coalesced " +
                 std::to_string(coalesced) + " - deduplicated " + std::to_string(deduplicated) +
                 " + replayed " + std::to_string(replayed) + " vs sent " + std::to_string(sent) +
                 " + dropped " + std::to_string(dropped) + " + held " + std::to_string(held);
    return failed > 0 && held > 0 &&
           received - coalesced - deduplicated + replayed == sent + dropped + held;
  });
  EXPECT_TRUE(balanced) << accounting;
  std::cout << "last lifetime: " << accounting << "\n";

  // The sink recovers: the held request arrives too, then a clean stop.
  server_.SetDefaultBehavior(Respond{});
  ASSERT_TRUE(WaitForEveryAcknowledged(missing)) << missing.size() << " missing after the 503s";
  ASSERT_TRUE(daemon->Signal(SIGTERM));
  const std::optional<int> status = daemon->WaitForExit(kWaitTimeout);
  EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
}

// The object-store sink's variant: a dir:// store, the writer kept in the
// spool (docs/OBJECT_STORE.md "Across restarts").
class ObjectSinkCrashLoopTest : public CrashLoopTest {
 protected:
  void SetUp() override { std::filesystem::create_directory(bucket_); }

  std::string SinkYaml(int) const override {
    return "  - name: history\n"
           "    url: dir://" +
           bucket_ +
           "\n"
           "    cluster: {namespace: ns, name: c}\n"
           "    object: {max_age: 100ms}\n"
           "    max_in_flight: " +
           std::to_string(kMaxInFlight) +
           "\n"
           "    retry: {initial_backoff: 5ms, max_backoff: 50ms}\n";
  }

  // Objects stored in a lifetime before its kill: 0 to 3 more than when
  // its acknowledged requests were counted (drawn from the moment), so
  // kills come before, between and while objects are uploaded, not only
  // before the first (a lifetime acknowledges its requests within one
  // max_age).
  void BeforeKill(int run, int moment) override {
    const size_t target = ObjectCount() + static_cast<size_t>(moment % 4);
    ASSERT_TRUE(WaitFor([&] { return ObjectCount() >= target; }))
        << "lifetime " << run << ": fewer than " << target << " objects stored";
  }

  size_t ObjectCount() const {
    absl::StatusOr<ListObjectsPage> page =
        DirObjectStore::ListBlocking(bucket_, {.prefix = "cluster-history/"});
    return page.ok() ? page->objects.size() : 0;
  }

  // Reads the store: per transition serial, how many stored events carry it.
  struct Stored {
    std::vector<StoredEventObject> objects;
    std::map<int64_t, int> serials;
    size_t events = 0;
    size_t undecodable = 0;
    size_t manifest_mismatches = 0;  // objects whose rayagg-events is not their line count
    size_t most_transitions = 0;     // in one object
  };
  Stored ReadStore() const {
    Stored stored;
    stored.objects = ReadEventObjects(bucket_);
    for (const StoredEventObject& object : stored.objects) {
      const std::optional<std::string> text = Gunzip(object.body);
      if (!text) {
        ++stored.undecodable;
        continue;
      }
      size_t lines = 0, transitions = 0;
      std::istringstream in(*text);
      for (std::string line; std::getline(in, line); ++lines) {
        RayEvent event;
        google::protobuf::util::JsonParseOptions options;
        options.ignore_unknown_fields = true;
        if (!google::protobuf::util::JsonStringToMessage(line, &event, options).ok()) {
          ++stored.undecodable;
          continue;
        }
        ++stored.events;
        for (const auto& transition : event.task_lifecycle_event().state_transitions()) {
          ++stored.serials[transition.timestamp().seconds() - kBaseSeconds];
          ++transitions;
        }
      }
      stored.most_transitions = std::max(stored.most_transitions, transitions);
      const auto count = object.manifest.find("rayagg-events");
      if (count == object.manifest.end() || count->second != std::to_string(lines)) {
        ++stored.manifest_mismatches;
      }
    }
    return stored;
  }

  std::vector<int64_t> MissingFrom(const Stored& stored) const {
    std::vector<int64_t> missing;
    for (const int64_t serial : sent_.acknowledged()) {
      if (!stored.serials.contains(serial)) missing.push_back(serial);
    }
    return missing;
  }

  const std::string bucket_ = dir_.Path("bucket");
};

TEST_P(ObjectSinkCrashLoopTest, EveryAcknowledgedEventIsInAnObjectAndTheManifestsShowNoGap) {
  const int kills = EnvOr("RAYAGG_CRASH_KILLS", RAYAGG_CRASH_KILLS_DEFAULT);
  const uint64_t seed = Seed();
  SCOPED_TRACE("RAYAGG_CRASH_SEED=" + std::to_string(seed));
  ASSERT_NO_FATAL_FAILURE(KillRepeatedly(kills, seed));

  // The last lifetime: load, everything acknowledged stored, a clean stop.
  Ports ports;
  std::unique_ptr<Subprocess> daemon;
  ASSERT_NO_FATAL_FAILURE(RunLastLifetime(kills, ports, daemon));
  std::vector<int64_t> missing;
  ASSERT_TRUE(WaitFor([&] {
    missing = MissingFrom(ReadStore());
    return missing.empty();
  })) << missing.size()
      << " acknowledged events in no object, e.g. serial " << missing.front() << " (of "
      << sent_.acknowledged().size() << ")";
  ASSERT_TRUE(daemon->Signal(SIGTERM));
  const std::optional<int> status = daemon->WaitForExit(kWaitTimeout);
  EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);

  const Stored stored = ReadStore();
  EXPECT_TRUE(MissingFrom(stored).empty());
  EXPECT_EQ(stored.undecodable, 0u);
  EXPECT_EQ(stored.manifest_mismatches, 0u);
  std::set<std::string> writers;
  for (const StoredEventObject& object : stored.objects) {
    writers.insert(object.manifest.count("rayagg-writer") ? object.manifest.at("rayagg-writer")
                                                          : "");
  }
  EXPECT_EQ(writers.size(), 1u) << "one writer kept in the spool across every restart";
  size_t serials_stored = 0;
  for (const auto& [serial, copies] : stored.serials) serials_stored += copies;
  const size_t again = serials_stored - stored.serials.size();
  std::cout << "objects " << stored.objects.size() << ", stored events " << stored.events
            << ", transitions stored " << serials_stored << " for " << stored.serials.size()
            << " serials (" << again << " again after a kill; the largest object holds "
            << stored.most_transitions << "), acknowledged events " << sent_.acknowledged().size()
            << ", sent events " << sent_.next_serial() << "\n";
  // What a kill makes the next lifetime upload again is what was stored but
  // not yet released: at most the max_in_flight uploads under way.
  EXPECT_LE(again, static_cast<size_t>(kills) * kMaxInFlight * stored.most_transitions);

  // ray-task-history's check: every number of the writer's stream is in an
  // object or declared void by a later run; no gap, nothing missing.
  const std::map<std::string, history::ManifestReport> reports =
      CheckManifestsPerSession(stored.objects, dir_.Path("index"));
  ASSERT_EQ(reports.size(), 1u);
  for (const auto& [session, report] : reports) {
    EXPECT_EQ(report.writers, 1) << session;
    EXPECT_EQ(report.objects_without_manifest, 0) << session;
    EXPECT_EQ(report.gaps, 0) << session;
    EXPECT_EQ(report.gap_events, 0) << session;
    EXPECT_EQ(report.missing_events, 0) << session;
  }
}

std::string CoalescingName(const ::testing::TestParamInfo<bool>& param) {
  return param.param ? "On" : "Off";
}

INSTANTIATE_TEST_SUITE_P(Coalescing, CrashLoopTest, ::testing::Bool(), CoalescingName);
INSTANTIATE_TEST_SUITE_P(Coalescing, ObjectSinkCrashLoopTest, ::testing::Bool(), CoalescingName);

}  // namespace
}  // namespace rayagg::test
