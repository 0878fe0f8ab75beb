// gRPC ingest's AddEventsRequest decoder (ingest/add_events_decoder.h) on
// arbitrary bytes as the request. For a request it accepts:
//   - decode -> encode -> decode is stable: each event's bytes parse as a
//     RayEvent; a request re-encoded from those events decodes to as many
//     events with the same types, keys and (re-parsed) contents, and
//     encoding that again gives the same bytes;
//   - the wire reader (FactsOfWire) agrees with the parsed event's type and
//     keys whenever it answers.
// Any violation aborts with the event's index.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/same_event.h"
#include "ingest/add_events_decoder.h"
#include "ingest/event_keys.h"
#include "src/ray/protobuf/events_event_aggregator_service.pb.h"

namespace {

using ray::rpc::events::AddEventsRequest;
using ray::rpc::events::RayEvent;

[[noreturn]] void Fail(const char* what, size_t index) {
  std::fprintf(stderr, "add_events_fuzz: %s (event %zu)\n", what, index);
  std::abort();
}

// The request re-encoded from decoded events (their parsed form), maps in
// key order so that equal requests encode to equal bytes.
std::string Encode(const std::vector<RayEvent>& events) {
  AddEventsRequest request;
  for (const RayEvent& event : events) *request.mutable_events_data()->add_events() = event;
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream output(&stream);
    output.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&output);
  }
  return bytes;
}

std::vector<RayEvent> ParseEach(const rayagg::DecodedRequest& decoded) {
  std::vector<RayEvent> events(decoded.events.size());
  for (size_t i = 0; i < decoded.events.size(); ++i) {
    const std::string_view bytes = decoded.events[i].bytes;
    if (!events[i].ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      Fail("accepted event does not parse", i);
    }
    const rayagg::EventKeys keys = rayagg::KeysOf(events[i]);
    if (decoded.events[i].event_type != static_cast<int32_t>(events[i].event_type())) {
      Fail("decoded type differs from the parsed event's", i);
    }
    if (decoded.events[i].event_id_hash != keys.event_id_hash ||
        decoded.events[i].entity_key != keys.entity_key) {
      Fail("decoded keys differ from KeysOf", i);
    }
    if (const auto facts = rayagg::FactsOfWire(bytes)) {
      if (facts->event_type != decoded.events[i].event_type ||
          facts->keys.event_id_hash != keys.event_id_hash ||
          facts->keys.entity_key != keys.entity_key) {
        Fail("FactsOfWire differs from the parsed event", i);
      }
    }
  }
  return events;
}

}  // namespace

// protobuf logs every invalid UTF-8 string it rejects; keep the output readable.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string wire(reinterpret_cast<const char*>(data), size);
  const auto decoded = rayagg::DecodeAddEventsRequest(wire);
  if (!decoded.ok()) return 0;
  const std::vector<RayEvent> events = ParseEach(*decoded);

  const std::string encoded = Encode(events);
  const auto again = rayagg::DecodeAddEventsRequest(encoded);
  if (!again.ok()) Fail("re-encoded request is refused", 0);
  if (again->events.size() != events.size()) Fail("re-encoded request has another count", 0);
  const std::vector<RayEvent> events_again = ParseEach(*again);
  for (size_t i = 0; i < events.size(); ++i) {
    if (again->events[i].event_type != decoded->events[i].event_type ||
        again->events[i].event_id_hash != decoded->events[i].event_id_hash ||
        again->events[i].entity_key != decoded->events[i].entity_key) {
      Fail("re-encoded event has other type or keys", i);
    }
    if (!rayagg::fuzz::SameEvent(events[i], events_again[i])) {
      Fail("re-encoded event differs", i);
    }
  }
  if (Encode(events_again) != encoded) Fail("second encoding differs from the first", 0);
  return 0;
}
