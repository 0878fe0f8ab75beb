// Differential tests: thousands of random RayEvents per run, encoded by our
// encoder and by protobuf's printer (the oracle), parsed and compared.
// RAYAGG_JSON_SEED=<n> reproduces a failing run (the seed is printed);
// RAYAGG_JSON_EVENTS=<n> changes the number of events per naming mode.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "rayagg/event_json_encoder.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/encoder_diff.h"
#include "support/random_message.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;

uint64_t SeedFromEnv() {
  if (const char* env = std::getenv("RAYAGG_JSON_SEED")) return std::strtoull(env, nullptr, 10);
  return std::random_device{}() * uint64_t{0x9E3779B97F4A7C15} ^ std::random_device{}();
}

int EventsFromEnv() {
  if (const char* env = std::getenv("RAYAGG_JSON_EVENTS")) return std::atoi(env);
  return 2000;
}

// Every field reachable from RayEvent, for the coverage check.
void CollectFields(const google::protobuf::Descriptor* d,
                   std::set<const google::protobuf::Descriptor*>& seen,
                   std::set<const google::protobuf::FieldDescriptor*>& fields) {
  if (!seen.insert(d).second) return;
  for (int i = 0; i < d->field_count(); ++i) {
    fields.insert(d->field(i));
    if (d->field(i)->message_type() != nullptr)
      CollectFields(d->field(i)->message_type(), seen, fields);
  }
}

void RunDifferential(bool preserve_names) {
  const uint64_t seed = SeedFromEnv();
  const int events = EventsFromEnv();
  SCOPED_TRACE("RAYAGG_JSON_SEED=" + std::to_string(seed) +
               " preserve_proto_field_names=" + std::to_string(preserve_names));
  testing::EncoderPair pair(JsonOptions{.preserve_proto_field_names = preserve_names});
  testing::RandomMessageFiller filler(seed);
  int failures = 0;
  int oracle_errors = 0;
  for (int i = 0; i < events && failures < 5; ++i) {
    RayEvent event;
    filler.Fill(event);
    std::string bytes = event.SerializeAsString();
    // Now and then an unknown field (a newer sender): dropped by both.
    if (i % 7 == 3) bytes.append("\xc0\x3e\x05", 3);  // field 1000, varint 5
    std::string oracle;
    if (!MakeProtobufJsonEncoder({})->AppendEvent(bytes, oracle).ok()) ++oracle_errors;
    if (auto diff = testing::DiffEncoders(pair, bytes)) {
      ++failures;
      ADD_FAILURE() << "event #" << i << " (RAYAGG_JSON_SEED=" << seed << "): " << *diff
                    << "\nevent: " << event.ShortDebugString();
    }
  }
  std::cout << "seed " << seed << ": " << events << " events, " << oracle_errors
            << " rejected by both (Timestamp out of range)\n";

  std::set<const google::protobuf::Descriptor*> seen;
  std::set<const google::protobuf::FieldDescriptor*> all;
  CollectFields(RayEvent::descriptor(), seen, all);
  for (const auto* field : all) {
    EXPECT_TRUE(filler.covered.count(field)) << "never set: " << field->full_name();
  }
}

TEST(JsonDifferentialTest, CamelCaseNames) { RunDifferential(false); }
TEST(JsonDifferentialTest, PreservedNames) { RunDifferential(true); }

// With RAYAGG_JSON_CORPUS_DIR set, writes random serialized events there as a
// seed corpus for tests/fuzz/json_differential_fuzz.
TEST(JsonDifferentialTest, WriteFuzzCorpusWhenAsked) {
  const char* dir = std::getenv("RAYAGG_JSON_CORPUS_DIR");
  if (dir == nullptr) GTEST_SKIP() << "RAYAGG_JSON_CORPUS_DIR not set";
  testing::RandomMessageFiller filler(1);
  filler.max_depth = 3;
  for (int i = 0; i < 200; ++i) {
    RayEvent event;
    filler.Fill(event);
    std::ofstream(std::string(dir) + "/seed_" + std::to_string(i), std::ios::binary)
        << event.SerializeAsString();
  }
}

TEST(JsonDifferentialTest, DefaultEventPrintsEveryFieldWithoutPresence) {
  auto encoder = MakeFastJsonEncoder({});
  std::string out;
  ASSERT_TRUE(encoder->AppendEvent("", out).ok());
  EXPECT_EQ(
      out,
      R"({"eventId":"","sourceType":"SOURCE_TYPE_UNSPECIFIED","eventType":"EVENT_TYPE_UNSPECIFIED",)"
      R"("severity":"EVENT_SEVERITY_UNSPECIFIED","message":"","sessionName":"","nodeId":"",)"
      R"("sourceHostname":"","sourcePid":0})");
}

TEST(JsonDifferentialTest, InvalidBytesAreRejectedAndOutputKept) {
  auto encoder = MakeFastJsonEncoder({});
  std::string out = "[";
  EXPECT_FALSE(encoder->AppendEvent("\xff\xff\xff", out).ok());
  EXPECT_EQ(out, "[");
}

TEST(JsonDifferentialTest, HandPickedEvent) {
  RayEvent event;
  event.set_event_id("1");
  event.set_source_type(RayEvent::CORE_WORKER);
  event.set_event_type(RayEvent::TASK_DEFINITION_EVENT);
  event.mutable_timestamp()->set_seconds(1751302230);
  event.mutable_timestamp()->set_nanos(130457542);
  event.set_severity(RayEvent::INFO);
  event.set_message("a \"quoted\"\n\ttab \x01 é 日本 😀 \\");
  event.set_session_name("test_session");
  auto* def = event.mutable_task_definition_event();
  def->set_task_id("1");
  def->set_task_attempt(1);
  (*def->mutable_required_resources())["CPU"] = 1.0;
  (*def->mutable_required_resources())["GPU"] = 0.5;
  (*def->mutable_ref_ids())["key1"] = "value1";
  const std::string bytes = event.SerializeAsString();
  for (bool preserve : {false, true}) {
    testing::EncoderPair pair(JsonOptions{.preserve_proto_field_names = preserve});
    auto diff = testing::DiffEncoders(pair, bytes);
    EXPECT_FALSE(diff.has_value()) << *diff;
  }
  std::string out;
  ASSERT_TRUE(MakeFastJsonEncoder({})->AppendEvent(bytes, out).ok());
  EXPECT_NE(out.find(R"("eventId":"MQ==")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("timestamp":"2025-06-30T16:50:30.130457542Z")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("message":"a \"quoted\"\n\ttab \u0001 é 日本 😀 \\")"), std::string::npos)
      << out;
}

}  // namespace
}  // namespace rayagg
