// JSON -> RayEvent for HTTP ingest on one core: our direct parser
// (nlohmann_json DOM + protobuf reflection, ingest/json_event_parser.h)
// against protobuf's JsonStringToMessage, on the same realistic bodies.
//
// Body: 1000 events of the loadgen's task mix (bench/task_events.h: per task
// one TASK_DEFINITION_EVENT and three TASK_LIFECYCLE_EVENTs, 1 task in 50
// failing with a 2 KB stack trace), printed by protobuf's printer the way
// Ray's agent prints them (fields without presence included, lowerCamelCase),
// joined into a JSON array with ", " separators. Every variant ends with the
// serialized RayEvent bytes the event log stores. items/s = events/s.
//
//   Direct/sax_body          what ingest does: one pass of nlohmann_json's SAX
//                            parser straight into the messages (ParseEventArray)
//   Direct/body              the DOM variant: parse the body, convert each element
//   Direct/dom_parse_only    of which nlohmann_json's DOM parse alone
//   Protobuf/elements        JsonStringToMessage per element, elements pre-split
//                            for free (a real handler would also have to split)
//   Protobuf/wrapped_body    one JsonStringToMessage of {"events": body} into a
//                            RayEventsData: fastest protobuf use, but one bad
//                            element fails the whole request
#include <benchmark/benchmark.h>
#include <google/protobuf/util/json_util.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ingest/json_event_parser.h"
#include "src/ray/protobuf/events_event_aggregator_service.pb.h"
#include "task_events.h"

namespace {

constexpr size_t kEvents = 1000;

struct Corpus {
  std::vector<std::string> elements;  // one JSON object per event
  std::string body;                   // "[e1, e2, ...]"
};

const Corpus& Bodies() {
  static const Corpus corpus = [] {
    auto request = rayagg::bench::BuildTaskEventsRequest(kEvents, /*variant=*/3);
    rayagg::bench::StampForSend(request, 0, std::chrono::system_clock::now());
    google::protobuf::util::JsonPrintOptions options;
    options.always_print_primitive_fields = true;
    Corpus out;
    out.body = "[";
    for (const auto& event : request.events_data().events()) {
      std::string json;
      if (!google::protobuf::util::MessageToJsonString(event, &json, options).ok()) std::abort();
      if (out.body.size() > 1) out.body += ", ";
      out.body += json;
      out.elements.push_back(std::move(json));
    }
    out.body += "]";
    return out;
  }();
  return corpus;
}

void SetCounters(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kEvents));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Bodies().body.size()));
}

void BM_Direct_Body(benchmark::State& state) {
  const std::string& body = Bodies().body;
  ray::rpc::events::RayEvent event;
  std::vector<std::string> serialized(kEvents);
  for (auto _ : state) {
    const auto array = nlohmann::json::parse(body, nullptr, false);
    if (!array.is_array() || array.size() != kEvents) std::abort();
    for (size_t i = 0; i < kEvents; ++i) {
      event.Clear();
      if (!rayagg::JsonToMessage(array[i], event).ok()) std::abort();
      event.SerializeToString(&serialized[i]);
    }
    benchmark::DoNotOptimize(serialized.data());
  }
  SetCounters(state);
}
BENCHMARK(BM_Direct_Body)->Name("Direct/body")->Unit(benchmark::kMillisecond);

void BM_Direct_SaxBody(benchmark::State& state) {
  const std::string& body = Bodies().body;
  std::vector<std::string> serialized(kEvents);
  const rayagg::EventArrayCallbacks callbacks{
      .on_event =
          [&](size_t index, ray::rpc::events::RayEvent& event) {
            event.SerializeToString(&serialized[index]);
          },
      .on_error = [](size_t, int32_t, std::string) { std::abort(); }};
  for (auto _ : state) {
    if (!rayagg::ParseEventArray(body, callbacks).ok()) std::abort();
    benchmark::DoNotOptimize(serialized.data());
  }
  SetCounters(state);
}
BENCHMARK(BM_Direct_SaxBody)->Name("Direct/sax_body")->Unit(benchmark::kMillisecond);

// The share of Direct/body spent in nlohmann_json's parse alone.
void BM_Direct_ParseOnly(benchmark::State& state) {
  const std::string& body = Bodies().body;
  for (auto _ : state) {
    const auto array = nlohmann::json::parse(body, nullptr, false);
    if (!array.is_array() || array.size() != kEvents) std::abort();
    benchmark::DoNotOptimize(array.size());
  }
  SetCounters(state);
}
BENCHMARK(BM_Direct_ParseOnly)->Name("Direct/dom_parse_only")->Unit(benchmark::kMillisecond);

void BM_Protobuf_Elements(benchmark::State& state) {
  const std::vector<std::string>& elements = Bodies().elements;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  ray::rpc::events::RayEvent event;
  std::vector<std::string> serialized(kEvents);
  for (auto _ : state) {
    for (size_t i = 0; i < kEvents; ++i) {
      event.Clear();
      if (!google::protobuf::util::JsonStringToMessage(elements[i], &event, options).ok()) {
        std::abort();
      }
      event.SerializeToString(&serialized[i]);
    }
    benchmark::DoNotOptimize(serialized.data());
  }
  SetCounters(state);
}
BENCHMARK(BM_Protobuf_Elements)->Name("Protobuf/elements")->Unit(benchmark::kMillisecond);

void BM_Protobuf_WrappedBody(benchmark::State& state) {
  const std::string wrapped = "{\"events\": " + Bodies().body + "}";
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  std::vector<std::string> serialized(kEvents);
  for (auto _ : state) {
    ray::rpc::events::RayEventsData data;
    if (!google::protobuf::util::JsonStringToMessage(wrapped, &data, options).ok()) std::abort();
    if (static_cast<size_t>(data.events_size()) != kEvents) std::abort();
    for (size_t i = 0; i < kEvents; ++i)
      data.events(static_cast<int>(i)).SerializeToString(&serialized[i]);
    benchmark::DoNotOptimize(serialized.data());
  }
  SetCounters(state);
}
BENCHMARK(BM_Protobuf_WrappedBody)->Name("Protobuf/wrapped_body")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
