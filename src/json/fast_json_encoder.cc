#include "json/fast_json_encoder.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/map_field.h>
#include <google/protobuf/message.h>
#include <google/protobuf/timestamp.pb.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "json/json_writer.h"
#include "rayagg/event_json_encoder.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"
#include "src/ray/protobuf/public/events_task_definition_event.pb.h"
#include "src/ray/protobuf/public/events_task_lifecycle_event.pb.h"

// protobuf 3.21 keeps map iteration through reflection (MapBegin/MapEnd)
// private; reading a map field as a repeated field instead makes protobuf
// copy every entry into a new message on each read. CEL's friend class is the
// documented hook (message.h defines GOOGLE_PROTOBUF_HAS_CEL_MAP_REFLECTION_FRIEND
// for it); libprotobuf itself does not define the class, so we do, for
// read-only iteration.
namespace google::protobuf::expr {
class CelMapReflectionFriend {
 public:
  static MapIterator Begin(const Reflection* reflection, Message* message,
                           const FieldDescriptor* field) {
    return reflection->MapBegin(message, field);
  }
  static MapIterator End(const Reflection* reflection, Message* message,
                         const FieldDescriptor* field) {
    return reflection->MapEnd(message, field);
  }
};
}  // namespace google::protobuf::expr

namespace rayagg {
namespace {

namespace pb = google::protobuf;
using MapAccess = pb::expr::CelMapReflectionFriend;

enum class Kind : uint8_t {
  kInt32,
  kInt64,
  kUInt32,
  kUInt64,
  kDouble,
  kFloat,
  kBool,
  kEnum,
  kString,
  kBytes,
  kMessage,
  kTimestamp,
};

struct EnumPlan {
  const pb::EnumDescriptor* descriptor = nullptr;
  int min = 0;
  // Quoted names indexed by number - min; empty = number unknown to the
  // descriptor (printed as the number). Aliases: the first declared wins, as
  // FindValueByNumber does.
  std::vector<std::string> quoted_names;
  bool dense = false;
};

struct MessagePlan;

struct ValuePlan {
  Kind kind = Kind::kInt32;
  const MessagePlan* message = nullptr;  // kMessage
  const EnumPlan* enum_plan = nullptr;   // kEnum
};

struct FieldPlan {
  const pb::FieldDescriptor* field = nullptr;
  // ",\"name\":" : the first field of an object skips the comma.
  std::string key;
  bool repeated = false;
  bool is_map = false;
  bool has_presence = false;
  ValuePlan value;
  // Maps only.
  Kind map_key_kind = Kind::kString;
};

struct MessageJsonWriterImpl;
using SpecialFn = bool (*)(MessageJsonWriterImpl&, const MessagePlan&, const pb::Message&,
                           std::string&);

struct MessagePlan {
  const pb::Descriptor* descriptor = nullptr;
  std::vector<FieldPlan> fields;
  // Hand-specialized encoder over the generated class (see kSpecials), used
  // when the root message is a generated one; nullptr: reflection.
  SpecialFn special = nullptr;
  // The generated class's reflection, to recognize generated roots.
  const pb::Reflection* generated_reflection = nullptr;
  const pb::FieldDescriptor* ts_seconds = nullptr;  // Timestamp only
  const pb::FieldDescriptor* ts_nanos = nullptr;
};

Kind KindOf(const pb::FieldDescriptor* field) {
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      return Kind::kInt32;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      return Kind::kInt64;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      return Kind::kUInt32;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      return Kind::kUInt64;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      return Kind::kDouble;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      return Kind::kFloat;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      return Kind::kBool;
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      return Kind::kEnum;
    case pb::FieldDescriptor::CPPTYPE_STRING:
      return field->type() == pb::FieldDescriptor::TYPE_BYTES ? Kind::kBytes : Kind::kString;
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      return field->message_type()->full_name() == "google.protobuf.Timestamp" ? Kind::kTimestamp
                                                                               : Kind::kMessage;
  }
  return Kind::kInt32;
}

bool IsUnsupportedWellKnown(const pb::Descriptor* descriptor) {
  return descriptor->file()->name().rfind("google/protobuf/", 0) == 0 &&
         descriptor->full_name() != "google.protobuf.Timestamp";
}

SpecialFn FindSpecial(const pb::Descriptor* descriptor);

struct MessageJsonWriterImpl {
  explicit MessageJsonWriterImpl(JsonOptions opts) : options(opts) {}

  JsonOptions options;
  std::unordered_map<const pb::Descriptor*, std::unique_ptr<MessagePlan>> plans;
  std::unordered_map<const pb::EnumDescriptor*, std::unique_ptr<EnumPlan>> enums;
  std::unordered_map<const pb::Descriptor*, bool> supported;
  std::string scratch;  // GetStringReference's fallback; unused by generated messages
  const char* error = nullptr;
  // Whether the message being encoded is of generated classes (so the
  // specialized encoders may downcast).
  bool generated = false;
  bool use_specials = true;

  bool CheckSupported(const pb::Descriptor* descriptor) {
    auto [it, inserted] = supported.try_emplace(descriptor, true);
    if (!inserted) return it->second;  // known, or being checked (cycle): assume fine
    bool ok = !IsUnsupportedWellKnown(descriptor) && descriptor->extension_range_count() == 0;
    for (int i = 0; ok && i < descriptor->field_count(); ++i) {
      const pb::FieldDescriptor* field = descriptor->field(i);
      if (field->message_type() != nullptr) ok = CheckSupported(field->message_type());
      if (field->enum_type() != nullptr &&
          field->enum_type()->full_name() == "google.protobuf.NullValue") {
        ok = false;
      }
    }
    supported[descriptor] = ok;
    return ok;
  }

  const EnumPlan* EnumPlanFor(const pb::EnumDescriptor* descriptor) {
    auto& slot = enums[descriptor];
    if (slot) return slot.get();
    slot = std::make_unique<EnumPlan>();
    EnumPlan& plan = *slot;
    plan.descriptor = descriptor;
    int min = descriptor->value(0)->number();
    int max = min;
    for (int i = 0; i < descriptor->value_count(); ++i) {
      min = std::min(min, descriptor->value(i)->number());
      max = std::max(max, descriptor->value(i)->number());
    }
    if (static_cast<int64_t>(max) - min < 4096) {
      plan.dense = true;
      plan.min = min;
      plan.quoted_names.resize(static_cast<size_t>(max - min + 1));
      for (int i = 0; i < descriptor->value_count(); ++i) {
        std::string& name =
            plan.quoted_names[static_cast<size_t>(descriptor->value(i)->number() - min)];
        if (name.empty()) json::AppendQuoted(descriptor->value(i)->name(), name);
      }
    }
    return &plan;
  }

  const MessagePlan* PlanFor(const pb::Descriptor* descriptor) {
    auto& slot = plans[descriptor];
    if (slot) return slot.get();
    slot = std::make_unique<MessagePlan>();
    MessagePlan* plan = slot.get();  // stable: recursion may rehash `plans`
    plan->descriptor = descriptor;
    if (const pb::Message* prototype =
            pb::MessageFactory::generated_factory()->GetPrototype(descriptor)) {
      plan->generated_reflection = prototype->GetReflection();
    }
    plan->special = use_specials ? FindSpecial(descriptor) : nullptr;
    if (descriptor->full_name() == "google.protobuf.Timestamp") {
      plan->ts_seconds = descriptor->FindFieldByNumber(1);
      plan->ts_nanos = descriptor->FindFieldByNumber(2);
      return plan;
    }
    std::vector<FieldPlan> fields;
    fields.reserve(static_cast<size_t>(descriptor->field_count()));
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const pb::FieldDescriptor* field = descriptor->field(i);
      FieldPlan f;
      f.field = field;
      f.key = ",";
      json::AppendQuoted(options.preserve_proto_field_names ? field->name() : field->json_name(),
                         f.key);
      f.key.push_back(':');
      f.repeated = field->is_repeated();
      f.is_map = field->is_map();
      f.has_presence = !f.repeated && field->has_presence();
      const pb::FieldDescriptor* value_field = field;
      if (f.is_map) {
        f.map_key_kind = KindOf(field->message_type()->map_key());
        value_field = field->message_type()->map_value();
      }
      f.value.kind = KindOf(value_field);
      if (f.value.kind == Kind::kEnum) f.value.enum_plan = EnumPlanFor(value_field->enum_type());
      if (f.value.kind == Kind::kMessage || f.value.kind == Kind::kTimestamp) {
        f.value.message = PlanFor(value_field->message_type());
      }
      fields.push_back(std::move(f));
    }
    plan->fields = std::move(fields);
    return plan;
  }

  // ---- hot path -----------------------------------------------------------

  static void AppendEnum(const EnumPlan& plan, int number, std::string& out) {
    if (plan.dense) {
      const int64_t index = static_cast<int64_t>(number) - plan.min;
      if (index >= 0 && static_cast<size_t>(index) < plan.quoted_names.size()) {
        const std::string& name = plan.quoted_names[static_cast<size_t>(index)];
        if (!name.empty()) {
          out.append(name);
          return;
        }
      }
      json::AppendInt64(number, out);
      return;
    }
    if (const pb::EnumValueDescriptor* value = plan.descriptor->FindValueByNumber(number)) {
      json::AppendQuoted(value->name(), out);
    } else {
      json::AppendInt64(number, out);
    }
  }

  bool AppendTimestamp(const MessagePlan& plan, const pb::Message& message, std::string& out) {
    const pb::Reflection* r = message.GetReflection();
    if (!json::AppendTimestampQuoted(r->GetInt64(message, plan.ts_seconds),
                                     r->GetInt32(message, plan.ts_nanos), out)) {
      error = "Timestamp out of the RFC 3339 range (years 1-9999, nanos 0-999999999)";
      return false;
    }
    return true;
  }

  bool AppendSingular(const FieldPlan& f, const pb::Message& m, const pb::Reflection* r,
                      std::string& out) {
    const pb::FieldDescriptor* field = f.field;
    switch (f.value.kind) {
      case Kind::kInt32:
        json::AppendInt64(r->GetInt32(m, field), out);
        return true;
      case Kind::kUInt32:
        json::AppendUInt64(r->GetUInt32(m, field), out);
        return true;
      case Kind::kInt64:
        out.push_back('"');
        json::AppendInt64(r->GetInt64(m, field), out);
        out.push_back('"');
        return true;
      case Kind::kUInt64:
        out.push_back('"');
        json::AppendUInt64(r->GetUInt64(m, field), out);
        out.push_back('"');
        return true;
      case Kind::kDouble:
        json::AppendDouble(r->GetDouble(m, field), out);
        return true;
      case Kind::kFloat:
        json::AppendFloat(r->GetFloat(m, field), out);
        return true;
      case Kind::kBool:
        if (r->GetBool(m, field)) {
          out.append("true", 4);
        } else {
          out.append("false", 5);
        }
        return true;
      case Kind::kEnum:
        AppendEnum(*f.value.enum_plan, r->GetEnumValue(m, field), out);
        return true;
      case Kind::kString:
        json::AppendQuoted(r->GetStringReference(m, field, &scratch), out);
        return true;
      case Kind::kBytes:
        json::AppendBase64Quoted(r->GetStringReference(m, field, &scratch), out);
        return true;
      case Kind::kMessage:
        return AppendMessage(*f.value.message, const_cast<pb::Message&>(r->GetMessage(m, field)),
                             out);
      case Kind::kTimestamp:
        return AppendTimestamp(*f.value.message, r->GetMessage(m, field), out);
    }
    return true;
  }

  bool AppendRepeated(const FieldPlan& f, const pb::Message& m, const pb::Reflection* r,
                      std::string& out) {
    const pb::FieldDescriptor* field = f.field;
    const int n = r->FieldSize(m, field);
    out.push_back('[');
    for (int i = 0; i < n; ++i) {
      if (i != 0) out.push_back(',');
      switch (f.value.kind) {
        case Kind::kInt32:
          json::AppendInt64(r->GetRepeatedInt32(m, field, i), out);
          break;
        case Kind::kUInt32:
          json::AppendUInt64(r->GetRepeatedUInt32(m, field, i), out);
          break;
        case Kind::kInt64:
          out.push_back('"');
          json::AppendInt64(r->GetRepeatedInt64(m, field, i), out);
          out.push_back('"');
          break;
        case Kind::kUInt64:
          out.push_back('"');
          json::AppendUInt64(r->GetRepeatedUInt64(m, field, i), out);
          out.push_back('"');
          break;
        case Kind::kDouble:
          json::AppendDouble(r->GetRepeatedDouble(m, field, i), out);
          break;
        case Kind::kFloat:
          json::AppendFloat(r->GetRepeatedFloat(m, field, i), out);
          break;
        case Kind::kBool:
          if (r->GetRepeatedBool(m, field, i)) {
            out.append("true", 4);
          } else {
            out.append("false", 5);
          }
          break;
        case Kind::kEnum:
          AppendEnum(*f.value.enum_plan, r->GetRepeatedEnumValue(m, field, i), out);
          break;
        case Kind::kString:
          json::AppendQuoted(r->GetRepeatedStringReference(m, field, i, &scratch), out);
          break;
        case Kind::kBytes:
          json::AppendBase64Quoted(r->GetRepeatedStringReference(m, field, i, &scratch), out);
          break;
        case Kind::kMessage:
          if (!AppendMessage(*f.value.message,
                             const_cast<pb::Message&>(r->GetRepeatedMessage(m, field, i)), out)) {
            return false;
          }
          break;
        case Kind::kTimestamp:
          if (!AppendTimestamp(*f.value.message, r->GetRepeatedMessage(m, field, i), out)) {
            return false;
          }
          break;
      }
    }
    out.push_back(']');
    return true;
  }

  static void AppendMapKey(Kind kind, const pb::MapKey& key, std::string& out) {
    switch (kind) {
      case Kind::kString:
        json::AppendQuoted(key.GetStringValue(), out);
        return;
      case Kind::kBool:
        if (key.GetBoolValue()) {
          out.append("\"true\"", 6);
        } else {
          out.append("\"false\"", 7);
        }
        return;
      default:
        break;
    }
    out.push_back('"');
    switch (kind) {
      case Kind::kInt32:
        json::AppendInt64(key.GetInt32Value(), out);
        break;
      case Kind::kUInt32:
        json::AppendUInt64(key.GetUInt32Value(), out);
        break;
      case Kind::kInt64:
        json::AppendInt64(key.GetInt64Value(), out);
        break;
      case Kind::kUInt64:
        json::AppendUInt64(key.GetUInt64Value(), out);
        break;
      default:
        break;  // no other key types exist
    }
    out.push_back('"');
  }

  bool AppendMapValue(const ValuePlan& v, const pb::MapValueConstRef& value, std::string& out) {
    switch (v.kind) {
      case Kind::kInt32:
        json::AppendInt64(value.GetInt32Value(), out);
        return true;
      case Kind::kUInt32:
        json::AppendUInt64(value.GetUInt32Value(), out);
        return true;
      case Kind::kInt64:
        out.push_back('"');
        json::AppendInt64(value.GetInt64Value(), out);
        out.push_back('"');
        return true;
      case Kind::kUInt64:
        out.push_back('"');
        json::AppendUInt64(value.GetUInt64Value(), out);
        out.push_back('"');
        return true;
      case Kind::kDouble:
        json::AppendDouble(value.GetDoubleValue(), out);
        return true;
      case Kind::kFloat:
        json::AppendFloat(value.GetFloatValue(), out);
        return true;
      case Kind::kBool:
        if (value.GetBoolValue()) {
          out.append("true", 4);
        } else {
          out.append("false", 5);
        }
        return true;
      case Kind::kEnum:
        AppendEnum(*v.enum_plan, value.GetEnumValue(), out);
        return true;
      case Kind::kString:
        json::AppendQuoted(value.GetStringValue(), out);
        return true;
      case Kind::kBytes:
        json::AppendBase64Quoted(value.GetStringValue(), out);
        return true;
      case Kind::kMessage:
        return AppendMessage(*v.message, const_cast<pb::Message&>(value.GetMessageValue()), out);
      case Kind::kTimestamp:
        return AppendTimestamp(*v.message, value.GetMessageValue(), out);
    }
    return true;
  }

  bool AppendMap(const FieldPlan& f, pb::Message& m, const pb::Reflection* r, std::string& out) {
    out.push_back('{');
    bool first = true;
    pb::MapIterator end = MapAccess::End(r, &m, f.field);
    for (pb::MapIterator it = MapAccess::Begin(r, &m, f.field); it != end; ++it) {
      if (!first) out.push_back(',');
      first = false;
      AppendMapKey(f.map_key_kind, it.GetKey(), out);
      out.push_back(':');
      if (!AppendMapValue(f.value, it.GetValueRef(), out)) return false;
    }
    out.push_back('}');
    return true;
  }

  bool AppendMessage(const MessagePlan& plan, const pb::Message& cm, std::string& out) {
    if (plan.special != nullptr && generated) return plan.special(*this, plan, cm, out);
    auto& m = const_cast<pb::Message&>(cm);  // map iteration needs it; not modified
    const pb::Reflection* r = m.GetReflection();
    out.push_back('{');
    size_t skip = 1;  // the first key has no comma
    for (const FieldPlan& f : plan.fields) {
      if (f.has_presence && !r->HasField(m, f.field)) continue;
      out.append(f.key.data() + skip, f.key.size() - skip);
      skip = 0;
      bool ok = true;
      if (f.is_map) {
        ok = AppendMap(f, m, r, out);
      } else if (f.repeated) {
        ok = AppendRepeated(f, m, r, out);
      } else {
        ok = AppendSingular(f, m, r, out);
      }
      if (!ok) return false;
    }
    out.push_back('}');
    return true;
  }
};

#include "json/specialized_encoders.inc"

}  // namespace

struct MessageJsonWriter::Impl : MessageJsonWriterImpl {
  using MessageJsonWriterImpl::MessageJsonWriterImpl;
};

MessageJsonWriter::MessageJsonWriter(JsonOptions options, bool specialize)
    : impl_(std::make_unique<Impl>(options)) {
  impl_->use_specials = specialize;
}

MessageJsonWriter::~MessageJsonWriter() = default;

bool MessageJsonWriter::Supports(const pb::Descriptor* descriptor) {
  return impl_->CheckSupported(descriptor);
}

absl::Status MessageJsonWriter::Append(pb::Message& message, std::string& out) {
  const pb::Descriptor* descriptor = message.GetDescriptor();
  if (!impl_->CheckSupported(descriptor)) {
    return absl::UnimplementedError("message type uses an unsupported well-known type: " +
                                    descriptor->full_name());
  }
  const MessagePlan& plan = *impl_->PlanFor(descriptor);
  const size_t start = out.size();
  impl_->generated =
      plan.generated_reflection != nullptr && message.GetReflection() == plan.generated_reflection;
  bool ok = plan.ts_seconds != nullptr ? impl_->AppendTimestamp(plan, message, out)
                                       : impl_->AppendMessage(plan, message, out);
  if (!ok) {
    out.resize(start);
    return absl::InvalidArgumentError(impl_->error);
  }
  return absl::OkStatus();
}

namespace {

class FastJsonEncoder final : public EventJsonEncoder {
 public:
  FastJsonEncoder(JsonOptions options, FastJsonEncoderTuning tuning)
      : writer_(options, tuning.specialized), tuning_(tuning) {
    if (tuning_.parse_on_arena) {
      arena_block_.resize(64 * 1024);
      pb::ArenaOptions arena_options;
      arena_options.initial_block = arena_block_.data();
      arena_options.initial_block_size = arena_block_.size();
      arena_.emplace(arena_options);
    }
    if (!writer_.Supports(ray::rpc::events::RayEvent::descriptor())) {
      fallback_ = MakeProtobufJsonEncoder(options);
    }
  }

  absl::Status AppendEvent(std::string_view serialized_event, std::string& out) override {
    if (fallback_) return fallback_->AppendEvent(serialized_event, out);
    ray::rpc::events::RayEvent* event = &event_;
    if (arena_) {
      arena_->Reset();
      event = pb::Arena::CreateMessage<ray::rpc::events::RayEvent>(&*arena_);
    } else {
      event_.Clear();
    }
    if (!event->ParseFromArray(serialized_event.data(),
                               static_cast<int>(serialized_event.size()))) {
      return absl::InvalidArgumentError("stored event is not a valid RayEvent");
    }
    // JSON is typically 1.5-3x the wire size (base64 ids, keys, defaults).
    // Grow geometrically so that appending a batch stays linear.
    const size_t need = out.size() + serialized_event.size() * 3 + 1024;
    if (out.capacity() < need) out.reserve(std::max(need, out.capacity() * 2));
    return writer_.Append(*event, out);
  }

 private:
  MessageJsonWriter writer_;
  FastJsonEncoderTuning tuning_;
  std::vector<char> arena_block_;
  std::optional<pb::Arena> arena_;
  ray::rpc::events::RayEvent event_;
  std::unique_ptr<EventJsonEncoder> fallback_;
};

}  // namespace

std::unique_ptr<EventJsonEncoder> MakeFastJsonEncoder(JsonOptions options,
                                                      FastJsonEncoderTuning tuning) {
  return std::make_unique<FastJsonEncoder>(options, tuning);
}

std::unique_ptr<EventJsonEncoder> MakeFastJsonEncoder(JsonOptions options) {
  return std::make_unique<FastJsonEncoder>(options, FastJsonEncoderTuning{});
}

}  // namespace rayagg
