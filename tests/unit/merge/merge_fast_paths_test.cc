// The fast lifecycle merges against the generic reflection path, on random
// chains of TASK_LIFECYCLE_EVENTs: every field of TaskLifecycleEvent (and
// below) gets random values, parts share some transitions, some carry
// unknown fields. If a field added to Ray's protos made a fast path merge
// differently, this fails.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "merge/lifecycle_wire_merge.h"
#include "merge/ray_event_merger.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/random_message.h"

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;

std::vector<std::string> RandomChain(testing::RandomMessageFiller& filler, std::mt19937_64& rng) {
  const int length = std::uniform_int_distribution<int>(2, 4)(rng);
  std::vector<RayEvent> events(static_cast<size_t>(length));
  for (int i = 0; i < length; ++i) {
    RayEvent& event = events[static_cast<size_t>(i)];
    event.set_event_id("id-" + std::to_string(rng() % 1000));
    event.set_event_type(RayEvent::TASK_LIFECYCLE_EVENT);
    if (rng() % 4 != 0) event.mutable_timestamp()->set_seconds(static_cast<int64_t>(rng() % 100));
    if (rng() % 2 == 0) event.set_severity(static_cast<RayEvent::Severity>(rng() % 7));
    if (rng() % 2 == 0) event.set_message("m" + std::to_string(rng() % 10));
    if (rng() % 2 == 0) event.set_node_id("n" + std::to_string(rng() % 10));
    if (rng() % 3 == 0) event.set_source_pid(static_cast<int32_t>(rng() % 5));
    auto& payload = *event.mutable_task_lifecycle_event();
    filler.Fill(payload);
    // Errors in several parts make the wire path decline: keep both cases.
    if (i > 0 && rng() % 3 != 0) payload.clear_ray_error_info();
    // Share transitions with an earlier part, sometimes out of order.
    if (i > 0 && rng() % 2 == 0) {
      const auto& earlier = events[rng() % static_cast<size_t>(i)].task_lifecycle_event();
      for (const auto& transition : earlier.state_transitions()) {
        if (rng() % 2 == 0) *payload.add_state_transitions() = transition;
      }
    }
  }
  std::vector<std::string> parts;
  for (const RayEvent& event : events) {
    std::string bytes = event.SerializeAsString();
    if (rng() % 5 == 0)
      bytes += std::string("\xf8\x07", 2) + static_cast<char>(rng() % 100);  // field 127
    parts.push_back(std::move(bytes));
  }
  return parts;
}

RayEvent Parse(const std::string& bytes) {
  RayEvent event;
  EXPECT_TRUE(event.ParseFromString(bytes));
  return event;
}

TEST(MergeFastPathsTest, EqualTheGenericPathOnRandomLifecycleChains) {
  testing::RandomMessageFiller filler(20261202);
  filler.bad_timestamp_per_mille = 0;
  filler.max_depth = 4;
  std::mt19937_64 rng(7);
  RayEventMerger generic(/*fast_paths=*/false);
  RayEventMerger fast(/*fast_paths=*/true);
  LifecycleWireMerge wire;
  int wire_applied = 0;
  constexpr int kChains = 3000;
  for (int chain = 0; chain < kChains; ++chain) {
    const std::vector<std::string> owned = RandomChain(filler, rng);
    const std::vector<std::string_view> parts(owned.begin(), owned.end());
    std::string expected, actual, on_wire;
    ASSERT_TRUE(generic.Merge(parts, expected));
    ASSERT_TRUE(fast.Merge(parts, actual));
    const RayEvent want = Parse(expected);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(want, Parse(actual)))
        << "chain " << chain;
    if (wire.Merge(parts, on_wire)) {
      ++wire_applied;
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(want, Parse(on_wire)))
          << "chain " << chain << "\nwant: " << want.DebugString()
          << "\ngot: " << Parse(on_wire).DebugString();
    }
  }
  // Both paths must have been exercised for the comparison to mean much.
  EXPECT_GT(wire_applied, kChains / 3);
  EXPECT_LT(wire_applied, kChains);
}

TEST(LifecycleWireMergeTest, DeclinesWhatItDoesNotHandle) {
  LifecycleWireMerge wire;
  RayEvent lifecycle;
  lifecycle.set_event_type(RayEvent::TASK_LIFECYCLE_EVENT);
  lifecycle.mutable_task_lifecycle_event()->set_task_id("t");
  RayEvent definition;
  definition.set_event_type(RayEvent::TASK_DEFINITION_EVENT);
  definition.mutable_task_definition_event()->set_task_id("t");
  RayEvent with_error = lifecycle;
  with_error.mutable_task_lifecycle_event()->mutable_ray_error_info()->set_error_message("x");
  const std::string a = lifecycle.SerializeAsString(), d = definition.SerializeAsString(),
                    e = with_error.SerializeAsString(), garbage = "\xff\xff\xff";
  std::string out;
  const std::string_view other_payload[] = {a, d};
  const std::string_view two_errors[] = {e, a, e};
  const std::string_view malformed[] = {a, garbage};
  const std::string_view one_error[] = {e, a, a};
  EXPECT_FALSE(wire.Merge(other_payload, out));
  EXPECT_FALSE(wire.Merge(two_errors, out));
  EXPECT_FALSE(wire.Merge(malformed, out));
  EXPECT_TRUE(wire.Merge(one_error, out));
  EXPECT_EQ(Parse(out).task_lifecycle_event().ray_error_info().error_message(), "x");
}

}  // namespace
}  // namespace rayagg
