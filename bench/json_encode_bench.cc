// RayEvent -> JSON encoding on one core: our encoder against protobuf's
// printer (MessageToJsonString) on the same realistic mix, in the same run.
//
// Mix (bench/task_events.h, 1 task in 50 failing with a 2 KB stack trace):
// per task one TASK_DEFINITION_EVENT (function descriptor, resources, ~200-char
// runtime env, ref ids, label selector) and three TASK_LIFECYCLE_EVENTs, here
// widened to 4-6 state transitions each. Events are serialized once; each
// iteration encodes batches of 100 events into one growing buffer, "[a,b,...]"
// as the sinks do. Bytes/s counts JSON output bytes.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "json/fast_json_encoder.h"
#include "rayagg/event_json_encoder.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "task_events.h"

namespace {

constexpr size_t kEvents = 4000;
constexpr size_t kBatch = 100;

const std::vector<std::string>& Events() {
  static const std::vector<std::string> events = [] {
    auto request = rayagg::bench::BuildTaskEventsRequest(kEvents, /*variant=*/3);
    rayagg::bench::StampForSend(request, 0, std::chrono::system_clock::now());
    std::vector<std::string> out;
    int index = 0;
    for (auto& event : *request.mutable_events_data()->mutable_events()) {
      if (event.has_task_lifecycle_event()) {
        auto* lifecycle = event.mutable_task_lifecycle_event();
        const auto& first = lifecycle->state_transitions(0).timestamp();
        const int wanted = 4 + index++ % 3;
        static constexpr ray::rpc::TaskStatus kStates[] = {ray::rpc::PENDING_ARGS_AVAIL,
                                                           ray::rpc::PENDING_NODE_ASSIGNMENT,
                                                           ray::rpc::SUBMITTED_TO_WORKER,
                                                           ray::rpc::RUNNING,
                                                           ray::rpc::FINISHED,
                                                           ray::rpc::PENDING_ARGS_FETCH};
        for (int t = lifecycle->state_transitions_size(); t < wanted; ++t) {
          auto* transition = lifecycle->add_state_transitions();
          transition->set_state(kStates[t % 6]);
          transition->mutable_timestamp()->set_seconds(first.seconds());
          transition->mutable_timestamp()->set_nanos((first.nanos() + 1234567 * t) % 1000000000);
        }
      }
      out.push_back(event.SerializeAsString());
    }
    return out;
  }();
  return events;
}

void RunEncoder(benchmark::State& state, rayagg::EventJsonEncoder& encoder) {
  const auto& events = Events();
  std::string batch;
  size_t output_bytes = 0;
  size_t encoded = 0;
  for (auto _ : state) {
    for (size_t start = 0; start < events.size(); start += kBatch) {
      batch.clear();
      batch.push_back('[');
      for (size_t i = start; i < start + kBatch && i < events.size(); ++i) {
        if (i != start) batch.push_back(',');
        if (!encoder.AppendEvent(events[i], batch).ok()) {
          state.SkipWithError("encoding failed");
          return;
        }
        ++encoded;
      }
      batch.push_back(']');
      output_bytes += batch.size();
      benchmark::DoNotOptimize(batch.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(encoded));
  state.SetBytesProcessed(static_cast<int64_t>(output_bytes));
  state.counters["bytes_per_event"] =
      benchmark::Counter(static_cast<double>(output_bytes) / static_cast<double>(encoded));
}

// The daemon's encoder as configured by default (arena + specializations).
void BM_Ours(benchmark::State& state) {
  auto encoder = rayagg::MakeFastJsonEncoder(
      rayagg::JsonOptions{.preserve_proto_field_names = state.range(0) != 0});
  RunEncoder(state, *encoder);
}
BENCHMARK(BM_Ours)->ArgName("preserve_names")->Arg(0)->Arg(1);

// The default minus the hand-specialized encoders: reflection only.
void BM_OursReflectionOnly(benchmark::State& state) {
  auto encoder = rayagg::MakeFastJsonEncoder(rayagg::JsonOptions{},
                                             rayagg::FastJsonEncoderTuning{.specialized = false});
  RunEncoder(state, *encoder);
}
BENCHMARK(BM_OursReflectionOnly);

// The default minus the arena: Clear() and re-parse one reused RayEvent.
void BM_OursReusedMessage(benchmark::State& state) {
  auto encoder = rayagg::MakeFastJsonEncoder(
      rayagg::JsonOptions{}, rayagg::FastJsonEncoderTuning{.parse_on_arena = false});
  RunEncoder(state, *encoder);
}
BENCHMARK(BM_OursReusedMessage);

void BM_ProtobufPrinter(benchmark::State& state) {
  auto encoder = rayagg::MakeProtobufJsonEncoder(
      rayagg::JsonOptions{.preserve_proto_field_names = state.range(0) != 0});
  RunEncoder(state, *encoder);
}
BENCHMARK(BM_ProtobufPrinter)->ArgName("preserve_names")->Arg(0)->Arg(1);

// The parse alone (what any encoder working from a message pays).
void BM_ParseOnly(benchmark::State& state) {
  const auto& events = Events();
  ray::rpc::events::RayEvent event;
  size_t parsed = 0;
  for (auto _ : state) {
    for (const auto& bytes : events) {
      event.Clear();
      benchmark::DoNotOptimize(event.ParseFromString(bytes));
      ++parsed;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(parsed));
}
BENCHMARK(BM_ParseOnly);

}  // namespace

BENCHMARK_MAIN();
