#include "history/object_folder.h"

#include <time.h>

#include <nlohmann/json.hpp>

#include "history/object_decoder.h"
#include "ingest/json_event_parser.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::history {
namespace {

int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

FoldedObject ObjectFolder::Fold(std::string_view object_bytes, FoldedSession& into,
                                FoldTimes* times) {
  FoldedObject out;
  ray::rpc::events::RayEvent event;
  const int64_t started = times != nullptr ? ThreadCpuNs() : 0;
  const DecodeResult decoded =
      ForEachEventJson(object_bytes, max_event_bytes_, [&](std::string_view text) {
        const int64_t parse_start = times != nullptr ? ThreadCpuNs() : 0;
        nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        bool ok = !value.is_discarded() && value.is_object();
        if (ok) {
          event.Clear();
          ok = JsonToMessage(value, event).ok();
        }
        const int64_t fold_start = times != nullptr ? ThreadCpuNs() : 0;
        if (times != nullptr) times->parse_ns += fold_start - parse_start;
        if (!ok) {
          ++out.bad_lines;
          return;
        }
        FoldEvent(event, into);
        ++out.events;
        if (times != nullptr) times->fold_ns += ThreadCpuNs() - fold_start;
      });
  if (times != nullptr) times->decode_ns += ThreadCpuNs() - started;
  out.bad_lines += decoded.oversized;
  out.error = decoded.error;
  out.decompressed_bytes = decoded.decompressed_bytes;
  return out;
}

}  // namespace rayagg::history
