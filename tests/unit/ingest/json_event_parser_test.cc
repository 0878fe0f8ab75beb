// JsonToMessage against protobuf's own printer: every field of every event
// type, printed the way Ray's agent prints it (both key styles), parses back
// to the same message. Then the inputs it must accept or refuse.
#include "ingest/json_event_parser.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>

#include "support/json_compare.h"
#include "support/sample_events.h"

namespace rayagg {
namespace {

using google::protobuf::util::MessageDifferencer;
using nlohmann::json;
using ray::rpc::events::RayEvent;

absl::Status Parse(std::string_view text, RayEvent& event) {
  return JsonToMessage(json::parse(text), event);
}

TEST(JsonEventParserTest, EveryFieldOfEveryTypeRoundTripsInBothKeyStyles) {
  std::vector<RayEvent> events = test::EventsSettingEveryField();
  for (RayEvent& minimal : test::MinimalEventOfEveryType()) events.push_back(minimal);
  for (const bool snake_case : {false, true}) {
    for (const RayEvent& original : events) {
      const std::string text = test::ProtobufPrinterJson(original, snake_case);
      RayEvent parsed;
      const absl::Status status = Parse(text, parsed);
      ASSERT_TRUE(status.ok()) << status << "\n" << text;
      EXPECT_TRUE(MessageDifferencer::Equals(parsed, original))
          << "type " << original.event_type() << (snake_case ? " snake_case" : " camelCase");
    }
  }
}

TEST(JsonEventParserTest, AgreesWithProtobufParserOnSampleEvents) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  for (const RayEvent& original : test::EventsSettingEveryField()) {
    const std::string text = test::ProtobufPrinterJson(original);
    RayEvent ours, theirs;
    ASSERT_TRUE(Parse(text, ours).ok());
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(text, &theirs, options).ok());
    EXPECT_TRUE(MessageDifferencer::Equals(ours, theirs)) << text;
  }
}

TEST(JsonEventParserTest, AcceptsTheLenientFormsOfProto3Json) {
  RayEvent event;
  const absl::Status status = Parse(R"({
      "eventId": "MQ",
      "eventType": 10,
      "severity": null,
      "sourcePid": "42",
      "futureField": {"nested": [1, 2]},
      "taskLifecycleEvent": {"taskId": "-_8", "taskAttempt": 2.0,
                             "stateTransitions": [{"state": "RUNNING",
                                                   "timestamp": "2025-06-30T18:50:30.5+02:00"}]}
    })",
                                    event);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(event.event_id(), "1");                               // unpadded base64
  EXPECT_EQ(static_cast<int>(event.event_type()), 10);            // enum by number
  EXPECT_EQ(event.source_pid(), 42);                              // int as string
  EXPECT_EQ(event.task_lifecycle_event().task_id(), "\xfb\xff");  // URL-safe base64
  EXPECT_EQ(event.task_lifecycle_event().task_attempt(), 2);
  ASSERT_EQ(event.task_lifecycle_event().state_transitions_size(), 1);
  EXPECT_EQ(event.task_lifecycle_event().state_transitions(0).timestamp().seconds(), 1751302230);
  EXPECT_EQ(event.task_lifecycle_event().state_transitions(0).timestamp().nanos(), 500'000'000);
}

TEST(JsonEventParserTest, KeepsEnumNumbersUnknownToThisBuild) {
  RayEvent event;
  ASSERT_TRUE(Parse(R"({"eventType": 977})", event).ok());
  EXPECT_EQ(static_cast<int>(event.event_type()), 977);
}

TEST(JsonEventParserTest, RefusesWhatDoesNotMapAndNamesTheField) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"({"eventType": "NEWER_RAY_EVENT"})",
       "eventType: unknown EventType value \"NEWER_RAY_EVENT\""},
      {R"({"taskLifecycleEvent": {"stateTransitions": [{"state": "HIBERNATING"}]}})",
       "taskLifecycleEvent.stateTransitions[0].state: unknown TaskStatus value \"HIBERNATING\""},
      {R"({"eventId": "not base64!"})", "eventId: invalid base64"},
      {R"({"sourcePid": "x"})", "sourcePid: expected a 32-bit integer, got a string"},
      {R"({"sourcePid": 1.5})", "sourcePid: expected a 32-bit integer, got a number"},
      {R"({"sourcePid": 4294967296})", "sourcePid: expected a 32-bit integer, got a number"},
      {R"({"message": 7})", "message: expected a string, got a number"},
      {R"({"timestamp": "yesterday"})", "timestamp: invalid RFC 3339 timestamp"},
      {R"({"taskDefinitionEvent": []})", "taskDefinitionEvent: expected an object, got an array"},
      {R"({"taskDefinitionEvent": {"requiredResources": {"CPU": "lots"}}})",
       "taskDefinitionEvent.requiredResources[*]: expected a number, got a string"},
      {R"([1])", "expected an object, got an array"},
  };
  for (const Case& c : cases) {
    RayEvent event;
    const absl::Status status = Parse(c.json, event);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.json;
    EXPECT_EQ(std::string(status.message()), c.message) << c.json;
  }
}

// The one-pass SAX parser of whole bodies must agree with JsonToMessage on
// every element: same events, same errors with the same wording.
TEST(JsonEventParserTest, ArrayParserAgreesWithElementParser) {
  std::vector<std::string> elements;
  for (const bool snake_case : {false, true}) {
    for (const RayEvent& event : test::EventsSettingEveryField()) {
      elements.push_back(test::ProtobufPrinterJson(event, snake_case));
    }
  }
  for (
      const char* odd :
      {R"({"eventType": "NEWER_RAY_EVENT", "eventId": "AQ=="})",
       R"({"eventId": "AQ==", "eventType": "TASK_LIFECYCLE_EVENT", "taskLifecycleEvent": {"stateTransitions": [{"state": "RUNNING"}, {"state": "HIBERNATING"}]}})",
       R"({"eventId": "not base64!", "eventType": 7})",
       R"({"sourcePid": "x", "eventType": "ACTOR_DEFINITION_EVENT"})",
       R"({"taskDefinitionEvent": []})",
       R"({"taskDefinitionEvent": {"requiredResources": {"CPU": "lots"}}})",
       R"({"taskDefinitionEvent": {"requiredResources": {"CPU": null}}})",
       R"({"taskDefinitionEvent": {"requiredResources": []}})",
       R"({"taskDefinitionEvent": {"refIds": {"a": "%%"}}})",
       R"({"taskLifecycleEvent": {"stateTransitions": {}}})",
       R"({"taskLifecycleEvent": {"stateTransitions": [null]}})",
       R"({"taskLifecycleEvent": {"stateTransitions": [[1]]}})",
       R"({"taskLifecycleEvent": {"stateTransitions": [{"timestamp": {}}]}})",
       R"({"timestamp": ["2025-01-01T00:00:00Z"]})",
       R"({"message": {"nested": 1}})",
       R"({"eventId": "AQ==", "unknownObject": {"a": [1, {"b": 2}]}, "unknownList": [[], {}], "message": "after"})",
       R"([1, 2])",
       R"("text")",
       R"(42)",
       R"(null)",
       R"({})"}) {
    elements.push_back(odd);
  }
  std::string body = "[";
  for (const std::string& element : elements) {
    if (body.size() > 1) body += ", ";
    body += element;
  }
  body += "]";

  // "ok" + the event, or "error " + the reason.
  std::vector<std::string> outcomes(elements.size());
  std::vector<RayEvent> events(elements.size());
  std::vector<int32_t> claimed(elements.size(), -1);
  const absl::Status status = ParseEventArray(
      body, EventArrayCallbacks{.on_event =
                                    [&](size_t index, RayEvent& event) {
                                      outcomes.at(index) = "ok";
                                      events.at(index) = event;
                                    },
                                .on_error =
                                    [&](size_t index, int32_t type, std::string reason) {
                                      outcomes.at(index) = "error " + reason;
                                      claimed.at(index) = type;
                                    }});
  ASSERT_TRUE(status.ok()) << status;
  for (size_t i = 0; i < elements.size(); ++i) {
    RayEvent expected;
    const absl::Status one = JsonToMessage(json::parse(elements[i]), expected);
    const std::string want = one.ok() ? "ok" : "error " + std::string(one.message());
    EXPECT_EQ(outcomes[i], want) << "element " << i << ": " << elements[i];
    // Map entries may be in another order (document order vs sorted keys).
    if (one.ok()) {
      EXPECT_TRUE(MessageDifferencer::Equals(events[i], expected)) << elements[i];
    }
  }
  const size_t first_odd = elements.size() - 21;
  EXPECT_EQ(claimed[first_odd], 0);  // unknown type name
  EXPECT_EQ(claimed[first_odd + 1], RayEvent::TASK_LIFECYCLE_EVENT);
  EXPECT_EQ(claimed[first_odd + 2], RayEvent::NODE_DEFINITION_EVENT);   // by number
  EXPECT_EQ(claimed[first_odd + 3], RayEvent::ACTOR_DEFINITION_EVENT);  // named after the error
  for (size_t i = elements.size() - 5; i < elements.size() - 1; ++i) {
    EXPECT_EQ(claimed[i], 0) << elements[i];  // not objects: no type, none left over either
  }
}

TEST(JsonEventParserTest, ArrayParserClaimsTypesPerElement) {
  std::vector<int32_t> claimed;
  const absl::Status status = ParseEventArray(
      R"([{"eventType": "NODE_LIFECYCLE_EVENT", "sourcePid": "x"}, "text", [1],
          {"sourcePid": "x", "event_type": 9}, {"sourcePid": "y"}])",
      EventArrayCallbacks{
          .on_event = [](size_t, RayEvent&) {},
          .on_error = [&](size_t, int32_t type, std::string) { claimed.push_back(type); }});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(claimed, (std::vector<int32_t>{RayEvent::NODE_LIFECYCLE_EVENT, 0, 0,
                                           RayEvent::ACTOR_DEFINITION_EVENT, 0}));
}

TEST(JsonEventParserTest, ArrayParserRefusesBodiesThatAreNotArrays) {
  const EventArrayCallbacks ignore{.on_event = [](size_t, RayEvent&) {},
                                   .on_error = [](size_t, int32_t, std::string) {}};
  for (const char* body : {R"({"events": []})", "42", "\"x\"", "null"}) {
    EXPECT_EQ(std::string(ParseEventArray(body, ignore).message()),
              "body is not a JSON array of events")
        << body;
  }
  for (const char* body : {"", "[", "[{]", "[1,]", "[] []", "[{\"a\": tru}]"}) {
    EXPECT_EQ(std::string(ParseEventArray(body, ignore).message()), "body is not valid JSON")
        << body;
  }
  EXPECT_TRUE(ParseEventArray("[]", ignore).ok());
  EXPECT_TRUE(ParseEventArray(" [ ] ", ignore).ok());
}

}  // namespace
}  // namespace rayagg
