#include "ingest/add_events_decoder.h"

#include <gtest/gtest.h>

#include <string>

#include "src/ray/protobuf/events_event_aggregator_service.pb.h"

namespace rayagg {
namespace {

using ray::rpc::events::AddEventsRequest;
using ray::rpc::events::RayEvent;

RayEvent LifecycleEvent(const std::string& event_id, const std::string& task_id, int attempt) {
  RayEvent event;
  event.set_event_id(event_id);
  event.set_event_type(RayEvent::TASK_LIFECYCLE_EVENT);
  event.set_source_type(RayEvent::CORE_WORKER);
  event.mutable_task_lifecycle_event()->set_task_id(task_id);
  event.mutable_task_lifecycle_event()->set_task_attempt(attempt);
  return event;
}

TEST(AddEventsDecoderTest, EmptyRequestDecodesToNoEvents) {
  auto decoded = DecodeAddEventsRequest("");
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->events.empty());
  EXPECT_EQ(decoded->dropped_task_attempts, 0u);
}

TEST(AddEventsDecoderTest, EventsKeepTheirExactWireBytes) {
  AddEventsRequest request;
  auto* data = request.mutable_events_data();
  *data->add_events() = LifecycleEvent("id-1", "task-a", 0);
  *data->add_events() = LifecycleEvent("id-2", "task-a", 1);
  const std::string wire = request.SerializeAsString();

  auto decoded = DecodeAddEventsRequest(wire);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->events.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(decoded->events[i].bytes, data->events(i).SerializeAsString());
    EXPECT_EQ(decoded->events[i].event_type, RayEvent::TASK_LIFECYCLE_EVENT);
  }
  EXPECT_NE(decoded->events[0].event_id_hash, decoded->events[1].event_id_hash);
  // Different attempts are different entities; neither is "never merged".
  EXPECT_NE(decoded->events[0].entity_key, decoded->events[1].entity_key);
  EXPECT_NE(decoded->events[0].entity_key, 0u);
}

TEST(AddEventsDecoderTest, SameEntitySameKeyAcrossEvents) {
  AddEventsRequest request;
  *request.mutable_events_data()->add_events() = LifecycleEvent("id-1", "task-a", 2);
  *request.mutable_events_data()->add_events() = LifecycleEvent("id-2", "task-a", 2);
  auto decoded = DecodeAddEventsRequest(request.SerializeAsString());
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->events[0].entity_key, decoded->events[1].entity_key);
}

TEST(AddEventsDecoderTest, PlatformEventsAreNeverMergeable) {
  AddEventsRequest request;
  RayEvent* event = request.mutable_events_data()->add_events();
  event->set_event_type(RayEvent::PLATFORM_EVENT);
  event->mutable_platform_event()->set_object_name("pod-1");
  auto decoded = DecodeAddEventsRequest(request.SerializeAsString());
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->events[0].entity_key, 0u);
}

TEST(AddEventsDecoderTest, CountsDroppedTaskAttempts) {
  AddEventsRequest request;
  auto* metadata = request.mutable_events_data()->mutable_task_events_metadata();
  for (int i = 0; i < 3; ++i) metadata->add_dropped_task_attempts()->set_attempt_number(i);
  auto decoded = DecodeAddEventsRequest(request.SerializeAsString());
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->dropped_task_attempts, 3u);
  EXPECT_TRUE(decoded->events.empty());
}

TEST(AddEventsDecoderTest, RepeatedEventsDataFieldsMergeLikeProtobuf) {
  AddEventsRequest first, second;
  *first.mutable_events_data()->add_events() = LifecycleEvent("id-1", "a", 0);
  *second.mutable_events_data()->add_events() = LifecycleEvent("id-2", "b", 0);
  const std::string wire = first.SerializeAsString() + second.SerializeAsString();
  AddEventsRequest merged;
  ASSERT_TRUE(merged.ParseFromString(wire));
  auto decoded = DecodeAddEventsRequest(wire);
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->events.size(), static_cast<size_t>(merged.events_data().events_size()));
}

TEST(AddEventsDecoderTest, UnknownFieldsAndEnumValuesAreKept) {
  RayEvent event = LifecycleEvent("id-1", "a", 0);
  event.set_event_type(static_cast<RayEvent::EventType>(77));
  std::string event_bytes = event.SerializeAsString();
  event_bytes += std::string("\x98\x06\x07", 3);  // field 99, varint 7
  std::string wire;
  // events_data { events: <event_bytes> } assembled by hand to keep field 99.
  std::string data;
  data.push_back('\x0a');
  data.push_back(static_cast<char>(event_bytes.size()));
  data += event_bytes;
  wire.push_back('\x0a');
  wire.push_back(static_cast<char>(data.size()));
  wire += data;
  auto decoded = DecodeAddEventsRequest(wire);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->events.size(), 1u);
  EXPECT_EQ(decoded->events[0].event_type, 77);
  EXPECT_EQ(decoded->events[0].bytes, event_bytes);
}

TEST(AddEventsDecoderTest, GarbageIsInvalidArgument) {
  for (const std::string& garbage :
       {std::string("\xff\xff\xff\xff", 4), std::string("\x0a\x05\x0a\x10", 4),
        std::string("not a protobuf at all, just text"), std::string("\x0a", 1)}) {
    auto decoded = DecodeAddEventsRequest(garbage);
    EXPECT_FALSE(decoded.ok()) << "accepted: " << garbage;
    if (!decoded.ok()) {
      EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(AddEventsDecoderTest, DecoderAgreesWithProtobufOnTruncations) {
  AddEventsRequest request;
  *request.mutable_events_data()->add_events() = LifecycleEvent("id-1", "task", 3);
  *request.mutable_events_data()->add_events() = LifecycleEvent("id-2", "task", 4);
  const std::string wire = request.SerializeAsString();
  for (size_t cut = 0; cut < wire.size(); ++cut) {
    const std::string prefix = wire.substr(0, cut);
    AddEventsRequest parsed;
    const bool protobuf_ok = parsed.ParseFromString(prefix);
    const bool ours_ok = DecodeAddEventsRequest(prefix).ok();
    EXPECT_EQ(ours_ok, protobuf_ok) << "cut at " << cut << " protobuf=" << protobuf_ok;
  }
}

}  // namespace
}  // namespace rayagg
