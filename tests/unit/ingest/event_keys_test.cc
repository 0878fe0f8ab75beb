// FactsOfWire (read from the bytes) must give what event_type() and KeysOf
// give after parsing, also for bytes protobuf would merge: random events,
// their concatenations (a field given twice), and every payload type.
#include "ingest/event_keys.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "rayagg/incoming_event.h"
#include "support/random_message.h"
#include "support/sample_events.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;

void ExpectFactsAsParsed(const std::string& wire) {
  RayEvent parsed;
  ASSERT_TRUE(parsed.ParseFromString(wire));
  const std::optional<WireEventFacts> facts = FactsOfWire(wire);
  ASSERT_TRUE(facts.has_value()) << parsed.ShortDebugString();
  const EventKeys keys = KeysOf(parsed);
  EXPECT_EQ(facts->event_type, static_cast<int32_t>(parsed.event_type()));
  EXPECT_EQ(facts->keys.event_id_hash, keys.event_id_hash);
  EXPECT_EQ(facts->keys.entity_key, keys.entity_key) << parsed.ShortDebugString();
}

TEST(EventKeysTest, FactsOfWireMatchParsingForEveryType) {
  for (const RayEvent& event : test::EventsSettingEveryField()) {
    ExpectFactsAsParsed(event.SerializeAsString());
  }
  for (const RayEvent& event : test::MinimalEventOfEveryType()) {
    ExpectFactsAsParsed(event.SerializeAsString());
  }
  ExpectFactsAsParsed("");
}

TEST(EventKeysTest, FactsOfWireMatchParsingForRandomAndMergedEvents) {
  testing::RandomMessageFiller filler(4242);
  std::vector<std::string> wires;
  for (int i = 0; i < 500; ++i) {
    RayEvent event;
    filler.Fill(event);
    wires.push_back(event.SerializeAsString());
    ExpectFactsAsParsed(wires.back());
  }
  // Two serialized events back to back parse as one merged event.
  for (size_t i = 0; i + 1 < wires.size(); ++i) ExpectFactsAsParsed(wires[i] + wires[i + 1]);
  // Later payload fields override earlier ones; attempts are int32 on the wire.
  RayEvent first = test::TaskLifecycleEvent("a", 1);
  RayEvent second;
  second.mutable_task_lifecycle_event()->set_task_attempt(-2);
  ExpectFactsAsParsed(first.SerializeAsString() + second.SerializeAsString());
}

TEST(EventKeysTest, FactsOfWireGiveUpOnBytesTheyDoNotFollow) {
  EXPECT_FALSE(FactsOfWire("\x0a\x05"
                           "ab")
                   .has_value());                     // truncated
  EXPECT_FALSE(FactsOfWire("\x0b\x0c").has_value());  // a group
  EXPECT_FALSE(FactsOfWire("\x80").has_value());      // unfinished varint
}

}  // namespace
}  // namespace rayagg
