// rayagg-event-log-bench: the event log's insert + read throughput on one
// thread, coalescing off and on, on the realistic task stream of
// bench/task_events.h (per task a definition and three lifecycle reports
// carrying 5 transitions, each report one request later than the last, as
// Ray's once-a-second flushes spread them).
//
// Requests of 100 events are appended; one reader (a sink) reads batches of
// up to 1000. Two reader behaviours:
//   keeps-up  reads everything after each request (a healthy sink)
//   behind    reads everything only after every 10th request (a sink whose
//             POST lasts as long as 10 requests take to arrive), so a task's
//             later reports find its earlier ones unread and merge
// Dedup is on (window 100,000) in every run, as by default. Times include
// the merges, which the reader does (EventLog::Read). Each figure is the best
// of --repeat runs; compare the ratios, not the absolute numbers, on a shared
// machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "buffer/event_log.h"
#include "flags.h"
#include "ingest/event_keys.h"
#include "merge/ray_event_merger.h"
#include "rayagg/drop_counters.h"
#include "rayagg/event_batch.h"
#include "rayagg/event_type_filter.h"
#include "rayagg/incoming_event.h"
#include "task_events.h"

namespace rayagg::bench {
namespace {

using ray::rpc::events::RayEvent;

constexpr size_t kRequestEvents = 100;
constexpr size_t kReadBatch = 1000;
constexpr size_t kBehindRequests = 10;  // requests appended per read when behind

constexpr char kUsage[] =
    "usage: rayagg-event-log-bench [--events N] [--repeat N] [--reader R] [--coalescing C]\n"
    "  --events N       events in the stream (default 400000)\n"
    "  --repeat N       runs per configuration, best one reported (default 3)\n"
    "  --reader R       keeps-up, behind or both (default both)\n"
    "  --coalescing C   off, on or both (default both; the cost line needs both)\n";

struct Stream {
  std::vector<std::string> bytes;
  std::vector<IncomingEvent> events;  // views into `bytes`
  size_t lifecycle_events = 0;
  size_t transitions = 0;
};

Stream BuildStream(size_t total) {
  Stream stream;
  stream.bytes.reserve(total);
  std::vector<std::pair<int32_t, EventKeys>> keys;
  for (size_t first = 0; first < total; first += kRequestEvents) {
    auto request = BuildTaskEventsRequest(kRequestEvents, first / kRequestEvents % 4);
    StampForSend(request, first, std::chrono::system_clock::now());
    for (const RayEvent& event : request.events_data().events()) {
      stream.bytes.push_back(event.SerializeAsString());
      keys.emplace_back(event.event_type(), KeysOf(event));
      if (event.has_task_lifecycle_event()) {
        ++stream.lifecycle_events;
        stream.transitions += event.task_lifecycle_event().state_transitions_size();
      }
    }
  }
  for (size_t i = 0; i < stream.bytes.size(); ++i) {
    stream.events.push_back(IncomingEvent{stream.bytes[i], keys[i].first,
                                          keys[i].second.event_id_hash, keys[i].second.entity_key});
  }
  return stream;
}

struct RunResult {
  double seconds = 0;
  size_t entries_read = 0;
  size_t lifecycle_read = 0;
  uint64_t coalesced = 0;
  uint64_t dropped = 0;
};

RunResult RunOnce(const Stream& stream, bool coalesce, bool behind) {
  EventLog log({.max_events = 100'000, .max_bytes = 256ull << 20},
               {.dedup_window_events = 100'000,
                .merger_factory = coalesce ? RayEventMerger::Factory() : nullptr});
  DropCounters drops;
  const EventLog::CursorId cursor = log.AddCursor(EventTypeFilter::All(), drops, nullptr);
  EventBatch batch;
  RunResult result;
  const auto read = [&](size_t max) {
    batch.Clear();
    const size_t got = log.Read(cursor, max, batch).events;
    result.entries_read += got;
    for (size_t i = 0; i < got; ++i) {
      result.lifecycle_read += batch.event_type(i) == RayEvent::TASK_LIFECYCLE_EVENT;
    }
    return got;
  };
  const auto start = std::chrono::steady_clock::now();
  const std::span<const IncomingEvent> all(stream.events);
  size_t requests = 0;
  for (size_t first = 0; first < all.size(); first += kRequestEvents, ++requests) {
    (void)log.Append(all.subspan(first, std::min(kRequestEvents, all.size() - first)));
    if (!behind || (requests + 1) % kBehindRequests == 0) {
      while (read(kReadBatch) > 0) {
      }
    }
  }
  while (read(kReadBatch) > 0) {
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.coalesced = log.GetSnapshot().coalesced_events;
  result.dropped = drops.Total();
  return result;
}

int Run(const Flags& flags) {
  const size_t events = flags.Uint("events", 400'000);
  const size_t repeat = std::max<size_t>(1, flags.Uint("repeat", 3));
  const Stream stream = BuildStream(events);
  std::printf(
      "event log, one thread: %zu events (%zu lifecycle, %zu transitions), requests of %zu\n",
      stream.events.size(), stream.lifecycle_events, stream.transitions, kRequestEvents);
  std::printf("%-9s %-10s %14s %12s %12s %14s %8s\n", "reader", "coalescing", "events/s",
              "entries out", "coalesced", "lifecycle o/i", "dropped");
  const std::string reader = flags.String("reader", "both");
  const std::string coalescing = flags.String("coalescing", "both");
  for (const bool behind : {false, true}) {
    if (reader != "both" && reader != (behind ? "behind" : "keeps-up")) continue;
    double off_rate = 0;
    for (const bool coalesce : {false, true}) {
      if (coalescing != "both" && coalescing != (coalesce ? "on" : "off")) continue;
      RunResult best;
      for (size_t i = 0; i < repeat; ++i) {
        const RunResult run = RunOnce(stream, coalesce, behind);
        if (best.seconds == 0 || run.seconds < best.seconds) best = run;
      }
      const double rate = stream.events.size() / best.seconds;
      if (!coalesce) off_rate = rate;
      std::printf("%-9s %-10s %14.0f %12zu %12llu %14.3f %8llu\n", behind ? "behind" : "keeps-up",
                  coalesce ? "on" : "off", rate, best.entries_read,
                  static_cast<unsigned long long>(best.coalesced),
                  static_cast<double>(best.lifecycle_read) / stream.lifecycle_events,
                  static_cast<unsigned long long>(best.dropped));
      if (coalesce && off_rate > 0) {
        std::printf("%-9s coalescing costs %.1f%% of the throughput without it\n",
                    behind ? "behind" : "keeps-up", 100.0 * (1.0 - rate / off_rate));
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace rayagg::bench

int main(int argc, char** argv) {
  const rayagg::bench::Flags flags(argc, argv, {"events", "repeat", "reader", "coalescing"},
                                   rayagg::bench::kUsage);
  return rayagg::bench::Run(flags);
}
