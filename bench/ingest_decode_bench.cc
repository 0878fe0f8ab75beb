// Ingest's per-request work on one core: DecodeAddEventsRequest (validating
// parse of every event, type, id hash and entity key) over a batch-1000
// AddEventsRequest of the realistic task mix (bench/task_events.h). This is
// ingest's largest cost end to end (docs/PERFORMANCE.md, "Where the time
// goes"); items/s counts events.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "ingest/add_events_decoder.h"
#include "task_events.h"

namespace {

void BM_DecodeAddEventsRequest(benchmark::State& state) {
  const size_t events = static_cast<size_t>(state.range(0));
  auto request = rayagg::bench::BuildTaskEventsRequest(events, /*variant=*/1);
  rayagg::bench::StampForSend(request, 0, std::chrono::system_clock::now());
  const std::string wire = request.SerializeAsString();
  for (auto _ : state) {
    auto decoded = rayagg::DecodeAddEventsRequest(wire);
    if (!decoded.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(decoded);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * wire.size()));
}
BENCHMARK(BM_DecodeAddEventsRequest)->Arg(100)->Arg(1000);

}  // namespace

BENCHMARK_MAIN();
