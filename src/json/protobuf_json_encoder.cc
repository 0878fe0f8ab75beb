#include <google/protobuf/util/json_util.h>

#include "rayagg/event_json_encoder.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {
namespace {

class ProtobufJsonEncoder final : public EventJsonEncoder {
 public:
  explicit ProtobufJsonEncoder(JsonOptions options) {
    print_options_.always_print_primitive_fields = true;
    print_options_.preserve_proto_field_names = options.preserve_proto_field_names;
    print_options_.always_print_enums_as_ints = false;
  }

  absl::Status AppendEvent(std::string_view serialized_event, std::string& out) override {
    event_.Clear();
    if (!event_.ParseFromArray(serialized_event.data(),
                               static_cast<int>(serialized_event.size()))) {
      return absl::InvalidArgumentError("stored event is not a valid RayEvent");
    }
    scratch_.clear();
    auto status = google::protobuf::util::MessageToJsonString(event_, &scratch_, print_options_);
    if (!status.ok()) {
      return absl::InternalError(std::string("JSON printer failed: ") +
                                 std::string(status.message()));
    }
    out.append(scratch_);
    return absl::OkStatus();
  }

 private:
  google::protobuf::util::JsonPrintOptions print_options_;
  ray::rpc::events::RayEvent event_;  // reused to avoid re-allocating per event
  std::string scratch_;
};

}  // namespace

std::unique_ptr<EventJsonEncoder> MakeProtobufJsonEncoder(JsonOptions options) {
  return std::make_unique<ProtobufJsonEncoder>(options);
}

}  // namespace rayagg
