#include "load_runner.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <latch>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "src/ray/protobuf/events_event_aggregator_service.grpc.pb.h"
#include "task_events.h"

namespace rayagg::bench {
namespace {

using ray::rpc::events::AddEventsReply;
using ray::rpc::events::AddEventsRequest;
using ray::rpc::events::EventAggregatorService;
using SteadyClock = std::chrono::steady_clock;

const char* StatusCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "OTHER";
  }
}

struct Shared {
  explicit Shared(size_t threads) : built(static_cast<std::ptrdiff_t>(threads)) {}
  std::latch built;  // every thread has its request pool and its connection
  std::latch go{1};  // the clock has started
  SteadyClock::time_point start;
  SteadyClock::time_point end;
  std::atomic<uint64_t> claimed{0};  // events handed out under --total
};

struct ThreadResult {
  LoadResult counts;  // latency fields unused here
  std::vector<double> latencies_ms;
  SteadyClock::time_point last_reply;
};

// Serialized RayEvent bytes of `request` as it will go on the wire.
uint64_t EventBytes(const AddEventsRequest& request) {
  request.ByteSizeLong();  // fills the cached sizes read below
  uint64_t bytes = 0;
  for (const auto& event : request.events_data().events()) bytes += event.GetCachedSize();
  return bytes;
}

void RunThread(const LoadOptions& options, size_t index, Shared& shared, ThreadResult& out) {
  grpc::ChannelArguments args;
  // A private subchannel pool gives this thread its own TCP connection, the
  // way each Ray worker process has its own.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto channel =
      grpc::CreateCustomChannel(options.target, grpc::InsecureChannelCredentials(), args);
  auto stub = EventAggregatorService::NewStub(channel);
  std::vector<AddEventsRequest> pool;
  for (size_t i = 0; i < options.pool_requests; ++i) {
    pool.push_back(BuildTaskEventsRequest(options.batch, index * options.pool_requests + i));
  }
  // Connecting is not part of the measurement; a failure shows up as errors.
  channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(5));
  out.latencies_ms.reserve(1 << 16);
  shared.built.count_down();
  shared.go.wait();

  const double thread_rate = options.rate / static_cast<double>(options.concurrency);
  SteadyClock::time_point next_send = shared.start;
  out.last_reply = shared.start;
  for (size_t call = 0;; ++call) {
    SteadyClock::time_point now = SteadyClock::now();
    if (now >= shared.end) break;
    size_t count = options.batch;
    if (options.total > 0) {
      const uint64_t first = shared.claimed.fetch_add(options.batch);
      if (first >= options.total) break;
      count = static_cast<size_t>(std::min<uint64_t>(options.batch, options.total - first));
    }
    if (thread_rate > 0) {
      if (next_send > now) std::this_thread::sleep_until(std::min(next_send, shared.end));
      // After a stall, do not burst to catch up by more than a second.
      next_send = std::max(next_send, SteadyClock::now() - std::chrono::seconds(1)) +
                  std::chrono::duration_cast<SteadyClock::duration>(
                      std::chrono::duration<double>(count / thread_rate));
    }
    AddEventsRequest* request = &pool[call % pool.size()];
    std::optional<AddEventsRequest> partial;
    if (count < static_cast<size_t>(request->events_data().events_size())) {
      partial = *request;  // the last, short request of a --total run
      auto* events = partial->mutable_events_data()->mutable_events();
      events->DeleteSubrange(static_cast<int>(count), events->size() - static_cast<int>(count));
      request = &*partial;
    }
    StampForSend(*request, ReserveSequences(count), std::chrono::system_clock::now());
    const uint64_t event_bytes = EventBytes(*request);

    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + options.call_deadline);
    AddEventsReply reply;
    const SteadyClock::time_point sent = SteadyClock::now();
    const grpc::Status status = stub->AddEvents(&context, *request, &reply);
    const SteadyClock::time_point replied = SteadyClock::now();
    out.last_reply = std::max(out.last_reply, replied);
    out.counts.sent_events += count;
    out.latencies_ms.push_back(std::chrono::duration<double, std::milli>(replied - sent).count());
    if (status.ok() && reply.status().code() == 0) {
      ++out.counts.ok_calls;
      out.counts.ok_events += count;
      out.counts.ok_event_bytes += event_bytes;
      continue;
    }
    ++out.counts.failed_calls;
    ++out.counts
          .errors_by_code[status.ok() ? "REPLY_STATUS_" + std::to_string(reply.status().code())
                                      : StatusCodeName(status.error_code())];
    if (out.counts.failed_calls <= 3) {
      std::fprintf(stderr, "loadgen: AddEvents failed: %s %s\n",
                   StatusCodeName(status.error_code()), status.error_message().c_str());
    }
    // Do not spin on a daemon that is down.
    std::this_thread::sleep_until(
        std::min(SteadyClock::now() + std::chrono::milliseconds(10), shared.end));
  }
}

double Percentile(std::vector<double>& values, double fraction) {
  if (values.empty()) return 0;
  const size_t rank = std::min(values.size() - 1, static_cast<size_t>(fraction * values.size()));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank),
                   values.end());
  return values[rank];
}

}  // namespace

LoadResult RunLoad(const LoadOptions& options) {
  Shared shared(options.concurrency);
  std::vector<ThreadResult> results(options.concurrency);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < options.concurrency; ++i) {
    threads.emplace_back([&, i] { RunThread(options, i, shared, results[i]); });
  }
  shared.built.wait();
  shared.start = SteadyClock::now();
  shared.end = shared.start + std::chrono::duration_cast<SteadyClock::duration>(
                                  std::chrono::duration<double>(options.duration_s));
  LoadResult total;
  total.start_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  shared.go.count_down();
  for (auto& thread : threads) thread.join();

  std::vector<double> latencies;
  SteadyClock::time_point last_reply = shared.start;
  for (ThreadResult& result : results) {
    total.sent_events += result.counts.sent_events;
    total.ok_calls += result.counts.ok_calls;
    total.ok_events += result.counts.ok_events;
    total.ok_event_bytes += result.counts.ok_event_bytes;
    total.failed_calls += result.counts.failed_calls;
    for (const auto& [code, calls] : result.counts.errors_by_code)
      total.errors_by_code[code] += calls;
    latencies.insert(latencies.end(), result.latencies_ms.begin(), result.latencies_ms.end());
    last_reply = std::max(last_reply, result.last_reply);
  }
  total.elapsed_s = std::chrono::duration<double>(last_reply - shared.start).count();
  total.latency_p50_ms = Percentile(latencies, 0.50);
  total.latency_p99_ms = Percentile(latencies, 0.99);
  total.latency_max_ms =
      latencies.empty() ? 0 : *std::max_element(latencies.begin(), latencies.end());
  return total;
}

std::string FormatLoadResult(const LoadResult& result) {
  char numbers[512];
  std::snprintf(numbers, sizeof(numbers),
                "sent_events=%llu ok_calls=%llu ok_events=%llu errors=%llu",
                static_cast<unsigned long long>(result.sent_events),
                static_cast<unsigned long long>(result.ok_calls),
                static_cast<unsigned long long>(result.ok_events),
                static_cast<unsigned long long>(result.failed_calls));
  std::string line = numbers;
  for (const auto& [code, calls] : result.errors_by_code) {
    line += " errors_" + code + "=" + std::to_string(calls);
  }
  std::snprintf(numbers, sizeof(numbers),
                " elapsed_s=%.3f events_per_s=%.0f avg_event_bytes=%.1f latency_p50_ms=%.2f "
                "latency_p99_ms=%.2f latency_max_ms=%.2f start_unix_ns=%lld",
                result.elapsed_s, result.events_per_s(), result.avg_event_bytes(),
                result.latency_p50_ms, result.latency_p99_ms, result.latency_max_ms,
                static_cast<long long>(result.start_unix_ns));
  return line + numbers;
}

}  // namespace rayagg::bench
