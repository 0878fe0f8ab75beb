#include "history/object_folder.h"

#include <nlohmann/json.hpp>

#include "history/object_decoder.h"
#include "ingest/json_event_parser.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::history {

FoldedObject ObjectFolder::Fold(std::string_view object_bytes, FoldedSession& into) {
  FoldedObject out;
  ray::rpc::events::RayEvent event;
  const DecodeResult decoded =
      ForEachEventJson(object_bytes, max_event_bytes_, [&](std::string_view text) {
        nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (value.is_discarded() || !value.is_object()) {
          ++out.bad_lines;
          return;
        }
        event.Clear();
        if (!JsonToMessage(value, event).ok()) {
          ++out.bad_lines;
          return;
        }
        FoldEvent(event, into);
        ++out.events;
      });
  out.bad_lines += decoded.oversized;
  out.error = decoded.error;
  out.decompressed_bytes = decoded.decompressed_bytes;
  return out;
}

}  // namespace rayagg::history
