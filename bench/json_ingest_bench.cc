// JSON -> RayEvent for HTTP ingest on one core: our transcoder (simdjson On
// Demand straight to wire bytes, json/event_json_parser.h) against the
// parser it replaced (nlohmann_json SAX + protobuf reflection, kept in
// tests/support/legacy) and protobuf's JsonStringToMessage, on the same
// realistic body.
//
// Body: 1000 events of the loadgen's task mix (bench/task_events.h: per task
// one TASK_DEFINITION_EVENT and three TASK_LIFECYCLE_EVENTs, 1 task in 50
// failing with a 2 KB stack trace), printed by protobuf's printer the way
// Ray's agent prints them (fields without presence included, lowerCamelCase,
// Python's ", " and ": " separators). Every variant ends with the serialized
// RayEvent bytes the event log stores. items/s = events/s.
//
//   Ours/body              what ingest does: ParseArray into a reused batch
//   Ours/body_and_facts    the same plus each event's type, id hash and
//                          entity key read from its bytes (FactsOfWire): the
//                          whole of ingest's per-event work before the event log
//   Ours/snake_case_body   Ours/body on the same events with snake_case keys
//   Simdjson/iterate_only  simdjson On Demand visiting every value of the body
//                          without converting anything: the floor under Ours
//   Legacy/sax_body        the parser before: one pass of nlohmann_json's SAX
//                          parser into messages, then SerializeToString
//   Legacy/dom_parse_only  nlohmann_json's DOM parse of the body alone
//   Protobuf/elements      JsonStringToMessage per element, elements pre-split
//                          for free (a real handler would also have to split)
//   Protobuf/wrapped_body  one JsonStringToMessage of {"events": body} into a
//                          RayEventsData: fastest protobuf use, but one bad
//                          element fails the whole request
#include <benchmark/benchmark.h>
#include <google/protobuf/util/json_util.h>
#include <simdjson.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ingest/event_keys.h"
#include "json/event_json_parser.h"
#include "src/ray/protobuf/events_event_aggregator_service.pb.h"
#include "support/legacy/nlohmann_event_parser.h"
#include "task_events.h"

namespace {

constexpr size_t kEvents = 1000;

// Python's json.dumps separators: ", " and ": " outside strings.
std::string WithPythonSeparators(std::string_view json) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    out += c;
    if (in_string) {
      if (c == '\\') {
        out += json[++i];
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',' || c == ':') {
      out += ' ';
    }
  }
  return out;
}

struct Corpus {
  std::vector<std::string> elements;  // one JSON object per event
  std::string body;                   // "[e1, e2, ...]"
  std::string snake_case_body;
};

const Corpus& Bodies() {
  static const Corpus corpus = [] {
    auto request = rayagg::bench::BuildTaskEventsRequest(kEvents, /*variant=*/3);
    rayagg::bench::StampForSend(request, 0, std::chrono::system_clock::now());
    Corpus out;
    for (const bool snake_case : {false, true}) {
      google::protobuf::util::JsonPrintOptions options;
      options.always_print_primitive_fields = true;
      options.preserve_proto_field_names = snake_case;
      std::string& body = snake_case ? out.snake_case_body : out.body;
      body = "[";
      for (const auto& event : request.events_data().events()) {
        std::string json;
        if (!google::protobuf::util::MessageToJsonString(event, &json, options).ok()) std::abort();
        json = WithPythonSeparators(json);
        if (body.size() > 1) body += ", ";
        body += json;
        if (!snake_case) out.elements.push_back(std::move(json));
      }
      body += "]";
    }
    return out;
  }();
  return corpus;
}

void SetCounters(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kEvents));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Bodies().body.size()));
}

void OursOn(benchmark::State& state, const std::string& source, bool facts) {
  rayagg::EventJsonParser parser;
  rayagg::EventJsonBatch batch;
  // As HttpServer hands bodies over: with spare capacity to read in place.
  std::string body;
  body.reserve(source.size() + rayagg::kJsonSpareBytes);
  body = source;
  uint64_t sum = 0;
  for (auto _ : state) {
    if (!parser.ParseArray(body, batch).ok() || batch.events().size() != kEvents) std::abort();
    if (facts) {
      for (const auto& event : batch.events()) {
        sum += rayagg::FactsOfWire(batch.bytes(event))->keys.entity_key;
      }
    }
    benchmark::DoNotOptimize(batch.events().data());
  }
  benchmark::DoNotOptimize(sum);
  SetCounters(state);
}

void BM_Ours_Body(benchmark::State& state) { OursOn(state, Bodies().body, false); }
BENCHMARK(BM_Ours_Body)->Name("Ours/body")->Unit(benchmark::kMillisecond);

void BM_Ours_BodyAndFacts(benchmark::State& state) { OursOn(state, Bodies().body, true); }
BENCHMARK(BM_Ours_BodyAndFacts)->Name("Ours/body_and_facts")->Unit(benchmark::kMillisecond);

void BM_Ours_SnakeCase(benchmark::State& state) { OursOn(state, Bodies().snake_case_body, false); }
BENCHMARK(BM_Ours_SnakeCase)->Name("Ours/snake_case_body")->Unit(benchmark::kMillisecond);

// Visits every value the way the transcoder does, converting nothing.
size_t Visit(simdjson::ondemand::value value) {
  const std::string_view token = value.raw_json_token();
  size_t count = 1;
  if (token.front() == '{') {
    for (auto field : value.get_object()) count += Visit(field.value());
  } else if (token.front() == '[') {
    for (auto element : value.get_array()) count += Visit(element.value());
  }
  return count;
}

void BM_Simdjson_IterateOnly(benchmark::State& state) {
  const simdjson::padded_string body(Bodies().body);
  simdjson::ondemand::parser parser;
  for (auto _ : state) {
    auto document = parser.iterate(body);
    size_t count = 0;
    for (auto element : document.get_array()) count += Visit(element.value());
    benchmark::DoNotOptimize(count);
  }
  SetCounters(state);
}
BENCHMARK(BM_Simdjson_IterateOnly)->Name("Simdjson/iterate_only")->Unit(benchmark::kMillisecond);

void BM_Legacy_SaxBody(benchmark::State& state) {
  const std::string& body = Bodies().body;
  std::vector<std::string> serialized(kEvents);
  const rayagg::legacy::EventArrayCallbacks callbacks{
      .on_event =
          [&](size_t index, ray::rpc::events::RayEvent& event) {
            event.SerializeToString(&serialized[index]);
          },
      .on_error = [](size_t, int32_t, std::string) { std::abort(); }};
  for (auto _ : state) {
    if (!rayagg::legacy::ParseEventArray(body, callbacks).ok()) std::abort();
    benchmark::DoNotOptimize(serialized.data());
  }
  SetCounters(state);
}
BENCHMARK(BM_Legacy_SaxBody)->Name("Legacy/sax_body")->Unit(benchmark::kMillisecond);

// The share of the legacy parser spent in nlohmann_json's parse alone.
void BM_Legacy_DomParseOnly(benchmark::State& state) {
  const std::string& body = Bodies().body;
  for (auto _ : state) {
    const auto array = nlohmann::json::parse(body, nullptr, false);
    if (!array.is_array() || array.size() != kEvents) std::abort();
    benchmark::DoNotOptimize(array.size());
  }
  SetCounters(state);
}
BENCHMARK(BM_Legacy_DomParseOnly)->Name("Legacy/dom_parse_only")->Unit(benchmark::kMillisecond);

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
