#include "ingest/add_events_decoder.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "ingest/event_keys.h"
#include "src/ray/protobuf/events_event_aggregator_service.pb.h"

namespace rayagg {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// Field numbers from the wire spec §3.
constexpr int kRequestEventsData = 1;  // AddEventsRequest.events_data
constexpr int kDataEvents = 1;         // RayEventsData.events
constexpr int kDataTaskMetadata = 2;   // RayEventsData.task_events_metadata

// The validation parse of each event runs on an arena reset per event: a
// reused heap message would free and reallocate its payload, maps and
// strings on every Clear(), which was a third of ingest's CPU under load.
// 64 KiB holds a typical event whole; a larger one spills into blocks the
// arena frees at the next Reset().
constexpr size_t kArenaBlockBytes = 64 * 1024;

google::protobuf::ArenaOptions ArenaOn(char* block) {
  google::protobuf::ArenaOptions options;
  options.initial_block = block;
  options.initial_block_size = kArenaBlockBytes;
  return options;
}

class Decoder {
 public:
  explicit Decoder(std::string_view wire)
      : wire_(wire),
        arena_block_(new char[kArenaBlockBytes]),
        arena_(ArenaOn(arena_block_.get())) {}

  absl::StatusOr<DecodedRequest> Decode() {
    CodedInputStream input(reinterpret_cast<const uint8_t*>(wire_.data()),
                           static_cast<int>(wire_.size()));
    while (uint32_t tag = input.ReadTag()) {
      if (IsLengthDelimited(tag, kRequestEventsData)) {
        if (auto status = ReadNested(input, &Decoder::DecodeEventsData); !status.ok()) {
          return status;
        }
      } else if (!WireFormatLite::SkipField(&input, tag)) {
        return Invalid("malformed field in AddEventsRequest");
      }
    }
    if (!input.ConsumedEntireMessage()) return Invalid("malformed AddEventsRequest");
    return std::move(result_);
  }

 private:
  static bool IsLengthDelimited(uint32_t tag, int field_number) {
    return WireFormatLite::GetTagFieldNumber(tag) == field_number &&
           WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
  }

  static absl::Status Invalid(std::string message) {
    return absl::InvalidArgumentError(std::move(message));
  }

  // Whether `length` bytes remain both in the input and inside the current
  // nested message.
  bool Fits(const CodedInputStream& input, uint32_t length) const {
    size_t remaining = wire_.size() - static_cast<size_t>(input.CurrentPosition());
    if (const int until_limit = input.BytesUntilLimit(); until_limit >= 0) {
      remaining = std::min(remaining, static_cast<size_t>(until_limit));
    }
    return length <= remaining;
  }

  // Reads a length prefix and runs `decode` on exactly that many bytes.
  absl::Status ReadNested(CodedInputStream& input,
                          absl::Status (Decoder::*decode)(CodedInputStream&)) {
    uint32_t length = 0;
    if (!input.ReadVarint32(&length) || !Fits(input, length)) {
      return Invalid("truncated AddEventsRequest");
    }
    const auto limit = input.PushLimit(static_cast<int>(length));
    absl::Status status = (this->*decode)(input);
    if (status.ok() && input.BytesUntilLimit() != 0) {
      status = Invalid("truncated message in AddEventsRequest");
    }
    input.PopLimit(limit);
    return status;
  }

  absl::Status DecodeEventsData(CodedInputStream& input) {
    while (uint32_t tag = input.ReadTag()) {
      if (IsLengthDelimited(tag, kDataEvents)) {
        if (auto status = DecodeEvent(input); !status.ok()) return status;
      } else if (IsLengthDelimited(tag, kDataTaskMetadata)) {
        if (auto status = DecodeTaskMetadata(input); !status.ok()) return status;
      } else if (!WireFormatLite::SkipField(&input, tag)) {
        return Invalid("malformed field in RayEventsData");
      }
    }
    return input.ConsumedEntireMessage() || input.BytesUntilLimit() == 0
               ? absl::OkStatus()
               : Invalid("malformed RayEventsData");
  }

  absl::Status DecodeEvent(CodedInputStream& input) {
    uint32_t length = 0;
    if (!input.ReadVarint32(&length) || !Fits(input, length)) return Invalid("truncated RayEvent");
    const int offset = input.CurrentPosition();
    if (!input.Skip(static_cast<int>(length))) {
      return Invalid("truncated RayEvent");
    }
    const std::string_view bytes = wire_.substr(static_cast<size_t>(offset), length);
    arena_.Reset();
    auto* event = google::protobuf::Arena::CreateMessage<ray::rpc::events::RayEvent>(&arena_);
    if (!event->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return Invalid("event #" + std::to_string(result_.events.size()) +
                     " is not a valid RayEvent");
    }
    const EventKeys keys = KeysOf(*event);
    result_.events.push_back(IncomingEvent{bytes, static_cast<int32_t>(event->event_type()),
                                           keys.event_id_hash, keys.entity_key});
    return absl::OkStatus();
  }

  absl::Status DecodeTaskMetadata(CodedInputStream& input) {
    uint32_t length = 0;
    if (!input.ReadVarint32(&length) || !Fits(input, length)) {
      return Invalid("truncated TaskEventsMetadata");
    }
    const int offset = input.CurrentPosition();
    if (!input.Skip(static_cast<int>(length))) {
      return Invalid("truncated TaskEventsMetadata");
    }
    ray::rpc::events::TaskEventsMetadata metadata;
    if (!metadata.ParseFromArray(wire_.data() + offset, static_cast<int>(length))) {
      return Invalid("task_events_metadata is not a valid TaskEventsMetadata");
    }
    result_.dropped_task_attempts += static_cast<uint64_t>(metadata.dropped_task_attempts_size());
    return absl::OkStatus();
  }

  std::string_view wire_;
  DecodedRequest result_;
  // Holds the event being validated; see kArenaBlockBytes.
  std::unique_ptr<char[]> arena_block_;
  google::protobuf::Arena arena_;
};

}  // namespace

absl::StatusOr<DecodedRequest> DecodeAddEventsRequest(std::string_view wire) {
  if (wire.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError("AddEventsRequest too large to decode");
  }
  return Decoder(wire).Decode();
}

}  // namespace rayagg
