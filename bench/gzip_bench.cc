// gzip of sink request bodies (compression: gzip) on one core: what it costs
// per event and how much it saves, at the level the sinks use (1) and at
// zlib's default (6), on the same realistic JSON the encoder benchmark uses.
//
// Input: 4 000 task events from bench/task_events.h (variant 3, as in
// json_encode_bench), encoded by the daemon's JSON encoder into batches of
// 1 000 events (the default batch.max_events). MB/s counts JSON input bytes.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "http/gzip.h"
#include "json/fast_json_encoder.h"
#include "task_events.h"

namespace {

constexpr size_t kEvents = 4000;
constexpr size_t kBatch = 1000;

const std::vector<std::string>& Batches() {
  static const std::vector<std::string> batches = [] {
    auto request = rayagg::bench::BuildTaskEventsRequest(kEvents, /*variant=*/3);
    rayagg::bench::StampForSend(request, 0, std::chrono::system_clock::now());
    auto encoder = rayagg::MakeFastJsonEncoder(rayagg::JsonOptions{});
    std::vector<std::string> out;
    const auto& events = request.events_data().events();
    for (int start = 0; start < events.size(); start += static_cast<int>(kBatch)) {
      std::string batch = "[";
      for (int i = start; i < start + static_cast<int>(kBatch) && i < events.size(); ++i) {
        if (i != start) batch.push_back(',');
        if (!encoder->AppendEvent(events[i].SerializeAsString(), batch).ok()) std::abort();
      }
      batch.push_back(']');
      out.push_back(std::move(batch));
    }
    return out;
  }();
  return batches;
}

void BM_Gzip(benchmark::State& state) {
  const int level = static_cast<int>(state.range(0));
  std::string out;
  size_t in_bytes = 0;
  size_t out_bytes = 0;
  size_t events = 0;
  for (auto _ : state) {
    for (const std::string& batch : Batches()) {
      if (!rayagg::GzipCompress(batch, out, level).ok()) {
        state.SkipWithError("gzip failed");
        return;
      }
      in_bytes += batch.size();
      out_bytes += out.size();
      benchmark::DoNotOptimize(out.data());
    }
    events += kEvents;
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.SetBytesProcessed(static_cast<int64_t>(in_bytes));
  state.counters["ratio"] = static_cast<double>(in_bytes) / static_cast<double>(out_bytes);
  state.counters["gzip_bytes_per_event"] =
      static_cast<double>(out_bytes) / static_cast<double>(events);
}
BENCHMARK(BM_Gzip)->ArgName("level")->Arg(1)->Arg(6);

}  // namespace

BENCHMARK_MAIN();
