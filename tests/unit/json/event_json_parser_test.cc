// The JSON -> RayEvent wire transcoder (json/event_json_parser.h) against two
// oracles: protobuf's own JSON parser (JsonStringToMessage) for what an event
// means, and the parser it replaced (support/legacy/nlohmann_event_parser.h)
// for every answer HTTP ingest gives: which elements are accepted, the
// rejection reasons word for word, the claimed event types, and which bodies
// are refused whole.
//
// RAYAGG_JSON_SEED=<n> reproduces a failing random run (the seed is printed).
#include "json/event_json_parser.h"

#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "support/json_compare.h"
#include "support/legacy/nlohmann_event_parser.h"
#include "support/random_message.h"
#include "support/sample_events.h"

namespace rayagg {
namespace {

using google::protobuf::util::MessageDifferencer;
using ray::rpc::events::RayEvent;

// Empty when equal, else what differs (field paths and values).
std::string Differences(const RayEvent& actual, const RayEvent& expected) {
  std::string report;
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  differencer.ReportDifferencesToString(&report);
  return differencer.Compare(actual, expected) ? "" : report;
}

// What a parser answered for one body, in a form two parsers can be compared by.
struct Outcome {
  std::string status;              // "" when the body was accepted
  std::vector<std::string> lines;  // per element: "ok", or "error <claimed type> <reason>"
  std::vector<RayEvent> events;    // per element; empty message for rejections
};

// One parser for the whole test: it is reused body after body, as ingest does.
EventJsonParser& Parser() {
  static EventJsonParser parser;
  return parser;
}

Outcome OursOnBody(std::string_view body) {
  EventJsonParser& parser = Parser();
  EventJsonBatch batch;
  Outcome outcome;
  const absl::Status status = parser.ParseArray(body, batch);
  if (!status.ok()) {
    outcome.status = std::string(status.message());
    EXPECT_EQ(batch.elements(), 0u);
    return outcome;
  }
  outcome.lines.resize(batch.elements());
  outcome.events.resize(batch.elements());
  for (const auto& event : batch.events()) {
    outcome.lines.at(event.index) = "ok";
    const std::string_view bytes = batch.bytes(event);
    EXPECT_TRUE(
        outcome.events.at(event.index).ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        << "element " << event.index << " of " << body;
  }
  for (const auto& rejection : batch.rejections()) {
    outcome.lines.at(rejection.index) =
        "error " + std::to_string(rejection.claimed_type) + " " + rejection.reason;
  }
  return outcome;
}

Outcome LegacyOnBody(std::string_view body) {
  Outcome outcome;
  std::vector<std::string> lines;
  std::vector<RayEvent> events;
  const absl::Status status = legacy::ParseEventArray(
      body, legacy::EventArrayCallbacks{.on_event =
                                            [&](size_t index, RayEvent& event) {
                                              lines.resize(std::max(lines.size(), index + 1));
                                              events.resize(lines.size());
                                              lines[index] = "ok";
                                              events[index] = event;
                                            },
                                        .on_error =
                                            [&](size_t index, int32_t type, std::string reason) {
                                              lines.resize(std::max(lines.size(), index + 1));
                                              events.resize(lines.size());
                                              lines[index] =
                                                  "error " + std::to_string(type) + " " + reason;
                                            }});
  if (!status.ok()) {
    outcome.status = std::string(status.message());
    return outcome;
  }
  outcome.lines = std::move(lines);
  outcome.events = std::move(events);
  return outcome;
}

// Both parsers answer the same for `body`.
void ExpectSameAsLegacy(std::string_view body) {
  SCOPED_TRACE(std::string(body.substr(0, 200)));
  const Outcome ours = OursOnBody(body);
  const Outcome legacy = LegacyOnBody(body);
  ASSERT_EQ(ours.status, legacy.status);
  ASSERT_EQ(ours.lines, legacy.lines);
  for (size_t i = 0; i < ours.events.size(); ++i) {
    EXPECT_EQ(Differences(ours.events[i], legacy.events[i]), "") << "ours vs legacy, element " << i;
  }
}

// One JSON object through our parser alone.
absl::StatusOr<RayEvent> OursOnObject(std::string_view json) {
  EventJsonParser& parser = Parser();
  EventJsonBatch batch;
  if (absl::Status status = parser.ParseOne(json, 0, batch); !status.ok()) return status;
  if (!batch.rejections().empty()) {
    return absl::InvalidArgumentError(batch.rejections().front().reason);
  }
  RayEvent event;
  const std::string_view bytes = batch.bytes(batch.events().front());
  if (!event.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InternalError("unparsable bytes");
  }
  return event;
}

absl::StatusOr<RayEvent> ProtobufOnObject(std::string_view json) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  RayEvent event;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &event, options);
  if (!status.ok()) return absl::InvalidArgumentError(std::string(status.message()));
  return event;
}

std::string ArrayOf(const std::vector<std::string>& elements) {
  std::string body = "[";
  for (const std::string& element : elements) {
    if (body.size() > 1) body += ", ";
    body += element;
  }
  return body + "]";
}

uint64_t SeedFromEnv() {
  if (const char* env = std::getenv("RAYAGG_JSON_SEED")) return std::strtoull(env, nullptr, 10);
  return std::random_device{}() * uint64_t{0x9E3779B97F4A7C15} ^ std::random_device{}();
}

// --- against protobuf's parser ---------------------------------------------

TEST(EventJsonParserTest, EveryFieldOfEveryTypeMatchesProtobufInBothKeyStyles) {
  std::vector<RayEvent> events = test::EventsSettingEveryField();
  for (RayEvent& minimal : test::MinimalEventOfEveryType()) events.push_back(minimal);
  for (const bool snake_case : {false, true}) {
    for (const RayEvent& original : events) {
      const std::string text = test::ProtobufPrinterJson(original, snake_case);
      const absl::StatusOr<RayEvent> ours = OursOnObject(text);
      ASSERT_TRUE(ours.ok()) << ours.status() << "\n" << text;
      const absl::StatusOr<RayEvent> theirs = ProtobufOnObject(text);
      ASSERT_TRUE(theirs.ok()) << theirs.status();
      EXPECT_TRUE(MessageDifferencer::Equals(*ours, original))
          << "type " << original.event_type() << (snake_case ? " snake_case" : " camelCase");
      EXPECT_TRUE(MessageDifferencer::Equals(*ours, *theirs));
    }
  }
}

// Defaults are left out as protobuf leaves them out: the bytes are exactly as
// long as protobuf's serialization (fields come in the JSON's order, which
// protobuf's printer does not keep in field-number order, and map entries in
// any order, so the bytes themselves may differ).
TEST(EventJsonParserTest, WritesNoMoreBytesThanProtobuf) {
  std::vector<RayEvent> events = test::EventsSettingEveryField();
  for (RayEvent& minimal : test::MinimalEventOfEveryType()) events.push_back(minimal);
  for (const RayEvent& original : events) {
    const std::string text = test::ProtobufPrinterJson(original);
    EventJsonBatch batch;
    ASSERT_TRUE(Parser().ParseOne(text, 0, batch).ok());
    ASSERT_EQ(batch.events().size(), 1u);
    EXPECT_EQ(batch.bytes(batch.events().front()).size(), original.ByteSizeLong())
        << "type " << original.event_type();
  }
}

TEST(EventJsonParserTest, RandomEventsMatchProtobufAndTheLegacyParser) {
  const uint64_t seed = SeedFromEnv();
  SCOPED_TRACE("RAYAGG_JSON_SEED=" + std::to_string(seed));
  testing::RandomMessageFiller filler(seed);
  for (const bool snake_case : {false, true}) {
    std::vector<std::string> elements;
    std::vector<RayEvent> originals;
    for (int i = 0; i < 200; ++i) {
      RayEvent event;
      filler.Fill(event);
      google::protobuf::util::JsonPrintOptions options;
      options.always_print_primitive_fields = (i % 2) == 0;
      options.preserve_proto_field_names = snake_case;
      std::string json;
      // Out-of-range timestamps cannot be printed: not a JSON input.
      if (!google::protobuf::util::MessageToJsonString(event, &json, options).ok()) continue;
      const absl::StatusOr<RayEvent> theirs = ProtobufOnObject(json);
      ASSERT_TRUE(theirs.ok()) << json;
      const absl::StatusOr<RayEvent> ours = OursOnObject(json);
      ASSERT_TRUE(ours.ok()) << ours.status() << " (element " << i << ")";
      ASSERT_EQ(Differences(*ours, *theirs), "") << "ours vs protobuf's (element " << i << ")";
      elements.push_back(std::move(json));
    }
    ExpectSameAsLegacy(ArrayOf(elements));
  }
}

// Inputs Ray's agent does not send but protobuf's parser accepts: both parsers agree.
TEST(EventJsonParserTest, AgreesWithProtobufOnTheLenientForms) {
  const char* const cases[] = {
      // escapes, surrogate pairs, raw UTF-8
      R"({"message": "tab\t \"quoted\" \\ \/ \b\f\n\r \u0041\u00e9\u20ac \ud83d\ude00 \u0000 é €"})",
      R"({"session_name": "\ud800\udc00\udbff\udfff"})",
      R"({"\u0065ventId": "AQID", "eve\u006etType": "TASK_LIFECYCLE_EVENT"})",
      // 64-bit integers as strings and numbers, at their limits
      R"({"driverJobDefinitionEvent": {"driverPid": "9223372036854775807"}})",
      R"({"driverJobDefinitionEvent": {"driverPid": -9223372036854775808}})",
      R"({"driverJobDefinitionEvent": {"driverPid": "-9223372036854775808"}})",
      R"({"workerLifecycleEvent": {"stateTransitions": [{"startTimeMs": "18446744073709551615",
          "endTimeMs": 18446744073709551615}]}})",
      R"({"sourcePid": 2147483647, "taskLifecycleEvent": {"taskAttempt": "-2147483648"}})",
      R"({"workerDefinitionEvent": {"pid": 4294967295}})",
      // integers written as floats
      R"({"sourcePid": 1e3, "taskLifecycleEvent": {"taskAttempt": 2.0, "workerPid": -0}})",
      R"({"actorLifecycleEvent": {"stateTransitions": [{"pid": 1.5e1, "port": -1E2}]}})",
      // NaN, Infinity, numbers in strings, exponents
      R"({"taskDefinitionEvent": {"requiredResources": {"a": "NaN", "b": "Infinity",
          "c": "-Infinity", "d": "1.5", "e": 1e-7, "f": -0.0, "g": 0, "h": 1E+300}}})",
      R"({"autoscalerConfigDefinitionEvent": {"upscalingSpeed": "-1e-320"}})",
      R"({"placementGroupLifecycleEvent": {"stateTransitions": [{"highestRetryDelayMs": "NaN"}]}})",
      // enums by number, known and unknown
      R"({"eventType": 2, "severity": 77, "sourceType": "GCS"})",
      R"({"taskLifecycleEvent": {"stateTransitions": [{"state": 12}, {"state": 4000}]}})",
      // nulls everywhere they mean "default"
      R"({"eventId": null, "eventType": null, "timestamp": null, "message": null,
          "taskDefinitionEvent": null, "taskLifecycleEvent": {"stateTransitions": null,
          "rayErrorInfo": null, "isDebuggerPaused": null}})",
      R"({"taskDefinitionEvent": {"requiredResources": null, "refIds": null, "callSite": null}})",
      // base64 variants: URL-safe, unpadded, empty
      R"({"eventId": "-_8", "nodeId": "AQ", "taskLifecycleEvent": {"taskId": "AQI="}})",
      R"({"eventId": "", "nodeId": "+/+/"})",
      // timestamps: offsets, fractions of every length, leap day
      R"({"timestamp": "2024-02-29T23:59:59.123456789+05:30"})",
      R"({"timestamp": "1970-01-01T00:00:00Z"})",
      R"({"timestamp": "0001-01-01T00:00:00.1Z"})",
      R"({"timestamp": "9999-12-31T23:59:59.999999999-00:00"})",
      R"({"timestamp": "2025-06-30T18:50:30.1234567891234Z"})",
      // optional fields at their defaults keep their presence
      R"({"taskLifecycleEvent": {"isDebuggerPaused": false, "actorReprName": "",
          "taskLogInfo": {"stdoutStart": "0", "stderrFile": ""}}})",
      R"({"driverJobLifecycleEvent": {"stateTransitions": [{"exitCode": 0}]}})",
      // oneofs, maps with every kind of value, empty containers
      R"({"taskDefinitionEvent": {"taskFunc": {"javaFunctionDescriptor": {}},
          "refIds": {"": "", "k": "AQ=="}, "labelSelector": {"a": "", "": "b"}},
          "taskLifecycleEvent": {"rayErrorInfo": {"actorDiedError": {"oomContext":
          {"failImmediately": true}}, "errorType": "OUT_OF_MEMORY"}}})",
      R"({"autoscalerScalingDecisionEvent": {"launchActions": [], "clusterResourcesAfter": {},
          "infeasibleResourceRequests": [{"labelConstraints": [{"values": ["", "x"]}]}]}})",
      // unknown keys of every shape
      R"({"future": {"a": [1, {"b": null}], "c": "\u00e9"}, "futureList": [[], {}, 1e400000],
          "eventId": "AQ=="})",
      // whitespace everywhere
      " { \"eventId\" : \"AQ==\" ,\n\t\"severity\"\r:\"INFO\" } ",
  };
  for (const char* json : cases) {
    SCOPED_TRACE(json);
    const absl::StatusOr<RayEvent> theirs = ProtobufOnObject(json);
    if (std::string_view(json).find("1e400000") != std::string_view::npos) {
      // protobuf reads unknown values too loosely to check them; ours refuses
      // the number, as the legacy parser did (it is not a finite double).
      EXPECT_FALSE(OursOnObject(json).ok());
      ExpectSameAsLegacy(ArrayOf({json}));
      continue;
    }
    ASSERT_TRUE(theirs.ok()) << theirs.status();
    const absl::StatusOr<RayEvent> ours = OursOnObject(json);
    ASSERT_TRUE(ours.ok()) << ours.status();
    EXPECT_EQ(Differences(*ours, *theirs), "") << "ours vs protobuf's";
    ExpectSameAsLegacy(ArrayOf({json}));
  }
}

// Where protobuf's parser differs, we keep the legacy parser's answer.
TEST(EventJsonParserTest, KeepsTheLegacyAnswersWhereProtobufDiffers) {
  // protobuf (ignoring unknown fields) turns an unknown enum name into the
  // default; we reject the element, so an event from a newer Ray is reported.
  const char* unknown_name = R"({"eventType": "NEWER_RAY_EVENT", "eventId": "AQ=="})";
  EXPECT_TRUE(ProtobufOnObject(unknown_name).ok());
  EXPECT_EQ(OursOnObject(unknown_name).status().message(),
            "eventType: unknown EventType value \"NEWER_RAY_EVENT\"");
  // A key given twice is applied twice, in order: the last scalar wins,
  // messages merge, repeated fields append (protobuf refuses some of these).
  const absl::StatusOr<RayEvent> twice = OursOnObject(R"({
      "sourcePid": 5, "sourcePid": 0, "message": "a", "message": "",
      "taskLifecycleEvent": {"taskAttempt": 3, "workerPid": 9,
                             "stateTransitions": [{"state": "RUNNING"}]},
      "task_lifecycle_event": {"taskAttempt": 0, "stateTransitions": [{"state": "FINISHED"}],
                               "taskId": "AQ=="},
      "timestamp": "2025-01-01T00:00:01.5Z", "timestamp": "1970-01-01T00:00:00Z"})");
  ASSERT_TRUE(twice.ok()) << twice.status();
  EXPECT_EQ(twice->source_pid(), 0);
  EXPECT_EQ(twice->message(), "");
  EXPECT_EQ(twice->task_lifecycle_event().task_attempt(), 0);
  EXPECT_EQ(twice->task_lifecycle_event().worker_pid(), 9);
  EXPECT_EQ(twice->task_lifecycle_event().task_id(), "\x01");
  EXPECT_EQ(twice->task_lifecycle_event().state_transitions_size(), 2);
  EXPECT_TRUE(twice->has_timestamp());
  EXPECT_EQ(twice->timestamp().seconds(), 0);
  EXPECT_EQ(twice->timestamp().nanos(), 0);
  ExpectSameAsLegacy(R"([{"sourcePid": 5, "sourcePid": 0, "message": "a", "message": "",
      "taskLifecycleEvent": {"taskAttempt": 3, "workerPid": 9,
                             "stateTransitions": [{"state": "RUNNING"}]},
      "task_lifecycle_event": {"taskAttempt": 0, "stateTransitions": [{"state": "FINISHED"}]},
      "taskDefinitionEvent": {"taskFunc": {"pythonFunctionDescriptor": {"moduleName": "m"}}},
      "taskDefinitionEvent": {"taskFunc": {"javaFunctionDescriptor": {"className": "c"}}},
      "taskDefinitionEvent": {"taskFunc": {"pythonFunctionDescriptor": {"className": "k"}},
                              "requiredResources": {"CPU": 1, "CPU": 0}},
      "timestamp": "2025-01-01T00:00:01.5Z", "timestamp": "1970-01-01T00:00:00Z"}])");
}

// --- against the legacy parser ---------------------------------------------

TEST(EventJsonParserTest, RejectsWhatDoesNotMapAndNamesTheField) {
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
    const absl::StatusOr<RayEvent> ours = OursOnObject(c.json);
    EXPECT_EQ(ours.status().code(), absl::StatusCode::kInvalidArgument) << c.json;
    EXPECT_EQ(std::string(ours.status().message()), c.message) << c.json;
    ExpectSameAsLegacy(ArrayOf({c.json}));
  }
}

TEST(EventJsonParserTest, RejectionsMatchTheLegacyParserElementByElement) {
  std::vector<std::string> elements;
  for (const RayEvent& event : test::EventsSettingEveryField()) {
    elements.push_back(test::ProtobufPrinterJson(event, /*snake_case=*/elements.size() % 2 == 1));
  }
  for (
      const char* odd : {
          R"({"eventType": "NEWER_RAY_EVENT", "eventId": "AQ=="})",
          R"({"eventId": "AQ==", "eventType": "TASK_LIFECYCLE_EVENT", "taskLifecycleEvent":
               {"stateTransitions": [{"state": "RUNNING"}, {"state": "HIBERNATING"}]}})",
          R"({"eventId": "not base64!", "eventType": 7})",
          R"({"sourcePid": "x", "eventType": "ACTOR_DEFINITION_EVENT"})",
          R"({"sourcePid": "x", "event_type": 9, "eventType": 1.0, "eventType": true})",
          R"({"sourcePid": "x", "eventType": 9223372036854775808})",
          R"({"sourcePid": "x", "eventType": 18446744073709551616})",
          R"({"sourcePid": "x", "eventType": {"a": 1}})",
          R"({"sourcePid": "x", "eventType": -3})",
          R"({"sourcePid": "x", "eventType": "TASK_\u0044EFINITION_EVENT"})",
          R"({"taskDefinitionEvent": []})",
          R"({"taskDefinitionEvent": 5})",
          R"({"taskDefinitionEvent": "x"})",
          R"({"taskDefinitionEvent": true})",
          R"({"taskDefinitionEvent": {"requiredResources": {"CPU": "lots"}}})",
          R"({"taskDefinitionEvent": {"requiredResources": {"CPU": null}}})",
          R"({"taskDefinitionEvent": {"requiredResources": []}})",
          R"({"taskDefinitionEvent": {"requiredResources": 1}})",
          R"({"taskDefinitionEvent": {"requiredResources": {"CPU": [1]}}})",
          R"({"taskDefinitionEvent": {"requiredResources": {"CPU": {}}}})",
          R"({"taskDefinitionEvent": {"refIds": {"a": "%%"}}})",
          R"({"taskDefinitionEvent": {"refIds": {"a": "AQ= ="}}})",
          R"({"taskDefinitionEvent": {"refIds": {"a": " AQ=="}}})",
          R"({"taskDefinitionEvent": {"refIds": {"a": "AQ.."}}})",
          R"({"taskDefinitionEvent": {"refIds": {"a": "A"}}})",
          R"({"taskDefinitionEvent": {"refIds": {"a": "AQ="}}})",
          R"({"taskDefinitionEvent": {"refIds": {"a": "AQID="}}})",
          R"({"taskDefinitionEvent": {"refIds": {"a": "A-+"}}})",
          R"({"taskDefinitionEvent": {"taskAttempt": "1.0"}})",
          R"({"taskDefinitionEvent": {"taskAttempt": " 1"}})",
          R"({"taskDefinitionEvent": {"taskAttempt": "+1"}})",
          R"({"taskDefinitionEvent": {"taskAttempt": ""}})",
          R"({"taskDefinitionEvent": {"taskAttempt": 2147483648}})",
          R"({"taskDefinitionEvent": {"taskAttempt": -2147483649}})",
          R"({"taskDefinitionEvent": {"taskAttempt": 1e10}})",
          R"({"taskDefinitionEvent": {"taskAttempt": 99999999999999999999}})",
          R"({"taskDefinitionEvent": {"taskAttempt": true}})",
          R"({"taskDefinitionEvent": {"taskType": true}})",
          R"({"taskDefinitionEvent": {"taskType": 1.5}})",
          R"({"taskDefinitionEvent": {"taskType": "1"}})",
          R"({"taskDefinitionEvent": {"taskType": 4294967296}})",
          R"({"taskDefinitionEvent": {"isDetachedActor": "true"}})",
          R"({"taskDefinitionEvent": {"isDetachedActor": 1}})",
          R"({"taskDefinitionEvent": {"taskFunc": {"javaFunctionDescriptor": []}}})",
          R"({"workerLifecycleEvent": {"stateTransitions": [{"startTimeMs": -1}]}})",
          R"({"workerLifecycleEvent": {"stateTransitions": [{"startTimeMs": "18446744073709551616"}]}})",
          R"({"workerLifecycleEvent": {"stateTransitions": [{"startTimeMs": 18446744073709551616}]}})",
          R"({"autoscalerConfigDefinitionEvent": {"upscalingSpeed": "1e400"}})",
          R"({"autoscalerConfigDefinitionEvent": {"upscalingSpeed": "inf"}})",
          R"({"autoscalerConfigDefinitionEvent": {"upscalingSpeed": true}})",
          R"({"autoscalerScalingDecisionEvent": {"launchActions": [{"count": "x"}]}})",
          R"({"autoscalerScalingDecisionEvent": {"launchActions": [{}, 5]}})",
          R"({"autoscalerScalingDecisionEvent": {"launchActions": [{}, []]}})",
          R"({"autoscalerScalingDecisionEvent": {"infeasibleResourceRequests":
               [{"labelConstraints": [{"values": ["a", 1]}]}]}})",
          R"({"autoscalerScalingDecisionEvent": {"infeasibleResourceRequests":
               [{"labelConstraints": [{"values": [null]}]}]}})",
          R"({"autoscalerScalingDecisionEvent": {"infeasibleResourceRequests":
               [{"labelConstraints": [{"values": [{}]}]}]}})",
          R"({"taskLifecycleEvent": {"stateTransitions": {}}})",
          R"({"taskLifecycleEvent": {"stateTransitions": "x"}})",
          R"({"taskLifecycleEvent": {"stateTransitions": [null]}})",
          R"({"taskLifecycleEvent": {"stateTransitions": [{}, null, {"state": "X"}]}})",
          R"({"taskLifecycleEvent": {"stateTransitions": [[1]]}})",
          R"({"taskLifecycleEvent": {"stateTransitions": [{"timestamp": {}}]}})",
          R"({"taskLifecycleEvent": {"stateTransitions": [{"timestamp": 5}]}})",
          R"({"taskLifecycleEvent": {"stateTransitions": [{"timestamp": []}]}})",
          R"({"timestamp": ["2025-01-01T00:00:00Z"]})",
          R"({"timestamp": "2025-02-29T00:00:00Z"})",
          R"({"timestamp": "2025-1-2T3:4:5Z"})",
          R"({"timestamp": "2025-01-01T00:00:00.Z"})",
          R"({"timestamp": "2025-01-01T00:00:00+24:00"})",
          R"({"timestamp": "2025-01-01T00:00:00z"})",
          R"({"timestamp": "2025-01-01 00:00:00Z"})",
          R"({"timestamp": "2025-01-01T00:00:00Z\u0000garbage"})",
          R"({"timestamp": "2025-01-01T00:00:00Zx"})",
          R"({"timestamp": "12025-01-01T00:00:00Z"})",
          R"({"message": {"nested": 1}})",
          R"({"message": ["x"]})",
          R"({"message": true})",
          R"({"eventId": 12})",
          R"({"eventId": "AQ==", "unknownObject": {"a": [1, {"b": 2}]}, "unknownList": [[], {}],
               "message": "after"})",
          R"({"nodeDefinitionEvent": {"labels": {"a": 1}}})",
          R"({"nodeLifecycleEvent": {"stateTransitions": [{"deathInfo": {"reason": "NOPE"}}]}})",
          R"({"actorTaskDefinitionEvent": {"actorFunc": {"cppFunctionDescriptor": 1}}})",
          R"({"taskDefinitionEvent": {"requiredResources": {"CPU": 1}}, "sourcePid": "x",
               "taskDefinitionEvent": {"requiredResources": {"GPU": "y"}}})",
          R"([1, 2])",
          R"("text")",
          R"(42)",
          R"(true)",
          R"(null)",
          R"({})",
      }) {
    elements.push_back(odd);
  }
  ExpectSameAsLegacy(ArrayOf(elements));
  for (const std::string& element : elements) ExpectSameAsLegacy(ArrayOf({element}));
}

TEST(EventJsonParserTest, ClaimsTypesPerElement) {
  EventJsonParser parser;
  EventJsonBatch batch;
  ASSERT_TRUE(parser
                  .ParseArray(R"([{"eventType": "NODE_LIFECYCLE_EVENT", "sourcePid": "x"}, "text",
                     [1], {"sourcePid": "x", "event_type": 9}, {"sourcePid": "y"}])",
                              batch)
                  .ok());
  std::vector<int32_t> claimed;
  for (const auto& rejection : batch.rejections()) claimed.push_back(rejection.claimed_type);
  EXPECT_EQ(claimed, (std::vector<int32_t>{RayEvent::NODE_LIFECYCLE_EVENT, 0, 0,
                                           RayEvent::ACTOR_DEFINITION_EVENT, 0}));
}

TEST(EventJsonParserTest, RefusesBodiesThatAreNotArraysLikeTheLegacyParser) {
  for (const char* body : {R"({"events": []})", "42", "\"x\"", "null", "true", "01", "42x",
                           "{broken", "\"a\\u0041\"", "-0.5e3 [", "nullx"}) {
    EXPECT_EQ(OursOnBody(body).status, "body is not a JSON array of events") << body;
    ExpectSameAsLegacy(body);
  }
  for (const char* body :
       {"", " ", "[", "[{]", "[1,]", "[] []", "[{\"a\": tru}]", "[1 2]", "[01]", "[1.]", "[-]",
        "[1e]", "[1e400]", "[{\"a\": 1e400}]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\x\"]",
        "[{\"\\q\": 1}]", "[\"a\x01\"]", "[\"\xc3\"]", "[\xff]", "[1]]", "[1]x", "[truefalse]",
        "[{\"a\" 1}]", "[{\"a\": 1 \"b\": 2}]", "[{\"a\": [}]", "[nul]", "tru", "-", "\"x",
        "\"\\u12\"", "\"\x01\"", "1e999", "[{\"message\": \"ok\"}, {\"a\": [1, 2,]}]",
        "[{\"unknown\": {\"deep\": [1, {\"x\": \"\\uDEAD\"}]}}]", "\xEF\xBB", "\xEF\xBB\xBF",
        // a string followed by ':' where only a value may be (On
        // Demand alone would skip it as if it were a key)
        "[\"a\": 1]", "[{}, \"nodeId\": \"x\"]", "[{\"message\": \"x\": 1}]",
        "[{\"unknown\": [\"a\": 1]}]", "[{\"unknown\": \"a\": {}}]", "[1: 2]", "[{\"a\": 1: 2}]"}) {
    EXPECT_EQ(OursOnBody(body).status, "body is not valid JSON") << body;
    ExpectSameAsLegacy(body);
  }
  for (const char* body : {"[]", " [ ] ", "\xEF\xBB\xBF[]", "[{}]", "\n[\n{}\n]\n"}) {
    EXPECT_EQ(OursOnBody(body).status, "") << body;
    ExpectSameAsLegacy(body);
  }
  // A NUL byte ends the text, as it did for nlohmann_json.
  using namespace std::string_literals;
  for (const std::string& body : {"[]\0"s, "[{}] \0 garbage ]]"s, "[\"a\0\"]"s, "[\0]"s, "\0[]"s}) {
    ExpectSameAsLegacy(body);
  }
  EXPECT_EQ(OursOnBody("[{}] \0 garbage ]]"s).status, "");
  EXPECT_EQ(OursOnBody("[\"a\0\"]"s).status, "body is not valid JSON");
}

TEST(EventJsonParserTest, RefusesNestingDeeperThanTheLimit) {
  const std::string deep =
      "[{\"unknown\": " + std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']') + "}]";
  EXPECT_EQ(OursOnBody(deep).status,
            "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  const std::string shallow = "[{\"unknown\": " + std::string(kMaxJsonDepth - 3, '[') +
                              std::string(kMaxJsonDepth - 3, ']') + "}]";
  EXPECT_EQ(OursOnBody(shallow).status, "");
  // Text that deep which is not even valid JSON keeps the legacy answer.
  const std::string deep_and_invalid = "[" + std::string(kMaxJsonDepth + 10, '[') + " :]";
  EXPECT_EQ(OursOnBody(deep_and_invalid).status, "body is not valid JSON");
  ExpectSameAsLegacy(deep_and_invalid);
}

// --- the API for JSON Lines and reuse --------------------------------------

TEST(EventJsonParserTest, ParseOneAddsOneElementWithTheCallersIndex) {
  EventJsonParser parser;
  EventJsonBatch batch;
  ASSERT_TRUE(
      parser.ParseOne(R"({"eventId": "AQ==", "eventType": "TASK_LIFECYCLE_EVENT"})", 7, batch)
          .ok());
  ASSERT_TRUE(parser.ParseOne(R"({"eventType": "NOPE"})", 8, batch).ok());
  ASSERT_TRUE(parser.ParseOne(" 42 ", 9, batch).ok());
  for (const char* invalid :
       {"", "  ", "{", "{} {}", "{}, {}", "[1] [2]", "1]", "], [", "{\"a\":"}) {
    EXPECT_EQ(parser.ParseOne(invalid, 10, batch).message(), "not valid JSON") << invalid;
  }
  ASSERT_EQ(batch.events().size(), 1u);
  EXPECT_EQ(batch.events()[0].index, 7u);
  RayEvent event;
  ASSERT_TRUE(event.ParseFromString(std::string(batch.bytes(batch.events()[0]))));
  EXPECT_EQ(event.event_id(), "\x01");
  ASSERT_EQ(batch.rejections().size(), 2u);
  EXPECT_EQ(batch.rejections()[0].index, 8u);
  EXPECT_EQ(batch.rejections()[0].reason, "eventType: unknown EventType value \"NOPE\"");
  EXPECT_EQ(batch.rejections()[1].index, 9u);
  EXPECT_EQ(batch.rejections()[1].reason, "expected an object, got a number");
}

TEST(EventJsonParserTest, ReusesTheBatchAndParsesInPlace) {
  EventJsonParser parser;
  EventJsonBatch batch;
  const std::vector<RayEvent> events = test::TaskLifecycleEvents(50);
  std::vector<std::string> elements;
  for (const RayEvent& event : events) elements.push_back(test::ProtobufPrinterJson(event));
  for (int round = 0; round < 3; ++round) {
    std::string body = ArrayOf(elements);
    body.shrink_to_fit();  // no spare capacity: padded in place
    ASSERT_TRUE(parser.ParseArray(body, batch).ok());
    ASSERT_EQ(batch.events().size(), events.size());
    for (size_t i = 0; i < events.size(); ++i) {
      RayEvent parsed;
      ASSERT_TRUE(parsed.ParseFromString(std::string(batch.bytes(batch.events()[i]))));
      EXPECT_TRUE(MessageDifferencer::Equals(parsed, events[i]));
    }
  }
  EXPECT_FALSE(parser.ParseArray(std::string("[{\"a\": x}]"), batch).ok());
  EXPECT_EQ(batch.elements(), 0u);
}

}  // namespace
}  // namespace rayagg
