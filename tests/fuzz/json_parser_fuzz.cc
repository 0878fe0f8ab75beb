// Differential fuzzing of HTTP ingest's JSON parser: arbitrary bytes as a
// body, parsed by EventJsonParser and by the parser it replaced
// (support/legacy/nlohmann_event_parser.h); both must refuse the body with
// the same message, or answer element for element the same (accepted with
// equal events, or rejected with the same reason and claimed type). Any
// difference aborts with both answers printed, except the one intended:
// valid JSON nested deeper than kMaxJsonDepth, which the legacy parser took.
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "json/event_json_parser.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "support/legacy/nlohmann_event_parser.h"

namespace {

using ray::rpc::events::RayEvent;

struct Answer {
  std::string status;
  std::vector<std::string> lines;  // "ok" or "error <type> <reason>" per element
  std::vector<RayEvent> events;
};

Answer Ours(std::string_view body) {
  static rayagg::EventJsonParser parser;
  static rayagg::EventJsonBatch batch;
  Answer answer;
  if (const auto status = parser.ParseArray(body, batch); !status.ok()) {
    answer.status = std::string(status.message());
    return answer;
  }
  answer.lines.resize(batch.elements());
  answer.events.resize(batch.elements());
  for (const auto& event : batch.events()) {
    answer.lines[event.index] = "ok";
    const std::string_view bytes = batch.bytes(event);
    if (!answer.events[event.index].ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      answer.lines[event.index] = "unparsable bytes";
    }
  }
  for (const auto& rejection : batch.rejections()) {
    answer.lines[rejection.index] =
        "error " + std::to_string(rejection.claimed_type) + " " + rejection.reason;
  }
  return answer;
}

Answer Legacy(std::string_view body) {
  Answer answer;
  auto grow = [&](size_t index) {
    if (answer.lines.size() <= index) {
      answer.lines.resize(index + 1);
      answer.events.resize(index + 1);
    }
  };
  const auto status = rayagg::legacy::ParseEventArray(
      body, rayagg::legacy::EventArrayCallbacks{
                .on_event =
                    [&](size_t index, RayEvent& event) {
                      grow(index);
                      answer.lines[index] = "ok";
                      answer.events[index] = event;
                    },
                .on_error =
                    [&](size_t index, int32_t type, std::string reason) {
                      grow(index);
                      answer.lines[index] = "error " + std::to_string(type) + " " + reason;
                    }});
  if (!status.ok()) return Answer{std::string(status.message()), {}, {}};
  return answer;
}

}  // namespace

// protobuf logs every invalid UTF-8 string it rejects; keep the output readable.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const Answer ours = Ours(body);
  const Answer legacy = Legacy(body);
  // The one intended difference: valid JSON nested deeper than
  // rayagg::kMaxJsonDepth, which the legacy parser accepted.
  if (ours.status.starts_with("JSON nested deeper than") && legacy.status.empty()) return 0;
  bool same = ours.status == legacy.status && ours.lines == legacy.lines;
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  for (size_t i = 0; same && i < ours.events.size(); ++i) {
    same = differencer.Compare(ours.events[i], legacy.events[i]);
  }
  if (!same) {
    std::fprintf(stderr, "parsers disagree\nours:   %s\nlegacy: %s\n", ours.status.c_str(),
                 legacy.status.c_str());
    for (size_t i = 0; i < std::max(ours.lines.size(), legacy.lines.size()); ++i) {
      std::fprintf(stderr, "[%zu] ours: %s | legacy: %s\n", i,
                   i < ours.lines.size() ? ours.lines[i].c_str() : "-",
                   i < legacy.lines.size() ? legacy.lines[i].c_str() : "-");
    }
    std::abort();
  }
  return 0;
}
