#include "demo/sim_cluster.h"

#include <algorithm>

#include "demo/sim_random.h"

namespace rayagg::demo {

SimCluster::SimCluster(SimOptions options)
    : layout_(std::move(options)),
      // Event ids differ between sessions of one seed (the demo's sessions
      // are named after their start), task ids do not.
      event_salt_(Mix64(HashText(layout_.session_name()))) {
  cluster_events_ = BuildClusterEvents(layout_, event_salt_);
  std::stable_sort(cluster_events_.begin(), cluster_events_.end(),
                   [](const TimedEvent& a, const TimedEvent& b) { return a.at < b.at; });
  // The actors' creation tasks are known from the start.
  for (uint64_t t = layout_.options().tasks; t < layout_.task_count(); ++t) {
    Schedule(layout_.Plan(t));
  }
}

void SimCluster::Schedule(const TaskPlan& plan) {
  for (int attempt = 0; attempt < plan.attempt_count; ++attempt) {
    for (int stage = 0; stage < kTaskStages; ++stage) {
      const StageSlot slot = StageOf(layout_, plan, attempt, stage);
      if (slot.at == kNever) continue;
      pending_.push(
          Pending{slot.at, plan.index, static_cast<uint8_t>(attempt), static_cast<uint8_t>(stage)});
    }
  }
}

bool SimCluster::EmitUntil(int64_t until_ns, const Emit& emit) {
  // Every event of a task comes at or after its submission: planning the
  // tasks submitted before `until_ns` is enough.
  while (next_task_ < layout_.options().tasks && layout_.SubmitTime(next_task_) < until_ns) {
    Schedule(layout_.Plan(next_task_++));
  }
  ray::rpc::events::RayEvent event;
  TaskPlan plan;
  uint64_t planned = ~uint64_t{0};
  while (true) {
    const bool has_task = !pending_.empty() && pending_.top().at < until_ns;
    const bool has_cluster = next_cluster_event_ < cluster_events_.size() &&
                             cluster_events_[next_cluster_event_].at < until_ns;
    if (!has_task && !has_cluster) break;
    if (has_cluster &&
        (!has_task || cluster_events_[next_cluster_event_].at <= pending_.top().at)) {
      TimedEvent& timed = cluster_events_[next_cluster_event_++];
      emit(timed.node, timed.event);
      ++events_emitted_;
      continue;
    }
    const Pending next = pending_.top();
    pending_.pop();
    if (next.task != planned) plan = layout_.Plan(next.task), planned = next.task;
    event.Clear();
    BuildTaskEvent(layout_, plan, next.attempt, next.stage, event_salt_, event);
    emit(StageOf(layout_, plan, next.attempt, next.stage).node, event);
    ++events_emitted_;
  }
  return next_task_ < layout_.options().tasks || !pending_.empty() ||
         next_cluster_event_ < cluster_events_.size();
}

}  // namespace rayagg::demo
