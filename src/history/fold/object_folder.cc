#include "history/fold/object_folder.h"

#include <time.h>

#include "history/fold/object_decoder.h"
#include "json/event_json_parser.h"
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
        // Invalid JSON, not an object, or not a RayEvent: a bad line.
        batch_.Clear();
        bool ok = parser_.ParseOne(text, 0, batch_).ok() && !batch_.events().empty();
        if (ok) {
          const std::string_view bytes = batch_.bytes(batch_.events().front());
          event.Clear();
          ok = event.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
        }
        if (!ok) {
          ++out.bad_lines;
          return;
        }
        FoldEvent(event, into);
        ++out.events;
      });
  if (times != nullptr) times->decode_ns += ThreadCpuNs() - started;
  out.bad_lines += decoded.oversized;
  out.error = decoded.error;
  out.decompressed_bytes = decoded.decompressed_bytes;
  return out;
}

}  // namespace rayagg::history
