// What reaches an HTTP endpoint: every event type, as protobuf's JSON printer
// prints it (what Ray's agent posts), through the configured filters, in
// batches bounded by count and bytes, in order, as POSTs to the URL verbatim.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/daemon_fixture.h"
#include "support/json_compare.h"
#include "support/sample_events.h"

namespace rayagg::test {
namespace {

// Event type names as the JSON prints them, for readable failures.
std::string TypeName(int type) {
  return RayEvent::EventType_Name(static_cast<RayEvent::EventType>(type));
}

std::set<std::string> TypeNames(const std::set<int>& types) {
  std::set<std::string> names;
  for (int type : types) names.insert(TypeName(type));
  return names;
}

// The "eventType" (or "event_type") values of `elements`, as printed.
std::set<std::string> ReceivedTypeNames(const std::vector<nlohmann::json>& elements) {
  std::set<std::string> names;
  for (const auto& element : elements) {
    const auto it =
        element.contains("eventType") ? element.find("eventType") : element.find("event_type");
    if (it != element.end()) names.insert(it->is_string() ? it->get<std::string>() : it->dump());
  }
  return names;
}

// Task ids of TaskLifecycleEvents in element order.
std::vector<std::string> TaskIds(const std::vector<nlohmann::json>& elements) {
  std::vector<std::string> ids;
  for (const auto& element : elements) {
    ids.push_back(element.at("taskLifecycleEvent").at("taskId").get<std::string>());
  }
  return ids;
}

std::vector<std::string> ExpectedTaskIds(const std::vector<RayEvent>& events) {
  std::vector<std::string> ids;
  for (const auto& event : events) {
    // bytes print as base64; compare what the printer makes of them.
    ids.push_back(ParseJson(ProtobufPrinterJson(event))
                      .at("taskLifecycleEvent")
                      .at("taskId")
                      .get<std::string>());
  }
  return ids;
}

class DeliveryTest : public DaemonTest {};

class EveryEventTypeTest : public DaemonTest, public ::testing::WithParamInterface<bool> {};

TEST_P(EveryEventTypeTest, ArrivesExactlyAsProtobufPrintsIt) {
  const bool preserve_proto_field_names = GetParam();
  SinkConfig sink = FastHttpSink(server_.Url("/events"));
  sink.preserve_proto_field_names = preserve_proto_field_names;
  // This test is about encoding each event exactly; the samples share task
  // ids, so with coalescing they could arrive merged (COALESCING.md).
  Config config = TestConfig({sink});
  config.buffer.coalesce = false;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(config));

  // Every type 1..20, plus the other oneof members: every field is set
  // somewhere; then every type again with its payload empty, where the
  // fields print only because of always_print_primitive_fields.
  std::vector<RayEvent> events = EventsSettingEveryField();
  for (RayEvent& event : MinimalEventOfEveryType()) events.push_back(std::move(event));
  const grpc::Status status = harness().AddEvents(events);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(WaitForElements(server_, events.size()));

  std::map<std::string, std::string> expected_by_id;
  for (const RayEvent& event : events) {
    expected_by_id[JsonEventId(event)] = ProtobufPrinterJson(event, preserve_proto_field_names);
  }
  ASSERT_EQ(expected_by_id.size(), events.size()) << "sample event ids must be distinct";

  const std::vector<nlohmann::json> elements = ElementsOf(server_.Requests());
  ASSERT_EQ(elements.size(), events.size());
  std::set<int> types;
  for (size_t i = 0; i < elements.size(); ++i) {
    // One sink keeps the order of one request.
    EXPECT_EQ(EventIdOf(elements[i]), JsonEventId(events[i])) << "element " << i;
    const auto expected = expected_by_id.find(EventIdOf(elements[i]));
    ASSERT_NE(expected, expected_by_id.end()) << elements[i].dump();
    EXPECT_TRUE(JsonEquivalent(elements[i], ParseJson(expected->second)))
        << "element " << i << " type " << TypeName(events[i].event_type());
    types.insert(events[i].event_type());
  }
  EXPECT_EQ(types.size(), 20u);
  // The empty payloads really print their default fields (no vacuous check).
  const nlohmann::json& minimal_task_lifecycle = elements[elements.size() - 19];
  EXPECT_EQ(minimal_task_lifecycle
                .at(preserve_proto_field_names ? "task_lifecycle_event" : "taskLifecycleEvent")
                .at(preserve_proto_field_names ? "task_attempt" : "taskAttempt"),
            0)
      << minimal_task_lifecycle.dump();
  // The key style is the one asked for, visibly (not just equal to the oracle).
  const char* id_key = preserve_proto_field_names ? "event_id" : "eventId";
  EXPECT_TRUE(elements.front().contains(id_key)) << elements.front().dump();
}

INSTANTIATE_TEST_SUITE_P(KeyStyles, EveryEventTypeTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& test) {
                           return test.param ? "PreservedProtoNames" : "LowerCamelCase";
                         });

TEST_F(DeliveryTest, PostsJsonToTheUrlPathVerbatim) {
  const std::string path = "/api/v1/ray-events?cluster=test&x=%2F";
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({FastHttpSink(server_.Url(path))})));
  ASSERT_TRUE(harness().AddEvents(TaskLifecycleEvents(2)).ok());
  ASSERT_TRUE(WaitForElements(server_, 2));

  for (const ReceivedRequest& request : server_.Requests()) {
    EXPECT_EQ(request.method, "POST");
    EXPECT_EQ(request.target, path);
    EXPECT_EQ(request.Header("Content-Type"), "application/json");
    EXPECT_EQ(request.Header("Host"), "127.0.0.1:" + std::to_string(server_.port()));
  }
}

TEST_F(DeliveryTest, DefaultFilterExportsOnlyRaysExposableTypes) {
  SinkConfig sink = FastHttpSink(server_.Url("/events"));
  sink.event_types = EventTypeFilter::RayDefault();
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  ASSERT_TRUE(harness().AddEvents(OneEventOfEveryType()).ok());
  // Sent last and accepted by the filter: once it is in, every event of the
  // first request that was going to be delivered has been.
  const RayEvent sentinel = TaskLifecycleEvent("sentinel", 0);
  ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{sentinel}).ok());
  ASSERT_TRUE(WaitForEvent(server_, sentinel));

  std::vector<nlohmann::json> elements = ElementsOf(server_.Requests());
  ASSERT_FALSE(elements.empty());
  EXPECT_EQ(EventIdOf(elements.back()), JsonEventId(sentinel));
  elements.pop_back();
  // Never profile, placement-group, submission-job or autoscaler events.
  EXPECT_EQ(ReceivedTypeNames(elements), TypeNames({1, 2, 3, 5, 6, 7, 8, 9, 10, 15, 16, 17}));
  EXPECT_EQ(elements.size(), 12u);
  // Filtered-out events are not drops.
  EXPECT_EQ(harness().sink(0).drops().Total(), 0u);
}

TEST_F(DeliveryTest, EachSinkGetsTheTypesOfItsOwnFilter) {
  TestHttpServer& other = AddServer();
  SinkConfig tasks = FastHttpSink(server_.Url("/tasks"), "tasks");
  tasks.event_types = EventTypeFilter::Of({1, 2});
  SinkConfig nodes = FastHttpSink(other.Url("/nodes"), "nodes");
  nodes.event_types = EventTypeFilter::Of({4, 7, 8});
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({tasks, nodes})));

  ASSERT_TRUE(harness().AddEvents(OneEventOfEveryType()).ok());
  // One sentinel per sink, each accepted by that sink's filter only.
  const RayEvent task_sentinel = TaskLifecycleEvent("sentinel", 0);
  RayEvent node_sentinel = OneEventOfEveryType()[6];  // NODE_DEFINITION_EVENT
  ASSERT_EQ(node_sentinel.event_type(), RayEvent::NODE_DEFINITION_EVENT);
  // Another node: the same one's definition would coalesce into the first
  // (keeping that one's event_id) whenever the sink has not read it yet.
  node_sentinel.mutable_node_definition_event()->set_node_id("sentinel-node");
  ASSERT_TRUE(harness().AddEvents(std::vector<RayEvent>{task_sentinel, node_sentinel}).ok());
  ASSERT_TRUE(WaitForEvent(server_, task_sentinel));
  ASSERT_TRUE(WaitForEvent(other, node_sentinel));

  const auto task_elements = ElementsOf(server_.Requests());
  const auto node_elements = ElementsOf(other.Requests());
  EXPECT_EQ(ReceivedTypeNames(task_elements), TypeNames({1, 2}));
  EXPECT_EQ(task_elements.size(), 3u);  // definition, lifecycle, sentinel
  EXPECT_EQ(ReceivedTypeNames(node_elements), TypeNames({4, 7, 8}));
  EXPECT_EQ(node_elements.size(), 4u);  // profile, node definition, node lifecycle, sentinel
  for (const auto& request : server_.Requests()) EXPECT_EQ(request.target, "/tasks");
  for (const auto& request : other.Requests()) EXPECT_EQ(request.target, "/nodes");
}

TEST_F(DeliveryTest, BatchesHoldAtMostMaxEventsAndKeepTheOrder) {
  SinkConfig sink = FastHttpSink(server_.Url("/events"));
  sink.batch.max_events = 1000;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  const std::vector<RayEvent> events = TaskLifecycleEvents(2500, "ordered");
  // Several requests, so batching does not simply mirror one request.
  for (size_t first = 0; first < events.size(); first += 500) {
    const std::span<const RayEvent> chunk(events.data() + first, 500);
    const grpc::Status status = harness().AddEvents(chunk);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_TRUE(WaitForElements(server_, events.size()));

  const std::vector<ReceivedRequest> requests = server_.Requests();
  EXPECT_GE(requests.size(), 3u);
  for (const ReceivedRequest& request : requests) {
    const size_t count = ElementCount(request.body);
    EXPECT_GE(count, 1u) << "never an empty array: " << request.body.substr(0, 100);
    EXPECT_LE(count, 1000u);
  }
  EXPECT_EQ(TaskIds(ElementsOf(requests)), ExpectedTaskIds(events));
  // The counter follows the response the server sends after recording.
  EXPECT_TRUE(
      WaitFor([&] { return harness().sink(0).counters().sent_batches.load() == requests.size(); }));
}

TEST_F(DeliveryTest, BodiesStayWithinMaxBytes) {
  constexpr uint64_t kMaxBytes = 2048;
  SinkConfig sink = FastHttpSink(server_.Url("/events"));
  sink.batch.max_bytes = kMaxBytes;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  const std::vector<RayEvent> events = TaskLifecycleEvents(60, "sized");
  ASSERT_LT(ProtobufPrinterJson(events[0]).size() * 3, kMaxBytes) << "several fit one body";
  ASSERT_GT(ProtobufPrinterJson(events[0]).size() * events.size(), kMaxBytes * 3);
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitForElements(server_, events.size()));

  const std::vector<ReceivedRequest> requests = server_.Requests();
  EXPECT_GE(requests.size(), 4u);
  for (const ReceivedRequest& request : requests) {
    EXPECT_LE(request.body.size(), kMaxBytes);
    EXPECT_GE(ElementCount(request.body), 1u);
  }
  EXPECT_EQ(TaskIds(ElementsOf(requests)), ExpectedTaskIds(events));
  EXPECT_EQ(harness().sink(0).drops().Total(), 0u);
}

TEST_F(DeliveryTest, EventLargerThanMaxBytesIsDroppedAndCountedOthersArrive) {
  constexpr uint64_t kMaxBytes = 2048;
  SinkConfig sink = FastHttpSink(server_.Url("/events"));
  sink.batch.max_bytes = kMaxBytes;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  std::vector<RayEvent> events = TaskLifecycleEvents(3, "around-a-giant");
  RayEvent giant = TaskDefinitionEvent("giant", 0);
  giant.set_message(std::string(kMaxBytes, 'g'));
  events.insert(events.begin() + 1, giant);
  ASSERT_TRUE(harness().AddEvents(events).ok());
  ASSERT_TRUE(WaitForElements(server_, 3));

  events.erase(events.begin() + 1);
  EXPECT_EQ(TaskIds(ElementsOf(server_.Requests())), ExpectedTaskIds(events));
  EXPECT_TRUE(WaitFor([&] { return harness().sink(0).drops().Total() == 1; }));
  const auto drops = harness().sink(0).drops().Snapshot();
  EXPECT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops.count({DropReason::kTooLarge, RayEvent::TASK_DEFINITION_EVENT}), 1u);
}

TEST_F(DeliveryTest, FileSinkAppendsOneJsonArrayPerLine) {
  char dir_template[] = "/tmp/rayagg-file-sink-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string path = std::string(dir_template) + "/events.jsonl";
  SinkConfig sink = FastHttpSink("file://" + path);
  sink.batch.max_events = 4;
  ASSERT_NO_FATAL_FAILURE(StartDaemon(TestConfig({sink})));

  const std::vector<RayEvent> events = OneEventOfEveryType();
  ASSERT_TRUE(harness().AddEvents(events).ok());
  // A file has nothing to wait on; the sink's counter says when it is written.
  ASSERT_TRUE(WaitFor([&] { return harness().sink(0).counters().sent_events.load() == 20; }));
  StopDaemon();

  std::ifstream in(path);
  std::vector<nlohmann::json> elements;
  size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    for (auto& element : JsonArrayElements(line)) elements.push_back(std::move(element));
  }
  EXPECT_EQ(lines, 5u);  // 20 events, 4 per batch
  ASSERT_EQ(elements.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_TRUE(JsonEquivalent(elements[i], ParseJson(ProtobufPrinterJson(events[i]))))
        << TypeName(events[i].event_type());
  }
  std::remove(path.c_str());
  rmdir(dir_template);
}

}  // namespace
}  // namespace rayagg::test
