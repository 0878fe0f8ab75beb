#include "objstore/event_route.h"

#include <gtest/gtest.h>

#include <map>

#include "support/sample_events.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;

// The collector's rule (history-server.md §2.3), one row per event type:
// whether a payload with a job id goes to job_events.
const std::map<RayEvent::EventType, bool> kFiledByJob = {
    {RayEvent::TASK_DEFINITION_EVENT, true},
    {RayEvent::TASK_LIFECYCLE_EVENT, true},
    {RayEvent::ACTOR_TASK_DEFINITION_EVENT, true},
    {RayEvent::TASK_PROFILE_EVENT, true},
    {RayEvent::DRIVER_JOB_DEFINITION_EVENT, true},
    {RayEvent::DRIVER_JOB_LIFECYCLE_EVENT, true},
    {RayEvent::NODE_DEFINITION_EVENT, false},
    {RayEvent::NODE_LIFECYCLE_EVENT, false},
    {RayEvent::ACTOR_DEFINITION_EVENT, true},
    {RayEvent::ACTOR_LIFECYCLE_EVENT, false},
    {RayEvent::PLACEMENT_GROUP_DEFINITION_EVENT, false},  // creator_job_id is not a jobId
    {RayEvent::PLACEMENT_GROUP_LIFECYCLE_EVENT, false},
    {RayEvent::SUBMISSION_JOB_DEFINITION_EVENT, false},
    {RayEvent::SUBMISSION_JOB_LIFECYCLE_EVENT, false},
    {RayEvent::PLATFORM_EVENT, false},
    {RayEvent::WORKER_LIFECYCLE_EVENT, false},
    {RayEvent::WORKER_DEFINITION_EVENT, false},
    {RayEvent::AUTOSCALER_CONFIG_DEFINITION_EVENT, false},
    {RayEvent::AUTOSCALER_SCALING_DECISION_EVENT, false},
    {RayEvent::AUTOSCALER_NODE_PROVISIONING_EVENT, false},
};

TEST(EventRouteTest, RoutesEveryTypeByTheCollectorsRule) {
  const std::vector<RayEvent> events = test::OneEventOfEveryType();
  ASSERT_EQ(events.size(), kFiledByJob.size());
  for (const RayEvent& event : events) {
    const std::string wire = event.SerializeAsString();  // the route views it
    absl::StatusOr<EventRoute> route = ScanEventRoute(wire);
    ASSERT_TRUE(route.ok()) << route.status();
    EXPECT_EQ(route->event_type, event.event_type());
    EXPECT_EQ(route->session_name, event.session_name());
    EXPECT_EQ(route->node_id, event.node_id());
    EXPECT_EQ(route->timestamp_nanos,
              event.timestamp().seconds() * 1'000'000'000 + event.timestamp().nanos());
    const bool by_job = kFiledByJob.at(event.event_type());
    EXPECT_EQ(route->job_id, by_job ? "job" : "") << RayEvent::EventType_Name(event.event_type());
  }
}

TEST(EventRouteTest, EmptyJobIdGoesToNodeEvents) {
  RayEvent event = test::TaskDefinitionEvent("t", 0);
  event.mutable_task_definition_event()->clear_job_id();
  absl::StatusOr<EventRoute> route = ScanEventRoute(event.SerializeAsString());
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->job_id, "");
}

TEST(EventRouteTest, MissingEnvelopeFieldsAreEmpty) {
  RayEvent event;
  event.set_event_type(RayEvent::TASK_LIFECYCLE_EVENT);
  absl::StatusOr<EventRoute> route = ScanEventRoute(event.SerializeAsString());
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->session_name, "");
  EXPECT_EQ(route->node_id, "");
  EXPECT_EQ(route->timestamp_nanos, 0);
}

TEST(EventRouteTest, MalformedBytesAreRefused) {
  const std::string good = test::TaskDefinitionEvent("t", 0).SerializeAsString();
  EXPECT_FALSE(ScanEventRoute(good.substr(0, good.size() - 3)).ok());
  EXPECT_FALSE(ScanEventRoute("\x3a\x7f").ok());  // session_name, length beyond the end
  EXPECT_FALSE(ScanEventRoute("\xff").ok());      // truncated varint
}

}  // namespace
}  // namespace rayagg
