// HTTP ingest's whole body path (ingest/http_ingest_handler.cc): the
// Content-Encoding decoding with its size bound, then the JSON array parser
// in place. The first input byte picks the encoding of the rest:
//   0 identity; 1 the rest gzip-compressed here (it must decode back to the
//   rest); 2 the rest as a "gzip" body; 3 the rest as a "deflate" body.
// For a body that parses: each event's bytes parse as a RayEvent, the wire
// reader (FactsOfWire) agrees with it, and the events re-encoded to JSON by
// the daemon's encoder parse back to the same events (no element rejected).
#include <google/protobuf/stubs/logging.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/same_event.h"
#include "http/content_encoding.h"
#include "http/gzip.h"
#include "ingest/event_keys.h"
#include "json/event_json_parser.h"
#include "rayagg/event_json_encoder.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace {

using ray::rpc::events::RayEvent;

// Large enough for any input the fuzzer makes, small enough that a
// compressed body expanding past it is refused (as the listener's limit).
constexpr uint64_t kMaxBodyBytes = 1 << 20;

[[noreturn]] void Fail(const char* what, size_t index) {
  std::fprintf(stderr, "json_ingest_fuzz: %s (element %zu)\n", what, index);
  std::abort();
}

std::vector<RayEvent> EventsOf(const rayagg::EventJsonBatch& batch) {
  std::vector<RayEvent> events;
  for (const auto& event : batch.events()) {
    const std::string_view bytes = batch.bytes(event);
    RayEvent& parsed = events.emplace_back();
    if (!parsed.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      Fail("transcoded bytes do not parse", event.index);
    }
    if (const auto facts = rayagg::FactsOfWire(bytes)) {
      const rayagg::EventKeys keys = rayagg::KeysOf(parsed);
      if (facts->event_type != static_cast<int32_t>(parsed.event_type()) ||
          facts->keys.event_id_hash != keys.event_id_hash ||
          facts->keys.entity_key != keys.entity_key) {
        Fail("FactsOfWire differs from the parsed event", event.index);
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
  if (size == 0) return 0;
  static rayagg::EventJsonParser parser;
  static rayagg::EventJsonBatch batch;
  static const std::unique_ptr<rayagg::EventJsonEncoder> encoder = rayagg::MakeFastJsonEncoder({});

  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string body = rest;
  std::string_view encoding;
  switch (data[0] % 4) {
    case 0:
      break;
    case 1:
      if (!rayagg::GzipCompress(rest, body).ok()) Fail("gzip failed", 0);
      encoding = "gzip";
      break;
    case 2:
      encoding = "gzip";
      break;
    case 3:
      encoding = "deflate";
      break;
  }
  absl::StatusOr<std::string> decoded =
      rayagg::DecodeContentEncoding(encoding, std::move(body), kMaxBodyBytes);
  if (data[0] % 4 == 1 && (!decoded.ok() || *decoded != rest)) Fail("gzip round trip", 0);
  if (!decoded.ok()) return 0;
  if (decoded->size() > kMaxBodyBytes) Fail("decoded body above the limit", 0);

  if (!parser.ParseArray(*decoded, batch).ok()) return 0;
  const std::vector<RayEvent> events = EventsOf(batch);
  if (events.empty()) return 0;

  std::string json = "[";
  for (size_t i = 0; i < batch.events().size(); ++i) {
    if (i > 0) json += ',';
    if (!encoder->AppendEvent(batch.bytes(batch.events()[i]), json).ok()) {
      Fail("accepted event does not encode", batch.events()[i].index);
    }
  }
  json += ']';
  if (!parser.ParseArray(json, batch).ok()) Fail("re-encoded body is refused", 0);
  if (!batch.rejections().empty()) Fail("re-encoded element rejected", batch.rejections()[0].index);
  const std::vector<RayEvent> again = EventsOf(batch);
  if (again.size() != events.size()) Fail("re-encoded body has another count", 0);
  for (size_t i = 0; i < events.size(); ++i) {
    if (!rayagg::fuzz::SameEvent(events[i], again[i])) Fail("re-encoded event differs", i);
  }
  return 0;
}
