#include "merge/ray_event_merger.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>

#include "ingest/event_keys.h"
#include "rayagg/incoming_event.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;
using ray::rpc::events::TaskLifecycleEvent;

RayEvent Lifecycle(const std::string& id, std::initializer_list<std::pair<int, int64_t>> states) {
  RayEvent event;
  event.set_event_id(id);
  event.set_event_type(RayEvent::TASK_LIFECYCLE_EVENT);
  event.mutable_timestamp()->set_seconds(100 + static_cast<int64_t>(id.size()));
  auto& payload = *event.mutable_task_lifecycle_event();
  payload.set_task_id("task-1");
  payload.set_task_attempt(2);
  for (const auto& [state, seconds] : states) {
    auto& transition = *payload.add_state_transitions();
    transition.set_state(static_cast<ray::rpc::TaskStatus>(state));
    transition.mutable_timestamp()->set_seconds(seconds);
  }
  return event;
}

bool MergePair(RayEventMerger& merger, std::string_view earlier, std::string_view later,
               std::string& out) {
  const std::string_view parts[] = {earlier, later};
  return merger.Merge(parts, out);
}

RayEvent Merged(const RayEvent& earlier, const RayEvent& later) {
  RayEventMerger merger;
  std::string bytes;
  EXPECT_TRUE(MergePair(merger, earlier.SerializeAsString(), later.SerializeAsString(), bytes));
  RayEvent merged;
  EXPECT_TRUE(merged.ParseFromString(bytes));
  return merged;
}

std::vector<std::pair<int, int64_t>> States(const RayEvent& event) {
  std::vector<std::pair<int, int64_t>> out;
  for (const auto& t : event.task_lifecycle_event().state_transitions()) {
    out.emplace_back(t.state(), t.timestamp().seconds());
  }
  return out;
}

TEST(RayEventMergerTest, UnionOfTransitionsOrderedByTimeEachPairOnce) {
  RayEvent earlier = Lifecycle("a", {{1, 10}, {5, 30}});
  RayEvent later = Lifecycle("bb", {{5, 30}, {2, 20}, {8, 40}});
  RayEvent merged = Merged(earlier, later);
  EXPECT_EQ(States(merged),
            (std::vector<std::pair<int, int64_t>>{{1, 10}, {2, 20}, {5, 30}, {8, 40}}));
  // Envelope: the first event's id and timestamp.
  EXPECT_EQ(merged.event_id(), "a");
  EXPECT_EQ(merged.timestamp().seconds(), 101);
}

TEST(RayEventMergerTest, TiesKeepReceivedOrder) {
  RayEvent merged = Merged(Lifecycle("a", {{8, 10}}), Lifecycle("b", {{9, 10}, {1, 10}}));
  EXPECT_EQ(States(merged), (std::vector<std::pair<int, int64_t>>{{8, 10}, {9, 10}, {1, 10}}));
}

TEST(RayEventMergerTest, LatestSetValueWinsWithPresenceRules) {
  RayEvent earlier = Lifecycle("a", {{1, 10}});
  auto& e = *earlier.mutable_task_lifecycle_event();
  e.set_worker_pid(11);
  e.set_worker_id("w1");
  e.set_is_debugger_paused(true);
  e.mutable_task_log_info()->set_stdout_file("out");
  e.mutable_task_log_info()->set_stdout_start(5);
  e.mutable_ray_error_info()->set_error_message("first");
  earlier.set_message("m1");

  RayEvent later = Lifecycle("b", {{2, 20}});
  auto& l = *later.mutable_task_lifecycle_event();
  l.set_worker_pid(0);              // implicit presence at default: not set
  l.set_worker_id("w2");            // set: wins
  l.set_is_debugger_paused(false);  // explicit presence: counts at its default
  l.mutable_task_log_info()->set_stderr_file("err");
  l.mutable_task_log_info()->set_stdout_start(0);  // optional: counts at 0
  l.mutable_ray_error_info()->set_error_type(static_cast<ray::rpc::ErrorType>(3));

  const RayEvent merged = Merged(earlier, later);
  const auto& m = merged.task_lifecycle_event();
  EXPECT_EQ(m.worker_pid(), 11);
  EXPECT_EQ(m.worker_id(), "w2");
  ASSERT_TRUE(m.has_is_debugger_paused());
  EXPECT_FALSE(m.is_debugger_paused());
  EXPECT_EQ(m.task_log_info().stdout_file(), "out");
  EXPECT_EQ(m.task_log_info().stderr_file(), "err");
  ASSERT_TRUE(m.task_log_info().has_stdout_start());
  EXPECT_EQ(m.task_log_info().stdout_start(), 0);
  EXPECT_EQ(m.ray_error_info().error_message(), "first");
  EXPECT_EQ(static_cast<int>(m.ray_error_info().error_type()), 3);
  EXPECT_EQ(merged.message(), "m1");
  EXPECT_EQ(m.task_id(), "task-1");
}

TEST(RayEventMergerTest, IdenticalDefinitionsCollapseToTheFirst) {
  RayEvent first;
  first.set_event_id("id-1");
  first.set_event_type(RayEvent::TASK_DEFINITION_EVENT);
  first.mutable_timestamp()->set_seconds(5);
  auto& def = *first.mutable_task_definition_event();
  def.set_task_id("t");
  def.set_task_name("f");
  (*def.mutable_required_resources())["CPU"] = 1;
  RayEvent second = first;
  second.set_event_id("id-2");
  second.mutable_timestamp()->set_seconds(6);
  const RayEvent merged = Merged(first, second);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(merged, first));
}

TEST(RayEventMergerTest, ProfileSpansAreUnioned) {
  RayEvent a;
  a.set_event_type(RayEvent::TASK_PROFILE_EVENT);
  auto* spans = a.mutable_task_profile_events()->mutable_profile_events();
  spans->set_component_type("worker");
  auto* span = spans->add_events();
  span->set_event_name("x");
  span->set_start_time(1);
  RayEvent b = a;
  auto* more = b.mutable_task_profile_events()->mutable_profile_events()->add_events();
  more->set_event_name("y");
  more->set_start_time(2);
  const RayEvent merged = Merged(a, b);
  ASSERT_EQ(merged.task_profile_events().profile_events().events_size(), 2);
  EXPECT_EQ(merged.task_profile_events().profile_events().events(1).event_name(), "y");
}

TEST(RayEventMergerTest, RefusesDifferentTypesAndGarbage) {
  RayEventMerger merger;
  std::string out;
  RayEvent def;
  def.set_event_type(RayEvent::TASK_DEFINITION_EVENT);
  EXPECT_FALSE(
      MergePair(merger, Lifecycle("a", {}).SerializeAsString(), def.SerializeAsString(), out));
  EXPECT_FALSE(MergePair(merger, "\xff\xff\xff", def.SerializeAsString(), out));
}

TEST(RayEventMergerTest, UnknownFieldsOfTheLaterEventSurvive) {
  RayEvent earlier = Lifecycle("a", {{1, 1}});
  RayEvent later = Lifecycle("b", {{2, 2}});
  std::string later_bytes = later.SerializeAsString();
  later_bytes += std::string("\xf8\x07\x2a", 3);  // field 127, varint 42
  RayEventMerger merger;
  std::string out;
  ASSERT_TRUE(MergePair(merger, earlier.SerializeAsString(), later_bytes, out));
  RayEvent merged;
  ASSERT_TRUE(merged.ParseFromString(out));
  EXPECT_EQ(merged.GetReflection()->GetUnknownFields(merged).field_count(), 1);
}

// The log merges a chain of parts in one call; that must equal merging them
// one at a time, in received order.
TEST(RayEventMergerTest, MergingAChainAtOnceEqualsMergingPairwise) {
  RayEvent a = Lifecycle("a", {{1, 10}, {2, 11}});
  RayEvent b = Lifecycle("b", {{2, 11}, {3, 12}});
  b.mutable_task_lifecycle_event()->set_node_id("node-b");
  RayEvent c = Lifecycle("c", {{4, 9}});
  c.mutable_task_lifecycle_event()->set_node_id("node-c");
  const std::string ab = a.SerializeAsString(), bb = b.SerializeAsString(),
                    cb = c.SerializeAsString();
  RayEventMerger merger;
  std::string at_once, first_two, pairwise;
  const std::string_view all[] = {ab, bb, cb};
  ASSERT_TRUE(merger.Merge(all, at_once));
  ASSERT_TRUE(MergePair(merger, ab, bb, first_two));
  ASSERT_TRUE(MergePair(merger, first_two, cb, pairwise));
  RayEvent x, y;
  ASSERT_TRUE(x.ParseFromString(at_once));
  ASSERT_TRUE(y.ParseFromString(pairwise));
  EXPECT_EQ(x.SerializeAsString(), y.SerializeAsString());
  EXPECT_EQ(x.event_id(), "a");
  EXPECT_EQ(x.task_lifecycle_event().node_id(), "node-c");
  EXPECT_EQ(States(x), (std::vector<std::pair<int, int64_t>>{{4, 9}, {1, 10}, {2, 11}, {3, 12}}));
}

// The event log recognises "no event_id" by this hash; ingest must agree.
TEST(EventIdHashTest, IngestHashesIdsLikeTheLog) {
  RayEvent event;
  EXPECT_EQ(KeysOf(event).event_id_hash, HashEventId(""));
  event.set_event_id("abc");
  EXPECT_EQ(KeysOf(event).event_id_hash, HashEventId("abc"));
}

}  // namespace
}  // namespace rayagg
