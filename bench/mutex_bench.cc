// rayagg::Mutex (std::mutex underneath, include/rayagg/mutex.h) against
// absl::Mutex, which the event log used before: lock + a critical section +
// unlock, from 1, 2 and 4 threads sharing one lock (4 threads on the 2-core
// CI machine: more threads than cores, like gRPC's pool appending while sinks
// read). Two critical sections: a counter increment (the lock's own cost) and
// ~100 dependent multiply-adds (about an Append of a few events: copies and
// pointer moves). Real time per operation, all threads together.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "absl/synchronization/mutex.h"
#include "rayagg/mutex.h"

namespace {

uint64_t Work(uint64_t value, int64_t steps) {
  for (int64_t i = 0; i < steps; ++i) value = value * 6364136223846793005u + 1442695040888963407u;
  return value;
}

struct RayaggLocked {
  rayagg::Mutex mutex;
  uint64_t value = 0;
  void Run(int64_t steps) {
    rayagg::MutexLock lock(mutex);
    value = Work(value, steps);
  }
};

struct AbslLocked {
  absl::Mutex mutex;
  uint64_t value = 0;
  void Run(int64_t steps) {
    absl::MutexLock lock(&mutex);
    value = Work(value, steps);
  }
};

template <typename Locked>
void BM_Locked(benchmark::State& state) {
  static Locked shared;
  const int64_t steps = state.range(0);
  for (auto _ : state) shared.Run(steps);
  state.SetItemsProcessed(state.iterations());
}

void Arguments(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("work")->Arg(1)->Arg(100)->ThreadRange(1, 4)->UseRealTime();
}

BENCHMARK(BM_Locked<RayaggLocked>)->Name("rayagg::Mutex")->Apply(Arguments);
BENCHMARK(BM_Locked<AbslLocked>)->Name("absl::Mutex")->Apply(Arguments);

}  // namespace

BENCHMARK_MAIN();
