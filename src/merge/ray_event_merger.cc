#include "merge/ray_event_merger.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace rayagg {
namespace {

using ray::rpc::events::RayEvent;
using ray::rpc::events::TaskLifecycleEvent;

constexpr size_t kArenaBlockBytes = 64 * 1024;

bool SameTime(const google::protobuf::Timestamp& a, const google::protobuf::Timestamp& b) {
  return a.seconds() == b.seconds() && a.nanos() == b.nanos();
}

bool Earlier(const google::protobuf::Timestamp& a, const google::protobuf::Timestamp& b) {
  return a.seconds() != b.seconds() ? a.seconds() < b.seconds() : a.nanos() < b.nanos();
}

}  // namespace

RayEventMerger::RayEventMerger(bool fast_paths) : fast_paths_(fast_paths) {
  arena_block_.resize(kArenaBlockBytes);
  google::protobuf::ArenaOptions options;
  options.initial_block = arena_block_.data();
  options.initial_block_size = arena_block_.size();
  arena_.emplace(options);
}

bool RayEventMerger::Merge(std::span<const std::string_view> parts, std::string& merged) {
  if (parts.empty()) return false;
  if (fast_paths_ && wire_.Merge(parts, merged)) return true;
  arena_->Reset();
  auto* earlier = google::protobuf::Arena::CreateMessage<RayEvent>(&*arena_);
  if (!earlier->ParseFromArray(parts[0].data(), static_cast<int>(parts[0].size()))) return false;
  for (const std::string_view part : parts.subspan(1)) {
    auto* later = google::protobuf::Arena::CreateMessage<RayEvent>(&*arena_);
    if (!later->ParseFromArray(part.data(), static_cast<int>(part.size()))) return false;
    // The log merges only events of one entity key, which includes the
    // payload kind; check the type too rather than trust a hash.
    if (earlier->event_type() != later->event_type()) return false;
    MergeInto(*later, *earlier);
  }
  merged.clear();
  return earlier->SerializeToString(&merged);
}

void RayEventMerger::MergeInto(RayEvent& later, RayEvent& earlier) {
  if (fast_paths_ && later.has_task_lifecycle_event() && earlier.has_task_lifecycle_event()) {
    // The envelope keeps the first event's identity and time.
    later.clear_event_id();
    later.clear_timestamp();
    MergeLifecycle(*later.mutable_task_lifecycle_event(), *earlier.mutable_task_lifecycle_event());
    earlier.MergeFrom(later);
    return;
  }
  plans_.Prepare(later, earlier, /*envelope=*/true);
  earlier.MergeFrom(later);
}

// What MergePlans does for TaskLifecycleEvent, on generated accessors: the
// union of transitions (each (state, timestamp) once, ordered by time, ties
// in received order); nested messages set in both are prepared generically
// (rare: errors and log info); the caller's MergeFrom does the rest.
void RayEventMerger::MergeLifecycle(TaskLifecycleEvent& later, TaskLifecycleEvent& earlier) {
  auto& to = *earlier.mutable_state_transitions();
  auto& from = *later.mutable_state_transitions();
  const int original = to.size();
  for (int i = 0; i < from.size(); ++i) {
    auto& transition = *from.Mutable(i);
    const auto existing = std::find_if(to.begin(), to.begin() + original, [&](const auto& t) {
      return t.state() == transition.state() && SameTime(t.timestamp(), transition.timestamp());
    });
    if (existing != to.begin() + original) {
      existing->MergeFrom(transition);  // same state and time: nothing else to differ today
      continue;
    }
    to.Add()->Swap(&transition);
  }
  from.Clear();
  // Stable insertion sort by time: lists are short and nearly sorted.
  for (int i = 1; i < to.size(); ++i) {
    for (int j = i; j > 0 && Earlier(to[j].timestamp(), to[j - 1].timestamp()); --j) {
      to.SwapElements(j, j - 1);
    }
  }
  if (later.has_ray_error_info() && earlier.has_ray_error_info()) {
    plans_.Prepare(*later.mutable_ray_error_info(), *earlier.mutable_ray_error_info(),
                   /*envelope=*/false);
  }
  if (later.has_task_log_info() && earlier.has_task_log_info()) {
    plans_.Prepare(*later.mutable_task_log_info(), *earlier.mutable_task_log_info(),
                   /*envelope=*/false);
  }
}

EventMergerFactory RayEventMerger::Factory() {
  return [] { return std::make_unique<RayEventMerger>(); };
}

}  // namespace rayagg
