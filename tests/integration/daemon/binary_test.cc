// The real ray-event-aggregator binary as a subprocess, the way a supervisor
// (or Ray) runs it: flags, the port file, delivery, and the drain on SIGTERM.
// Its output goes to files in a temp dir; only --check-config, --help and
// --version tests read it, because there the output is the point.

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "app/probe.h"
#include "http/http_client.h"
#include "rayagg/asio.h"
#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"
#include "support/daemon_fixture.h"
#include "support/gunzip.h"
#include "support/json_compare.h"
#include "support/metrics_scrape.h"
#include "support/object_events.h"
#include "support/prometheus_text.h"
#include "support/run_coroutine.h"
#include "support/sample_events.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"
#include "support/test_http_server.h"

#ifndef RAYAGG_BINARY
#error "RAYAGG_BINARY must name the ray-event-aggregator executable"
#endif

namespace rayagg::test {
namespace {

using std::chrono::milliseconds;

// A TCP port that is taken (we hold it bound and listening) for as long as
// the object lives: a config naming it cannot bind.
class HeldPort {
 public:
  HeldPort() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        listen(fd_, 1) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw std::runtime_error("cannot hold a port");
    }
    port_ = ntohs(address.sin_port);
  }
  ~HeldPort() { close(fd_); }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

class BinaryTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure()) {
      // Context for the failure (never asserted on in the daemon tests).
      std::cerr << "daemon stderr:\n" << ReadWholeFile(stderr_path()) << "\n";
    }
  }

  std::string stdout_path() const { return dir_.Path("stdout.txt"); }
  std::string stderr_path() const { return dir_.Path("stderr.txt"); }
  std::string port_path() const { return dir_.Path("port"); }

  // `environment`: "NAME=value" entries added to the daemon's environment.
  std::unique_ptr<Subprocess> Run(const std::vector<std::string>& args,
                                  const std::vector<std::string>& environment = {}) {
    return std::make_unique<Subprocess>(RAYAGG_BINARY, args, stdout_path(), stderr_path(),
                                        environment);
  }

  // Writes `yaml` as the config file and returns its path.
  std::string Config(const std::string& yaml) {
    const std::string path = dir_.Path("config.yaml");
    WriteWholeFile(path, yaml);
    return path;
  }

  // A config with one sink to server_ that exports every type; `sink_extra`
  // adds keys to the sink (indented for it), `top_extra` top-level sections.
  std::string SinkConfigYaml(const std::string& sink_extra, const std::string& top_extra = "") {
    return "grpc:\n"
           "  port: " +
           std::to_string(held_port_.port()) +
           "  # taken: --grpc-port 0 must win\n"
           "sinks:\n"
           "  - name: collector\n"
           "    url: " +
           server_.Url("/ray/events") +
           "\n"
           "    event_types: [ALL]\n"
           "    retry: {initial_backoff: 5ms, max_backoff: 50ms}\n" +
           sink_extra + top_extra;
  }

  // Waits for another listener's port file. Each listener writes its own once it serves, and the
  // ops listener runs on its own thread, so the gRPC port file being there says nothing of it.
  int PortFromFile(Subprocess& process, const std::string& path) {
    const std::optional<int> port = rayagg::test::WaitForPortFile(process, path, kWaitTimeout);
    if (!port) ADD_FAILURE() << "no port in " << path;
    return port.value_or(0);
  }

  // Waits for the port file (written by rename once serving).
  std::optional<int> WaitForPortFile(Subprocess& process, milliseconds timeout) {
    port_file_text_ = WaitForFile(process, port_path(), timeout).value_or("");
    try {
      return std::stoi(port_file_text_);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  TempDir dir_;
  TestHttpServer server_;
  HeldPort held_port_;
  std::string port_file_text_;
};

std::unique_ptr<ray::rpc::events::EventAggregatorService::Stub> ClientFor(int port) {
  return ray::rpc::events::EventAggregatorService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
}

// `authorization`: the call's "authorization" metadata (RAY_AUTH_MODE=token).
grpc::Status AddEvents(ray::rpc::events::EventAggregatorService::Stub& stub,
                       const AddEventsRequest& request,
                       const std::optional<std::string>& authorization = std::nullopt) {
  grpc::ClientContext context;
  context.set_deadline(RpcDeadlineIn(kRpcDeadline));
  if (authorization) context.AddMetadata("authorization", *authorization);
  AddEventsReply reply;
  return stub.AddEvents(&context, request, &reply);
}

// POSTs one event to the daemon's HTTP ingest at `http_port` with
// "Authorization: Bearer <token>"; the answer's status (0 without one).
unsigned PostOneEvent(int http_port, const std::string& token) {
  asio::io_context io_context;
  absl::StatusOr<Url> url =
      ParseUrl("http://127.0.0.1:" + std::to_string(http_port) + "/v1/events");
  EXPECT_TRUE(url.ok());
  HttpClient client(io_context.get_executor(), *url, kWaitTimeout);
  const std::string body = R"([{"eventId": "AQID", "sourceType": "CORE_WORKER", )"
                           R"("eventType": "TASK_DEFINITION_EVENT", "severity": "INFO", )"
                           R"("timestamp": "2025-06-30T16:50:30Z", "sessionName": "s", )"
                           R"("taskDefinitionEvent": {"taskId": "AQ==", "taskAttempt": 0}}])";
  return RunCoroutine(io_context, client.Post(body, {{"Authorization", "Bearer " + token}}))
      .response.status;
}

// An object-store sink in the real binary: events in over gRPC, objects out
// in the KubeRay layout of a dir:// store, each session's marker first;
// every event is in exactly one object, decodable, and the manifests count
// them. Objects appear max_age after their first event, and SIGTERM uploads
// what is still open.
TEST_F(BinaryTest, ObjectStoreSinkWritesTheKubeRayLayoutIntoADirectory) {
  const std::string bucket = dir_.Path("bucket");
  std::filesystem::create_directory(bucket);
  const std::string config = Config(
      "sinks:\n"
      "  - name: history\n"
      "    url: dir://" +
      bucket +
      "\n"
      "    cluster: {namespace: ray-system, name: raycluster-a}\n"
      "    object: {max_age: 200ms}\n");
  auto daemon = Run({"--config", config, "--grpc-port", "0", "--port-file", port_path()});
  const std::optional<int> port = WaitForPortFile(*daemon, kWaitTimeout);
  ASSERT_TRUE(port.has_value()) << DescribeStatus(daemon->WaitForExit(milliseconds(0)));
  auto stub = ClientFor(*port);

  const std::string other_session = "session_2026-01-02_03-04-05_678901_42";
  std::vector<RayEvent> first;
  for (int i = 0; i < 20; ++i) {
    first.push_back(ObjectTestEvent(i, kSession, "\x01\x02", i % 2 == 0 ? "\x0a" : "\x0b"));
  }
  first.push_back(ObjectTestEvent(20, kSession, "\x01\x02", ""));  // node_events
  ASSERT_TRUE(AddEvents(*stub, RequestOf(first)).ok());

  // Keys under the bucket (sidecars and temporary files left out).
  auto keys = [&bucket] {
    absl::StatusOr<ListObjectsPage> page = DirObjectStore::ListBlocking(bucket, {});
    std::vector<std::string> found;
    if (page.ok()) {
      for (const ObjectInfo& object : page->objects) found.push_back(object.key);
    }
    return found;
  };
  // max_age passes in real time: the objects appear while the daemon runs.
  ASSERT_TRUE(WaitFor([&] { return keys().size() == 4; }))  // marker + 3 directories
      << keys().size() << " keys";

  std::vector<RayEvent> second;
  for (int i = 21; i < 30; ++i) second.push_back(ObjectTestEvent(i, other_session));
  ASSERT_TRUE(AddEvents(*stub, RequestOf(second)).ok());
  ASSERT_TRUE(daemon->Signal(SIGTERM));  // uploads what is still open
  const auto status = daemon->WaitForExit(milliseconds(60'000));
  ASSERT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);

  std::multiset<std::string> ids;
  std::set<std::string> markers;
  size_t manifest_events = 0;
  for (const std::string& key : keys()) {
    if (auto marker = kuberay::ParseSessionMarkerKey(key)) {
      EXPECT_EQ(marker->cluster.namespace_name, "ray-system");
      EXPECT_EQ(marker->cluster.name, "raycluster-a");
      markers.insert(marker->session);
      continue;
    }
    const auto parts = kuberay::ParseEventObjectKey(key);
    ASSERT_TRUE(parts.has_value()) << key;
    EXPECT_EQ(parts->node_id_hex, "0102");
    EXPECT_TRUE(parts->file.gzip) << key;
    absl::StatusOr<StoredObject> object = DirObjectStore::GetBlocking(bucket, {.key = key});
    ASSERT_TRUE(object.ok()) << key;
    const std::optional<std::string> text = Gunzip(object->body);
    ASSERT_TRUE(text.has_value()) << key;
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
      const nlohmann::json event = nlohmann::json::parse(line);
      std::string id;
      EXPECT_TRUE(absl::Base64Unescape(event["eventId"].get<std::string>(), &id));
      ids.insert(id);
      EXPECT_EQ(event["sessionName"].get<std::string>(), parts->session);
    }
    for (const auto& [name, value] : object->metadata) {
      if (name == "rayagg-events") manifest_events += std::stoul(value);
    }
  }
  EXPECT_EQ(markers, (std::set<std::string>{kSession, other_session}));
  std::multiset<std::string> sent;
  for (const auto* batch : {&first, &second}) {
    for (const RayEvent& event : *batch) sent.insert(event.event_id());
  }
  EXPECT_EQ(ids, sent);
  EXPECT_EQ(manifest_events, sent.size());
}

TEST_F(BinaryTest, PortZeroAndPortFileThenServesUntilSigterm) {
  auto daemon =
      Run({"--config", Config(SinkConfigYaml("")), "--grpc-port", "0", "--port-file", port_path()});
  const std::optional<int> port = WaitForPortFile(*daemon, kWaitTimeout);
  ASSERT_TRUE(port.has_value()) << "no port file; daemon "
                                << DescribeStatus(daemon->WaitForExit(milliseconds(0)))
                                << "; port file: \"" << port_file_text_ << "\"";
  // Plain decimal, nothing else (Ray reads it with int()).
  EXPECT_TRUE(!port_file_text_.empty() &&
              std::all_of(port_file_text_.begin(), port_file_text_.end(),
                          [](char c) { return c >= '0' && c <= '9'; }))
      << "\"" << port_file_text_ << "\"";
  EXPECT_GT(*port, 0);
  EXPECT_NE(*port, held_port_.port());
  EXPECT_FALSE(std::filesystem::exists(port_path() + ".tmp"));

  auto stub = ClientFor(*port);
  ASSERT_TRUE(AddEvents(*stub, AddEventsRequest()).ok());  // Ray's readiness probe
  const std::vector<RayEvent> events = TaskLifecycleEvents(3, "binary");
  ASSERT_TRUE(AddEvents(*stub, RequestOf(events)).ok());
  ASSERT_TRUE(WaitForElements(server_, events.size()));
  for (const auto& request : server_.Requests()) EXPECT_EQ(request.target, "/ray/events");

  ASSERT_TRUE(daemon->Signal(SIGTERM));
  const auto status = daemon->WaitForExit(milliseconds(5000));
  EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
}

// The spool's lock file: a second daemon on the same spool.dir does not
// start (exit 1, the reason on stderr) and the first one goes on serving.
TEST_F(BinaryTest, ASecondDaemonOnTheSpoolDirectoryExitsNonZero) {
  const std::string config = Config(SinkConfigYaml(
      "", "spool:\n  dir: " + dir_.Path("spool") + "\n  max_bytes: 4MiB\n  segment_bytes: 1MiB\n"));
  auto first = Run({"--config", config, "--grpc-port", "0", "--port-file", port_path()});
  const std::optional<int> port = WaitForPortFile(*first, kWaitTimeout);
  ASSERT_TRUE(port.has_value()) << DescribeStatus(first->WaitForExit(milliseconds(0)));

  const std::string second_stderr = dir_.Path("second-stderr.txt");
  Subprocess second(RAYAGG_BINARY, {"--config", config, "--grpc-port", "0"},
                    dir_.Path("second-stdout.txt"), second_stderr);
  const auto status = second.WaitForExit(kWaitTimeout);
  EXPECT_TRUE(ExitedWith(status, 1)) << DescribeStatus(status);
  EXPECT_NE(ReadWholeFile(second_stderr).find("is in use by another process"), std::string::npos)
      << ReadWholeFile(second_stderr);

  auto stub = ClientFor(*port);
  const std::vector<RayEvent> events = TaskLifecycleEvents(3, "first-daemon");
  ASSERT_TRUE(AddEvents(*stub, RequestOf(events)).ok());
  ASSERT_TRUE(WaitForElements(server_, events.size()));
  ASSERT_TRUE(first->Signal(SIGTERM));
  EXPECT_TRUE(ExitedWith(first->WaitForExit(kWaitTimeout), 0));
}

// SIGTERM (how Ray and Kubernetes stop it) and SIGINT (Ctrl-C) both drain.
class StopSignalTest : public BinaryTest, public ::testing::WithParamInterface<int> {};

TEST_P(StopSignalTest, FlushesBufferedEventsBeforeExit) {
  // Nothing leaves before the signal: a batch window of a day, room for all.
  // The drain may take far longer than the test waits for the exit, so an
  // exit in time means the signal flushed the batch at once.
  auto daemon = Run({"--config",
                     Config(SinkConfigYaml("    batch: {max_events: 100000, flush_interval: 24h}\n",
                                           "shutdown: {drain_timeout: 1h}\n")),
                     "--grpc-port", "0", "--port-file", port_path()});
  const std::optional<int> port = WaitForPortFile(*daemon, kWaitTimeout);
  ASSERT_TRUE(port.has_value()) << DescribeStatus(daemon->WaitForExit(milliseconds(0)));

  auto stub = ClientFor(*port);
  const std::vector<RayEvent> events = OneEventOfEveryType();
  for (size_t i = 0; i < events.size(); i += 5) {
    const std::vector<RayEvent> chunk(events.begin() + i, events.begin() + i + 5);
    const grpc::Status status = AddEvents(*stub, RequestOf(chunk));
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_EQ(server_.RequestCount(), 0u) << "the batch window should still be open";

  ASSERT_TRUE(daemon->Signal(GetParam()));
  const auto status = daemon->WaitForExit(kWaitTimeout);
  EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);

  // Everything was delivered before the process exited: no waiting here.
  const auto elements = ElementsOf(server_.Requests());
  ASSERT_EQ(elements.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_TRUE(JsonEquivalent(elements[i], ParseJson(ProtobufPrinterJson(events[i]))))
        << RayEvent::EventType_Name(events[i].event_type());
  }
}

INSTANTIATE_TEST_SUITE_P(Signals, StopSignalTest, ::testing::Values(SIGTERM, SIGINT),
                         [](const ::testing::TestParamInfo<int>& test) {
                           return test.param == SIGTERM ? "Sigterm" : "Sigint";
                         });

TEST_F(BinaryTest, SigtermWithAHangingEndpointExitsAfterTheDrainTimeout) {
  server_.SetDefaultBehavior(TestHttpServer::Hang{});
  auto daemon = Run(
      {"--config",
       Config(SinkConfigYaml("    request_timeout: 1s\n", "shutdown: {drain_timeout: 300ms}\n")),
       "--grpc-port", "0", "--port-file", port_path()});
  const std::optional<int> port = WaitForPortFile(*daemon, kWaitTimeout);
  ASSERT_TRUE(port.has_value()) << DescribeStatus(daemon->WaitForExit(milliseconds(0)));
  auto stub = ClientFor(*port);
  ASSERT_TRUE(AddEvents(*stub, RequestOf(TaskLifecycleEvents(3, "undeliverable"))).ok());
  ASSERT_TRUE(server_.WaitForRequests(1, kWaitTimeout));

  ASSERT_TRUE(daemon->Signal(SIGTERM));
  // Bounded by drain_timeout + request_timeout (+ the daemon's 1 s margin).
  const auto status = daemon->WaitForExit(milliseconds(5000));
  EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
}

TEST_F(BinaryTest, CheckConfigAcceptsAValidConfig) {
  auto run = Run({"--config", Config(SinkConfigYaml("")), "--check-config"});
  const auto status = run->WaitForExit(kWaitTimeout);
  EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status) << "\n"
                                     << ReadWholeFile(stderr_path());
  EXPECT_FALSE(ReadWholeFile(stdout_path()).empty());
}

TEST_F(BinaryTest, CheckConfigRejectsABadConfigAndNamesTheKey) {
  struct Case {
    std::string what;
    std::string yaml;
    std::string key;  // must appear in the error
  };
  const std::vector<Case> cases = {
      {"misspelled key", SinkConfigYaml("    batch: {flush_intervall: 1s}\n"), "flush_intervall"},
      {"duration without unit", SinkConfigYaml("    request_timeout: 5\n"), "request_timeout"},
      {"wrong type", SinkConfigYaml("", "buffer: {max_events: lots}\n"), "max_events"},
      {"unknown event type",
       "sinks: [{url: 'http://127.0.0.1:1/x', event_types: [NOT_AN_EVENT]}]\n", "NOT_AN_EVENT"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto run = Run({"--config", Config(c.yaml), "--check-config"});
    const auto status = run->WaitForExit(kWaitTimeout);
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) != 0) << DescribeStatus(status);
    const std::string error = ReadWholeFile(stderr_path());
    EXPECT_NE(error.find(c.key), std::string::npos) << error;
  }
}

TEST_F(BinaryTest, VersionAndHelpExitZero) {
  {
    auto run = Run({"--version"});
    const auto status = run->WaitForExit(kWaitTimeout);
    EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
    EXPECT_NE(ReadWholeFile(stdout_path()).find("ray-event-aggregator"), std::string::npos);
  }
  {
    auto run = Run({"--help"});
    const auto status = run->WaitForExit(kWaitTimeout);
    EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
    const std::string help = ReadWholeFile(stdout_path());
    for (const char* flag : {"--config", "--grpc-port", "--port-file", "--check-config"}) {
      EXPECT_NE(help.find(flag), std::string::npos) << flag << " missing from:\n" << help;
    }
  }
}

TEST_F(BinaryTest, UnknownFlagExitsNonZeroNamingIt) {
  auto run = Run({"--no-such-flag"});
  const auto status = run->WaitForExit(kWaitTimeout);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) != 0) << DescribeStatus(status);
  EXPECT_NE(ReadWholeFile(stderr_path()).find("no-such-flag"), std::string::npos);
}

// `probe URL` exits 0 iff the URL answers 2xx, non-zero with a one-line error.
TEST_F(BinaryTest, ProbeExitCodeFollowsTheStatus) {
  server_.Enqueue(Respond{.status = 200});
  server_.Enqueue(Respond{.status = 503});
  {
    auto run = Run({"probe", server_.Url("/healthz")});
    const auto status = run->WaitForExit(kWaitTimeout);
    EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
  }
  {
    auto run = Run({"probe", server_.Url("/readyz")});
    const auto status = run->WaitForExit(kWaitTimeout);
    EXPECT_TRUE(ExitedWith(status, 1)) << DescribeStatus(status);
    const std::string error = ReadWholeFile(stderr_path());
    EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << error;
  }
  EXPECT_EQ(server_.RequestCount(), 2u);
}

// SIGTERM: /readyz answers 503 while the sinks drain, then the process exits 0.
// SIGHUP with a broken config file: refused, the daemon keeps serving.
TEST_F(BinaryTest, OpsListenerReadinessFollowsTheLifecycle) {
  // The sink's request hangs until the test ends the hang (request_timeout
  // is longer than any test runs): the drain waits for it.
  server_.SetDefaultBehavior(Hang{});
  const std::string config =
      Config(SinkConfigYaml("    request_timeout: 24h\n", "shutdown:\n  drain_timeout: 1h\n"));
  const std::string ops_port_path = dir_.Path("ops-port");
  auto daemon = Run({"--config", config, "--grpc-port", "0", "--port-file", port_path(),
                     "--ops-port", "0", "--ops-port-file", ops_port_path});
  const std::optional<int> port = WaitForPortFile(*daemon, kWaitTimeout);
  ASSERT_TRUE(port.has_value()) << DescribeStatus(daemon->WaitForExit(milliseconds(0)));
  const int ops_port = PortFromFile(*daemon, ops_port_path);
  const std::string readyz = "http://127.0.0.1:" + std::to_string(ops_port) + "/readyz";
  EXPECT_TRUE(Probe(readyz).ok);

  auto stub = ClientFor(*port);
  ASSERT_TRUE(AddEvents(*stub,
                        [] {
                          AddEventsRequest request;
                          *request.mutable_events_data()->add_events() = TaskLifecycleEvent("t", 0);
                          return request;
                        }())
                  .ok());
  ASSERT_TRUE(server_.WaitForRequests(1, kWaitTimeout));

  WriteWholeFile(config, "sinks: [{url: 12}]\n");  // invalid: refused on SIGHUP
  ASSERT_TRUE(daemon->Signal(SIGHUP));
  EXPECT_TRUE(Probe(readyz).ok);
  EXPECT_TRUE(daemon->Running());

  ASSERT_TRUE(daemon->Signal(SIGTERM));
  // Draining: still running (the hung request holds the drain), not ready.
  EXPECT_TRUE(WaitFor([&] {
    const ProbeResult result = Probe(readyz);
    return !result.ok && result.detail == "status 503";
  }));
  EXPECT_TRUE(daemon->Running());
  // The hang ends, the retry is answered and the drain completes.
  server_.SetDefaultBehavior(Respond{});
  server_.EndHangs();
  const auto status = daemon->WaitForExit(kWaitTimeout);
  EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
}

// The value of one sample of the daemon's /metrics at `ops_port`, or nullopt
// when the page cannot be fetched or the sample is not on it.
std::optional<double> MetricValue(int ops_port, std::string_view name,
                                  const std::map<std::string, std::string>& labels) {
  const std::optional<PrometheusPage> page = ScrapeMetrics(ops_port, std::chrono::seconds(5));
  if (!page) return std::nullopt;
  absl::StatusOr<double> value = page->Value(name, labels);
  return value.ok() ? std::optional<double>(*value) : std::nullopt;
}

// Secrets never reach the logs, --check-config's output or /metrics: a
// canary in every secret place of the config and the environment (HTTP
// ingest's token file, a sink's token file and header value, an S3 sink's
// key files, the AWS_* keys another S3 sink takes from the environment, and
// Ray's RAY_AUTH_TOKEN), the daemon run at log level debug and exercised (a
// wrong and the right ingest token, a wrong and the right gRPC token, an
// event delivered with the sink's token, objects signed with both S3 key
// pairs), then every output is searched for it.
TEST_F(BinaryTest, SecretsNeverAppearInLogsCheckConfigOrMetrics) {
  const std::string canary = "canary-5ecr3t-b1d9";
  const std::string ingest_token = dir_.Path("ingest-token");
  WriteWholeFile(ingest_token, canary + "-ingest\n");
  const std::string sink_token = dir_.Path("sink-token");
  WriteWholeFile(sink_token, canary + "-sink\n");
  const std::string s3_key_id = dir_.Path("s3-key-id");
  WriteWholeFile(s3_key_id, canary + "-s3-file-id\n");
  const std::string s3_secret = dir_.Path("s3-secret");
  WriteWholeFile(s3_secret, canary + "-s3-file-secret\n");
  const std::string s3_session = dir_.Path("s3-session");
  WriteWholeFile(s3_session, canary + "-s3-file-session\n");
  const std::vector<std::string> environment = {
      "AWS_ACCESS_KEY_ID=" + canary + "-s3-env-id",
      "AWS_SECRET_ACCESS_KEY=" + canary + "-s3-env-secret",
      "AWS_SESSION_TOKEN=" + canary + "-s3-env-session",
      "RAY_AUTH_MODE=token",
      "RAY_AUTH_TOKEN=" + canary + "-ray",
  };
  // Both S3 sinks sign their requests to a server of their own.
  TestHttpServer s3_server;
  auto s3_sink = [&](const std::string& name, const std::string& files) {
    return "  - name: " + name + "\n    url: s3://bucket-" + name +
           "\n    cluster: {namespace: ray-system, name: raycluster-a}\n"
           "    object: {max_age: 200ms}\n"
           "    retry: {initial_backoff: 5ms, max_backoff: 50ms}\n"
           "    s3: {endpoint: '" +
           s3_server.Url("") + "', addressing: path" + files + "}\n";
  };
  const std::string config = Config(SinkConfigYaml(
      "    bearer_token_file: " + sink_token + "\n    headers: {X-Api-Key: " + canary +
          "-header}\n" +
          s3_sink("s3-files", ", access_key_id_file: " + s3_key_id + ", secret_access_key_file: " +
                                  s3_secret + ", session_token_file: " + s3_session) +
          s3_sink("s3-environment", ""),
      "http_ingest: {enabled: true, bearer_token_file: " + ingest_token + "}\n"));

  auto check = Run({"--config", config, "--check-config", "--log-level", "debug"}, environment);
  ASSERT_TRUE(ExitedWith(check->WaitForExit(kWaitTimeout), 0)) << ReadWholeFile(stderr_path());
  const std::string check_output = ReadWholeFile(stdout_path()) + ReadWholeFile(stderr_path());
  EXPECT_NE(check_output.find(ingest_token), std::string::npos) << check_output;
  EXPECT_NE(check_output.find(s3_secret), std::string::npos) << check_output;
  EXPECT_EQ(check_output.find(canary), std::string::npos) << check_output;

  const std::string http_port_path = dir_.Path("http-port");
  const std::string ops_port_path = dir_.Path("ops-port");
  auto daemon = Run({"--config", config, "--log-level", "debug", "--grpc-port", "0", "--port-file",
                     port_path(), "--http-port", "0", "--http-port-file", http_port_path,
                     "--ops-port", "0", "--ops-port-file", ops_port_path},
                    environment);
  const std::optional<int> grpc_port = WaitForPortFile(*daemon, kWaitTimeout);
  ASSERT_TRUE(grpc_port.has_value()) << DescribeStatus(daemon->WaitForExit(milliseconds(0)));
  const int http_port = PortFromFile(*daemon, http_port_path);
  const int ops_port = PortFromFile(*daemon, ops_port_path);

  EXPECT_EQ(PostOneEvent(http_port, canary + "-wrong"), 401u);
  EXPECT_EQ(PostOneEvent(http_port, canary + "-ingest"), 200u);
  ASSERT_TRUE(server_.WaitForRequests(1, kWaitTimeout));
  EXPECT_EQ(server_.Requests().front().Header("Authorization"), "Bearer " + canary + "-sink");
  EXPECT_EQ(MetricValue(ops_port, "rayagg_http_server_errors_total",
                        {{"listener", "http_ingest"}, {"reason", "unauthorized"}}),
            1);

  // Ray's token guards gRPC ingest; events with a node and a session reach
  // the S3 sinks, which sign with their keys.
  auto stub = ClientFor(*grpc_port);
  const std::vector<RayEvent> events = {ObjectTestEvent(1), ObjectTestEvent(2)};
  const AddEventsRequest request = RequestOf(events);
  EXPECT_EQ(AddEvents(*stub, request, "Bearer " + canary + "-wrong").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  const grpc::Status added = AddEvents(*stub, request, "Bearer " + canary + "-ray");
  ASSERT_TRUE(added.ok()) << added.error_message();
  auto signed_with = [&s3_server](const std::string& key_id) {
    const auto requests = s3_server.Requests();
    return std::any_of(requests.begin(), requests.end(), [&](const auto& received) {
      return received.Header("Authorization").value_or("").find("Credential=" + key_id + "/") !=
             std::string::npos;
    });
  };
  EXPECT_TRUE(WaitFor([&] { return signed_with(canary + "-s3-file-id"); }));
  EXPECT_TRUE(WaitFor([&] { return signed_with(canary + "-s3-env-id"); }));

  asio::io_context io_context;
  absl::StatusOr<Url> metrics_url =
      ParseUrl("http://127.0.0.1:" + std::to_string(ops_port) + "/metrics");
  ASSERT_TRUE(metrics_url.ok());
  HttpClient scraper(io_context.get_executor(), *metrics_url, kWaitTimeout);
  const HttpResult page = RunCoroutine(io_context, scraper.Get());
  ASSERT_EQ(page.response.status, 200u);
  EXPECT_NE(page.response.body.find("s3-environment"), std::string::npos);  // the sinks are on it
  EXPECT_EQ(page.response.body.find(canary), std::string::npos);

  daemon->Signal(SIGTERM);
  EXPECT_TRUE(ExitedWith(daemon->WaitForExit(kWaitTimeout), 0));
  const std::string logs = ReadWholeFile(stdout_path()) + ReadWholeFile(stderr_path());
  EXPECT_NE(logs.find("auth=bearer-token"), std::string::npos);  // the run did log
  EXPECT_EQ(logs.find(canary), std::string::npos) << logs;
}

// SIGHUP re-reads http_ingest.bearer_token_file (a rotated Kubernetes
// Secret): from then on the new token is let in and the old one refused. A
// token file that does not load on a later SIGHUP is a refused reload, and
// the running token stays.
TEST_F(BinaryTest, SighupRereadsTheHttpIngestBearerToken) {
  const std::string token_file = dir_.Path("ingest-token");
  WriteWholeFile(token_file, "first-token\n");
  const std::string config = Config(
      SinkConfigYaml("", "http_ingest: {enabled: true, bearer_token_file: " + token_file + "}\n"));
  const std::string http_port_path = dir_.Path("http-port");
  const std::string ops_port_path = dir_.Path("ops-port");
  auto daemon = Run({"--config", config, "--grpc-port", "0", "--port-file", port_path(),
                     "--http-port", "0", "--http-port-file", http_port_path, "--ops-port", "0",
                     "--ops-port-file", ops_port_path});
  ASSERT_TRUE(WaitForPortFile(*daemon, kWaitTimeout).has_value())
      << DescribeStatus(daemon->WaitForExit(milliseconds(0)));
  const int http_port = PortFromFile(*daemon, http_port_path);
  const int ops_port = PortFromFile(*daemon, ops_port_path);
  auto reloads = [&](const std::string& result) {
    return MetricValue(ops_port, "rayagg_config_reloads_total", {{"result", result}});
  };
  EXPECT_EQ(PostOneEvent(http_port, "first-token"), 200u);
  EXPECT_EQ(PostOneEvent(http_port, "second-token"), 401u);

  // Rotated the way Kubernetes does it: a new file renamed over the old one.
  WriteWholeFile(token_file + ".new", "second-token\n");
  std::filesystem::rename(token_file + ".new", token_file);
  ASSERT_TRUE(daemon->Signal(SIGHUP));
  ASSERT_TRUE(WaitFor([&] { return reloads("success") == 1.0; }))
      << reloads("success").value_or(-1);
  EXPECT_EQ(PostOneEvent(http_port, "second-token"), 200u);
  EXPECT_EQ(PostOneEvent(http_port, "first-token"), 401u);

  WriteWholeFile(token_file, "\n");  // empty: this config does not load
  ASSERT_TRUE(daemon->Signal(SIGHUP));
  ASSERT_TRUE(WaitFor([&] { return reloads("failure") == 1.0; }))
      << reloads("failure").value_or(-1);
  EXPECT_EQ(PostOneEvent(http_port, "second-token"), 200u);
  EXPECT_EQ(PostOneEvent(http_port, ""), 401u);
  EXPECT_EQ(MetricValue(ops_port, "rayagg_http_server_errors_total",
                        {{"listener", "http_ingest"}, {"reason", "unauthorized"}}),
            3);

  ASSERT_TRUE(daemon->Signal(SIGTERM));
  EXPECT_TRUE(ExitedWith(daemon->WaitForExit(kWaitTimeout), 0));
}

// SIGHUP with a file that does not load: refused, counted as a failed
// reload on /metrics; the fixed file then reloads and counts a success.
TEST_F(BinaryTest, SighupCountsReloadsByResultOnMetrics) {
  const std::string config = Config(SinkConfigYaml(""));
  const std::string valid_yaml = ReadWholeFile(config);
  const std::string ops_port_path = dir_.Path("ops-port");
  auto daemon = Run({"--config", config, "--grpc-port", "0", "--port-file", port_path(),
                     "--ops-port", "0", "--ops-port-file", ops_port_path});
  ASSERT_TRUE(WaitForPortFile(*daemon, kWaitTimeout).has_value())
      << DescribeStatus(daemon->WaitForExit(milliseconds(0)));
  const int ops_port = PortFromFile(*daemon, ops_port_path);
  auto reloads = [&](const std::string& result) {
    return MetricValue(ops_port, "rayagg_config_reloads_total", {{"result", result}});
  };
  ASSERT_EQ(reloads("failure"), 0.0);

  WriteWholeFile(config, "sinks: [{url: 12}]\n");  // does not load
  ASSERT_TRUE(daemon->Signal(SIGHUP));
  EXPECT_TRUE(WaitFor([&] { return reloads("failure") == 1.0; }))
      << reloads("failure").value_or(-1);
  EXPECT_EQ(reloads("success"), 0.0);
  EXPECT_TRUE(daemon->Running());

  WriteWholeFile(config, valid_yaml);
  ASSERT_TRUE(daemon->Signal(SIGHUP));
  EXPECT_TRUE(WaitFor([&] { return reloads("success") == 1.0; }));
  EXPECT_EQ(reloads("failure"), 1.0);

  ASSERT_TRUE(daemon->Signal(SIGTERM));
  const auto status = daemon->WaitForExit(kWaitTimeout);
  EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
}

// SIGHUP with a valid file: the sink's new URL gets the events buffered while
// the old one failed, and the process keeps running.
TEST_F(BinaryTest, SighupMovesASinkToItsNewUrlKeepingBufferedEvents) {
  server_.SetDefaultBehavior(Respond{.status = 503});
  TestHttpServer fixed;
  const std::string config = Config(SinkConfigYaml(""));
  auto daemon = Run({"--config", config, "--grpc-port", "0", "--port-file", port_path()});
  const std::optional<int> port = WaitForPortFile(*daemon, kWaitTimeout);
  ASSERT_TRUE(port.has_value()) << DescribeStatus(daemon->WaitForExit(milliseconds(0)));
  auto stub = ClientFor(*port);
  AddEventsRequest request;
  for (const RayEvent& event : TaskLifecycleEvents(10, "hup")) {
    *request.mutable_events_data()->add_events() = event;
  }
  ASSERT_TRUE(AddEvents(*stub, request).ok());
  ASSERT_TRUE(server_.WaitForRequests(1, kWaitTimeout));

  std::string yaml = ReadWholeFile(config);
  yaml.replace(yaml.find(server_.Url("/ray/events")), server_.Url("/ray/events").size(),
               fixed.Url("/moved"));
  WriteWholeFile(config, yaml);
  ASSERT_TRUE(daemon->Signal(SIGHUP));
  EXPECT_TRUE(WaitForElements(fixed, 10));
  EXPECT_TRUE(daemon->Running());
  ASSERT_TRUE(daemon->Signal(SIGTERM));
  const auto status = daemon->WaitForExit(kWaitTimeout);
  EXPECT_TRUE(ExitedWith(status, 0)) << DescribeStatus(status);
}

}  // namespace
}  // namespace rayagg::test
