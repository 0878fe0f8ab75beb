// HTTP JSON ingest of the whole daemon, driven over real loopback sockets:
// what Ray's agent POSTs goes in, the sinks' JSON comes out of a real HTTP
// endpoint.

#include <gtest/gtest.h>
#include <zlib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "http/http_client.h"
#include "support/daemon_fixture.h"
#include "support/json_compare.h"
#include "support/prometheus_text.h"
#include "support/raw_http_client.h"
#include "support/run_coroutine.h"
#include "support/sample_events.h"

namespace rayagg::test {
namespace {

using nlohmann::json;

constexpr std::chrono::milliseconds kPostTimeout{10'000};

Config HttpIngestConfig(std::vector<SinkConfig> sinks) {
  Config config = TestConfig(std::move(sinks));
  config.http_ingest.enabled = true;
  config.http_ingest.port = 0;
  // Output must equal input event for event, not merged.
  config.buffer.coalesce = false;
  return config;
}

SinkConfig SnakeCaseSink(std::string url) {
  SinkConfig sink = FastHttpSink(std::move(url), "snake");
  sink.preserve_proto_field_names = true;
  return sink;
}

// POSTs through our own HTTP client (a real TCP connection).
HttpResult Post(int port, std::string body, HttpHeaders headers = {},
                std::string_view path = "/v1/events") {
  asio::io_context io;
  auto url = ParseUrl("http://127.0.0.1:" + std::to_string(port) + std::string(path));
  EXPECT_TRUE(url.ok()) << url.status();
  HttpClient client(io.get_executor(), *url, kPostTimeout);
  return RunCoroutine(io, client.Post(std::move(body), std::move(headers)));
}

constexpr int kGzipFormat = 15 + 16;
constexpr int kZlibFormat = 15;  // HTTP's "deflate"

std::string Gzip(std::string_view data, int window_bits = kGzipFormat) {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, data.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// The bodies a server received, as sent (the sink's own JSON text).
std::vector<std::string> Bodies(const TestHttpServer& server) {
  std::vector<std::string> bodies;
  for (const auto& request : server.Requests()) bodies.push_back(request.body);
  return bodies;
}

class HttpIngestTest : public DaemonTest {
 protected:
  const IngestCounters& counters() { return harness().daemon().ingest_counters(); }
  int http_port() { return harness().daemon().http_port(); }
};

// The sinks' JSON for every event type and every field, in both key styles,
// POSTed back in, comes out of both sinks identical to what the gRPC path
// produced for the same events.
TEST_F(HttpIngestTest, SinkJsonOfEveryTypeRoundTripsInBothKeyStyles) {
  const std::vector<RayEvent> events = EventsSettingEveryField();
  TestHttpServer grpc_camel, grpc_snake;
  {
    DaemonHarness via_grpc(
        HttpIngestConfig({FastHttpSink(grpc_camel.Url("/")), SnakeCaseSink(grpc_snake.Url("/"))}));
    ASSERT_TRUE(via_grpc.start_status().ok()) << via_grpc.start_status();
    ASSERT_TRUE(via_grpc.AddEvents(events).ok());
    ASSERT_TRUE(WaitForElements(grpc_camel, events.size()));
    ASSERT_TRUE(WaitForElements(grpc_snake, events.size()));
  }
  const std::vector<json> expected_camel = ElementsOf(grpc_camel.Requests());
  const std::vector<json> expected_snake = ElementsOf(grpc_snake.Requests());
  ASSERT_EQ(expected_camel.size(), events.size());

  for (const TestHttpServer* source : {&grpc_camel, &grpc_snake}) {
    SCOPED_TRACE(source == &grpc_camel ? "POSTing camelCase" : "POSTing snake_case");
    TestHttpServer camel, snake;
    DaemonHarness via_http(
        HttpIngestConfig({FastHttpSink(camel.Url("/")), SnakeCaseSink(snake.Url("/"))}));
    ASSERT_TRUE(via_http.start_status().ok()) << via_http.start_status();
    for (const std::string& body : Bodies(*source)) {
      const HttpResult result = Post(via_http.daemon().http_port(), body);
      ASSERT_FALSE(result.error) << result.error.message();
      ASSERT_EQ(result.response.status, 200u) << result.response.body;
      EXPECT_EQ(json::parse(result.response.body)["rejected"], json::array());
    }
    ASSERT_TRUE(WaitForElements(camel, events.size()));
    ASSERT_TRUE(WaitForElements(snake, events.size()));
    // Exact equality of parsed values (same key sets, same strings, same numbers).
    EXPECT_EQ(ElementsOf(camel.Requests()), expected_camel);
    EXPECT_EQ(ElementsOf(snake.Requests()), expected_snake);
    EXPECT_EQ(via_http.daemon().ingest_counters().accepted_events.load(), events.size());
  }
}

// Byte for byte what Ray's agent sends (Python json.dumps: ASCII escapes,
// surrogate pairs, ", " and ": " separators; aiohttp's headers), one element
// in lowerCamelCase, one in snake_case (..._PRESERVE_PROTO_FIELD_NAME=1).
constexpr std::string_view kRayAgentBody =
    R"([{"eventId": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==", "sourceType": "CORE_WORKER", )"
    R"("eventType": "TASK_DEFINITION_EVENT", "timestamp": "2025-06-30T16:50:30.130457542Z", )"
    R"("severity": "INFO", "sessionName": "session_2025-06-30_16-50-00_000000_1", )"
    R"("taskDefinitionEvent": {"taskId": "yO9FzNARJXH///////////////8BAAAA", "taskAttempt": 0, )"
    R"("taskType": "NORMAL_TASK", "language": "PYTHON", "taskFunc": {"pythonFunctionDescriptor": )"
    R"({"moduleName": "__main__", "className": "", "functionName": "caf\u00e9_\ud83d\ude00", )"
    R"("functionHash": "abc"}}, "taskName": "caf\u00e9_\ud83d\ude00", "requiredResources": )"
    R"({"CPU": 1.0, "GPU": 0.0}, "jobId": "AQAAAA==", "parentTaskId": "", "placementGroupId": "", )"
    R"("refIds": {}, "serializedRuntimeEnv": "{}", "labelSelector": {}, "isDetachedActor": false}, )"
    R"("message": "", "nodeId": "", "sourceHostname": "", "sourcePid": 0}, )"
    R"({"event_id": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaHA==", "source_type": "CORE_WORKER", )"
    R"("event_type": "TASK_LIFECYCLE_EVENT", "timestamp": "2025-06-30T16:50:31Z", "severity": "INFO", )"
    R"("session_name": "session_2025-06-30_16-50-00_000000_1", "task_lifecycle_event": )"
    R"({"task_id": "yO9FzNARJXH///////////////8BAAAA", "task_attempt": 0, "state_transitions": )"
    R"([{"state": "PENDING_NODE_ASSIGNMENT", "timestamp": "2025-06-30T16:50:30.500Z"}, )"
    R"({"state": "RUNNING", "timestamp": "2025-06-30T16:50:31.000001Z"}], "node_id": "", )"
    R"("worker_id": "", "worker_pid": 4242, "job_id": "AQAAAA=="}, "message": )"
    R"("line\n\"quoted\" \u00fc", "node_id": "", "source_hostname": "h\u00f6st", "source_pid": 0}])";

TEST_F(HttpIngestTest, AcceptsTheExactRequestOfRaysAgent) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(HttpIngestConfig({FastHttpSink(server_.Url("/"))})));
  const std::string body(kRayAgentBody);
  RawHttpClient agent(static_cast<uint16_t>(http_port()));
  agent.Send(
      "POST /v1/events HTTP/1.1\r\n"
      "Host: 127.0.0.1:8084\r\n"
      "Accept: */*\r\n"
      "Accept-Encoding: gzip, deflate\r\n"
      "User-Agent: Python/3.11 aiohttp/3.9.5\r\n"
      "Content-Length: " +
      std::to_string(body.size()) +
      "\r\n"
      "Content-Type: application/json\r\n\r\n" +
      body);
  const auto response = agent.Read();
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  EXPECT_EQ(json::parse(response.body()), json::parse(R"({"accepted": 2, "rejected": []})"));
  EXPECT_TRUE(response.keep_alive());  // aiohttp reuses its connection

  ASSERT_TRUE(WaitForElements(server_, 2));
  const std::vector<json> out = ElementsOf(server_.Requests());
  ASSERT_EQ(out.size(), 2u);
  const json sent = json::parse(body);
  // The camelCase element comes out exactly as Ray printed it (numbers compare by value).
  EXPECT_TRUE(JsonEquivalent(out[0], sent[0]));
  EXPECT_EQ(out[0]["taskDefinitionEvent"]["taskName"], "caf\xc3\xa9_\xf0\x9f\x98\x80");
  // The snake_case element is re-keyed, values intact.
  EXPECT_EQ(out[1]["eventId"], "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaHA==");
  EXPECT_EQ(out[1]["message"], "line\n\"quoted\" \xc3\xbc");
  EXPECT_EQ(out[1]["sourceHostname"], "h\xc3\xb6st");
  EXPECT_EQ(out[1]["taskLifecycleEvent"]["workerPid"], 4242);
  EXPECT_EQ(out[1]["taskLifecycleEvent"]["stateTransitions"],
            sent[1]["task_lifecycle_event"]["state_transitions"]);
  EXPECT_EQ(counters().http_requests.load(), 1u);
  EXPECT_EQ(counters().accepted_events.load(), 2u);
}

TEST_F(HttpIngestTest, BadElementsAreDroppedCountedAndListed) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(HttpIngestConfig({FastHttpSink(server_.Url("/"))})));
  const RayEvent good = TaskLifecycleEvent("good", 0);
  const std::string body =
      "[" + ProtobufPrinterJson(good) + ", " +
      R"({"eventId": "AQ==", "eventType": "EVENT_FROM_RAY_3"}, )"
      R"({"eventId": "Ag==", "eventType": "TASK_LIFECYCLE_EVENT", "taskLifecycleEvent": )"
      R"({"stateTransitions": [{"state": "TELEPORTING"}]}}, )"
      R"({"eventId": "%%%", "eventType": "NODE_DEFINITION_EVENT"}, )"
      R"({"eventId": "Aw==", "eventType": "ACTOR_DEFINITION_EVENT", "sourcePid": "many"}, )"
      R"("not an object", )"
      R"({"eventId": "BA==", "eventType": "NODE_LIFECYCLE_EVENT", "fieldFromTheFuture": 1}])";

  const HttpResult result = Post(http_port(), body);

  ASSERT_FALSE(result.error) << result.error.message();
  ASSERT_EQ(result.response.status, 200u) << result.response.body;
  const json answer = json::parse(result.response.body);
  EXPECT_EQ(answer["accepted"], 2);
  const json& rejected = answer["rejected"];
  ASSERT_EQ(rejected.size(), 5u) << answer.dump();
  const std::vector<int> indices = {1, 2, 3, 4, 5};
  for (size_t i = 0; i < indices.size(); ++i) EXPECT_EQ(rejected[i]["index"], indices[i]);
  EXPECT_EQ(rejected[0]["reason"], "eventType: unknown EventType value \"EVENT_FROM_RAY_3\"");
  EXPECT_EQ(
      rejected[1]["reason"],
      "taskLifecycleEvent.stateTransitions[0].state: unknown TaskStatus value \"TELEPORTING\"");
  EXPECT_EQ(rejected[2]["reason"], "eventId: invalid base64");
  EXPECT_EQ(rejected[3]["reason"], "sourcePid: expected a 32-bit integer, got a string");
  EXPECT_EQ(rejected[4]["reason"], "expected an object, got a string");

  const auto drops = counters().drops.Snapshot();
  using Key = DropCounters::Key;
  EXPECT_EQ(counters().drops.Total(DropReason::kBadElement), 5u);
  EXPECT_EQ(drops.at(Key{DropReason::kBadElement, 0}), 2u);  // unknown type, not an object
  EXPECT_EQ(drops.at(Key{DropReason::kBadElement, RayEvent::TASK_LIFECYCLE_EVENT}), 1u);
  EXPECT_EQ(drops.at(Key{DropReason::kBadElement, RayEvent::NODE_DEFINITION_EVENT}), 1u);
  EXPECT_EQ(drops.at(Key{DropReason::kBadElement, RayEvent::ACTOR_DEFINITION_EVENT}), 1u);

  // The good ones went through (the unknown field ignored).
  ASSERT_TRUE(WaitForElements(server_, 2));
  const std::vector<json> out = ElementsOf(server_.Requests());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(JsonEquivalent(out[0], json::parse(ProtobufPrinterJson(good))));
  EXPECT_EQ(out[1]["eventId"], "BA==");
  EXPECT_FALSE(out[1].contains("fieldFromTheFuture"));
  EXPECT_EQ(counters().received_events.load(), 7u);
  EXPECT_EQ(counters().accepted_events.load(), 2u);
}

TEST_F(HttpIngestTest, GzipAndDeflateBodies) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(HttpIngestConfig({FastHttpSink(server_.Url("/"))})));
  const std::vector<RayEvent> events = TaskLifecycleEvents(50, "gzip");
  std::string body = "[";
  for (const RayEvent& event : events) {
    if (body.size() > 1) body += ", ";
    body += ProtobufPrinterJson(event);
  }
  body += "]";

  const HttpResult gzipped = Post(http_port(), Gzip(body), {{"Content-Encoding", "gzip"}});
  ASSERT_FALSE(gzipped.error) << gzipped.error.message();
  EXPECT_EQ(gzipped.response.status, 200u) << gzipped.response.body;
  EXPECT_EQ(json::parse(gzipped.response.body)["accepted"], events.size());

  const HttpResult deflated =
      Post(http_port(), Gzip(body, kZlibFormat), {{"Content-Encoding", "deflate"}});
  ASSERT_FALSE(deflated.error) << deflated.error.message();
  EXPECT_EQ(deflated.response.status, 200u) << deflated.response.body;
  // The same events again: accepted, then dropped as duplicates by the log.
  EXPECT_EQ(json::parse(deflated.response.body)["accepted"], events.size());

  const HttpResult corrupt = Post(http_port(), "not gzip", {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(corrupt.response.status, 400u);
  const HttpResult unknown = Post(http_port(), body, {{"Content-Encoding", "br"}});
  EXPECT_EQ(unknown.response.status, 415u);

  ASSERT_TRUE(WaitForElements(server_, events.size()));
  const std::vector<json> out = ElementsOf(server_.Requests());
  ASSERT_EQ(out.size(), events.size());
  EXPECT_EQ(out.front()["eventId"], JsonEventId(events.front()));
  EXPECT_EQ(out.back()["eventId"], JsonEventId(events.back()));
}

TEST_F(HttpIngestTest, AnswersTheHttpErrorsWhereTheyApply) {
  Config config = HttpIngestConfig({FastHttpSink(server_.Url("/"))});
  config.http_ingest.max_body_bytes = 4096;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));

  EXPECT_EQ(Post(http_port(), R"({"eventId": "AQ=="})").response.status, 400u);
  EXPECT_EQ(Post(http_port(), "[{").response.status, 400u);
  EXPECT_EQ(Post(http_port(), "").response.status, 400u);
  EXPECT_EQ(Post(http_port(), "[]", {}, "/v1/other").response.status, 404u);
  EXPECT_EQ(Post(http_port(), "[" + std::string(8192, ' ') + "]").response.status, 413u);
  // A small gzip body that decodes to more than the limit.
  EXPECT_EQ(Post(http_port(), Gzip("[" + std::string(64 * 1024, ' ') + "]"),
                 {{"Content-Encoding", "gzip"}})
                .response.status,
            413u);
  RawHttpClient browser(static_cast<uint16_t>(http_port()));
  browser.Send("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto get = browser.Read();
  EXPECT_EQ(get.result_int(), 405u);
  EXPECT_EQ(get[http::field::allow], "POST");

  // Three 400s and the decoded 413; the 413 for the raw body comes from the
  // server before the handler runs.
  EXPECT_EQ(counters().rejected_requests.load(), 4u);
  EXPECT_EQ(harness().daemon().buffer_snapshot().appended_events, 0u);
  // Still serving.
  EXPECT_EQ(Post(http_port(), "[]").response.status, 200u);
}

// A web page may POST these content types to any origin without a CORS
// preflight (an HTML form, or fetch() with a "simple" request), so a page
// open on the machine could reach the loopback listener: refused with 415
// before anything is parsed, counted, nothing appended. Ray's
// application/json, no Content-Type at all, and any other type go through
// as before.
TEST_F(HttpIngestTest, RefusesTheContentTypesAWebPageMaySendCrossSite) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(HttpIngestConfig({FastHttpSink(server_.Url("/"))})));
  const RayEvent event = TaskLifecycleEvent("forged", 0);
  const std::string body = "[" + ProtobufPrinterJson(event) + "]";
  const std::vector<std::string> forgeable = {"text/plain",
                                              "text/plain;charset=UTF-8",
                                              "TEXT/PLAIN",
                                              "Text/Plain ; charset=utf-8",
                                              "application/x-www-form-urlencoded",
                                              "Application/X-WWW-Form-URLEncoded; charset=utf-8",
                                              "multipart/form-data; boundary=----x",
                                              "multipart/form-data"};
  for (const std::string& type : forgeable) {
    const HttpResult result = Post(http_port(), body, {{"Content-Type", type}});
    ASSERT_FALSE(result.error) << type << ": " << result.error.message();
    EXPECT_EQ(result.response.status, 415u) << type << ": " << result.response.body;
    EXPECT_NE(result.response.body.find("application/json"), std::string::npos);
  }
  EXPECT_EQ(counters().unsupported_content_type_requests.load(), forgeable.size());
  EXPECT_EQ(counters().rejected_requests.load(), 0u);
  EXPECT_EQ(counters().received_events.load(), 0u);
  EXPECT_EQ(harness().daemon().buffer_snapshot().appended_events, 0u);
  absl::StatusOr<PrometheusPage> page = ParsePrometheusText(harness().daemon().RenderMetricsPage());
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(
      page->Value("rayagg_ingest_requests_rejected_total", {{"reason", "unsupported_content_type"}})
          .value_or(-1),
      static_cast<double>(forgeable.size()));

  // Ray's publishers send application/json; other senders may send none,
  // or another type: all accepted as before.
  for (const std::string type :
       {"application/json", "application/json; charset=utf-8", "APPLICATION/JSON",
        "application/octet-stream", "text/plainx", "text/html"}) {
    const HttpResult result = Post(http_port(), body, {{"Content-Type", type}});
    ASSERT_FALSE(result.error) << type << ": " << result.error.message();
    EXPECT_EQ(result.response.status, 200u) << type << ": " << result.response.body;
  }
  RawHttpClient sender(static_cast<uint16_t>(http_port()));
  sender.Send("POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
              std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(sender.Read().result_int(), 200u);
  EXPECT_EQ(counters().accepted_events.load(), 7u);
  EXPECT_EQ(counters().unsupported_content_type_requests.load(), forgeable.size());
  // The same event seven times: delivered once (dedup).
  ASSERT_TRUE(WaitForElements(server_, 1));
  EXPECT_EQ(ElementsOf(server_.Requests()).front()["eventId"], JsonEventId(event));
}

// http_ingest.bearer_token_file (here the token it loaded): a request
// without the right token gets 401 before its body is read and never
// reaches the handler; each refusal is counted; the token is in no metric.
TEST_F(HttpIngestTest, BearerTokenIsRequiredWhenConfigured) {
  Config config = HttpIngestConfig({FastHttpSink(server_.Url("/"))});
  config.http_ingest.bearer_token_file = "/run/secrets/ingest-token";
  config.http_ingest.bearer_token = "canary-ingest-7f3a";
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  const std::string body(kRayAgentBody);

  EXPECT_EQ(Post(http_port(), body).response.status, 401u);
  EXPECT_EQ(
      Post(http_port(), body, {{"Authorization", "Bearer canary-ingest-7f3"}}).response.status,
      401u);
  EXPECT_EQ(
      Post(http_port(), body, {{"Authorization", "Bearer canary-ingest-7f3a"}}).response.status,
      200u);
  EXPECT_EQ(counters().http_requests.load(), 1u);
  EXPECT_EQ(counters().accepted_events.load(), 2u);
  const std::string page = harness().daemon().RenderMetricsPage();
  absl::StatusOr<PrometheusPage> parsed = ParsePrometheusText(page);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<double> unauthorized = parsed->Value(
      "rayagg_http_server_errors_total", {{"listener", "http_ingest"}, {"reason", "unauthorized"}});
  ASSERT_TRUE(unauthorized.ok()) << unauthorized.status();
  EXPECT_EQ(*unauthorized, 2);
  EXPECT_EQ(page.find("canary-ingest"), std::string::npos);
}

// Ray's token mode is for gRPC: Ray's HTTP publisher sends no Authorization
// header, so RAY_AUTH_MODE=token must not lock it out of HTTP ingest.
TEST_F(HttpIngestTest, RaysAuthModeDoesNotApplyToHttpIngest) {
  Config config = HttpIngestConfig({FastHttpSink(server_.Url("/"))});
  config.ingest_auth = IngestAuthConfig{.token_required = true, .token = "ray-token"};
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));
  EXPECT_EQ(Post(http_port(), std::string(kRayAgentBody)).response.status, 200u);
}

// A sender posting bad requests or bad elements in a loop (Ray's agent
// retries forever) gets one warning per 10 s each, as gRPC ingest does;
// every request is still counted. The daemon runs on the manual clock, so
// "10 s" is exactly when the test says.
TEST_F(HttpIngestTest, WarningsAboutBadInputAreRateLimited) {
  ASSERT_NO_FATAL_FAILURE(
      StartDaemon(HttpIngestConfig({FastHttpSink(server_.Url("/"))}), &manual_clock_));
  const auto post_bad_input = [this] {
    ASSERT_EQ(Post(http_port(), "[{").response.status, 400u);
    ASSERT_EQ(
        Post(http_port(), R"([{"eventId": "AQ==", "eventType": "NOT_A_TYPE"}])").response.status,
        200u);
  };
  constexpr int kRepeats = 20;
  for (int i = 0; i < kRepeats; ++i) ASSERT_NO_FATAL_FAILURE(post_bad_input());
  EXPECT_EQ(counters().rejected_requests.load(), static_cast<uint64_t>(kRepeats));
  EXPECT_EQ(counters().drops.Total(DropReason::kBadElement), static_cast<uint64_t>(kRepeats));
  EXPECT_EQ(harness().CountRecentLogLines("rejected HTTP ingest request"), 1u);
  EXPECT_EQ(harness().CountRecentLogLines("as bad_element"), 1u);

  manual_clock_.Advance(std::chrono::seconds(10) - std::chrono::nanoseconds(1));
  ASSERT_NO_FATAL_FAILURE(post_bad_input());
  EXPECT_EQ(harness().CountRecentLogLines("rejected HTTP ingest request"), 1u);
  EXPECT_EQ(harness().CountRecentLogLines("as bad_element"), 1u);

  manual_clock_.Advance(std::chrono::nanoseconds(1));
  ASSERT_NO_FATAL_FAILURE(post_bad_input());
  EXPECT_EQ(harness().CountRecentLogLines("rejected HTTP ingest request"), 2u);
  EXPECT_EQ(harness().CountRecentLogLines("as bad_element"), 2u);
}

TEST_F(HttpIngestTest, DuplicatesAcrossGrpcAndHttpAreDeliveredOnce) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(HttpIngestConfig({FastHttpSink(server_.Url("/"))})));
  const RayEvent event = TaskDefinitionEvent("twice", 0);
  ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{event}).ok());
  const HttpResult result = Post(http_port(), "[" + ProtobufPrinterJson(event) + "]");
  ASSERT_EQ(result.response.status, 200u);
  EXPECT_TRUE(
      WaitFor([&] { return harness().daemon().buffer_snapshot().deduplicated_events == 1; }));
  ASSERT_TRUE(WaitForElements(server_, 1));
  EXPECT_EQ(ElementsOf(server_.Requests()).size(), 1u);
}

TEST_F(HttpIngestTest, DisabledByDefault) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url("/"))})));
  EXPECT_EQ(http_port(), 0);
}

}  // namespace
}  // namespace rayagg::test
