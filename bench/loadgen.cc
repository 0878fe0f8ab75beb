// rayagg-loadgen: sends realistic Ray task events to an aggregator over gRPC
// and prints one key=value summary line (see FormatLoadResult).
#include <iostream>

#include "flags.h"
#include "load_runner.h"

namespace {

constexpr char kUsage[] =
    "usage: rayagg-loadgen --target HOST:PORT [options]\n"
    "  --batch N          events per AddEvents request (default 1000)\n"
    "  --concurrency N    threads, each with its own connection and one call in flight (default "
    "2)\n"
    "  --duration SECONDS stop after this long (default 10; 300 when --total is given)\n"
    "  --rate EVENTS/S    total send rate, 0 = as fast as possible (default 0)\n"
    "  --total N          stop after N events\n"
    "  --deadline-ms N    per-call deadline (default 10000)\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace rayagg::bench;
  const Flags flags(argc, argv,
                    {"target", "batch", "concurrency", "duration", "rate", "total", "deadline-ms"},
                    kUsage);
  LoadOptions options;
  options.target = flags.String("target", "");
  if (options.target.empty()) flags.Fail("--target is required");
  options.batch = flags.Uint("batch", 1000);
  options.concurrency = flags.Uint("concurrency", 2);
  options.total = flags.Uint("total", 0);
  // A --total run is bounded too, in case the daemon stops answering.
  options.duration_s = flags.Double("duration", options.total > 0 ? 300 : 10);
  options.rate = flags.Double("rate", 0);
  options.call_deadline = std::chrono::milliseconds(flags.Uint("deadline-ms", 10'000));
  if (options.batch == 0 || options.concurrency == 0) {
    flags.Fail("--batch and --concurrency must be at least 1");
  }
  const LoadResult result = RunLoad(options);
  std::cout << FormatLoadResult(result) << std::endl;
  return result.failed_calls == 0 ? 0 : 1;
}
