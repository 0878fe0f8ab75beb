#include "support/legacy/nlohmann_event_parser.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/time_util.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/escaping.h"
#include "common/event_type_names.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::legacy {
namespace {

namespace pb = google::protobuf;
using Json = nlohmann::json;
using Field = pb::FieldDescriptor;

// An error travels up with the path of the fields it went through.
struct Error {
  std::string path;
  std::string message;
};
using Result = std::optional<Error>;

Result Fail(std::string message) { return Error{{}, std::move(message)}; }

std::string_view TypeName(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  return "null";
}

template <typename T>
std::optional<T> IntegerFromString(std::string_view text) {
  T out{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return out;
}

// A JSON number or a decimal string, in range for T.
template <typename T>
std::optional<T> ToInteger(const Json& value) {
  using Limits = std::numeric_limits<T>;
  if (value.is_number_unsigned()) {
    const uint64_t v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(Limits::max())) return std::nullopt;
    return static_cast<T>(v);
  }
  if (value.is_number_integer()) {
    const int64_t v = value.get<int64_t>();
    if constexpr (Limits::is_signed) {
      if (v < static_cast<int64_t>(Limits::min()) || v > static_cast<int64_t>(Limits::max())) {
        return std::nullopt;
      }
    } else {
      if (v < 0 || static_cast<uint64_t>(v) > static_cast<uint64_t>(Limits::max())) {
        return std::nullopt;
      }
    }
    return static_cast<T>(v);
  }
  if (value.is_number_float()) {
    // 1.0 or 1e3 are integers too, as for protobuf's parser.
    const double v = value.get<double>();
    if (v != std::trunc(v) || v < static_cast<double>(Limits::min()) ||
        v >= std::ldexp(1.0, Limits::digits)) {
      return std::nullopt;
    }
    return static_cast<T>(v);
  }
  if (value.is_string()) return IntegerFromString<T>(value.get_ref<const std::string&>());
  return std::nullopt;
}

std::optional<double> ToDouble(const Json& value) {
  if (value.is_number()) return value.get<double>();
  if (!value.is_string()) return std::nullopt;
  const std::string& text = value.get_ref<const std::string&>();
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  double out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return out;
}

std::optional<std::string> FromBase64(const std::string& text) {
  std::string out;
  const bool web_safe = text.find_first_of("-_") != std::string::npos;
  const bool ok =
      web_safe ? absl::WebSafeBase64Unescape(text, &out) : absl::Base64Unescape(text, &out);
  if (!ok) return std::nullopt;
  return out;
}

class Converter {
 public:
  Result Message(const Json& value, pb::Message& message) {
    const pb::Descriptor* descriptor = message.GetDescriptor();
    if (descriptor->well_known_type() != pb::Descriptor::WELLKNOWNTYPE_UNSPECIFIED) {
      return WellKnown(value, message);
    }
    if (!value.is_object()) return WrongType(value, "an object");
    for (const auto& [key, member] : value.items()) {
      const Field* field = descriptor->FindFieldByCamelcaseName(key);
      if (field == nullptr) field = descriptor->FindFieldByName(key);
      if (field == nullptr) continue;  // a newer sender's field: ignored
      if (member.is_null()) continue;  // proto3 JSON: null means the default
      Result error = FieldValue(member, message, *field);
      if (error) {
        error->path = error->path.empty() || error->path.front() == '[' ? key + error->path
                                                                        : key + "." + error->path;
        return error;
      }
    }
    return std::nullopt;
  }

  // The pieces below are also used by the SAX parser (EventArraySax).
  Result FieldValue(const Json& value, pb::Message& message, const Field& field) {
    if (field.is_map()) return Map(value, message, field);
    if (field.is_repeated()) {
      if (!value.is_array()) {
        return Fail(std::string("expected an array, got ").append(TypeName(value)));
      }
      for (size_t i = 0; i < value.size(); ++i) {
        Result error = value[i].is_null() ? Fail("null in a repeated field")
                                          : Scalar(value[i], message, field, /*add=*/true);
        if (error) {
          error->path =
              "[" + std::to_string(i) + "]" + (error->path.empty() ? "" : "." + error->path);
          return error;
        }
      }
      return std::nullopt;
    }
    return Scalar(value, message, field, /*add=*/false);
  }

  Result Map(const Json& value, pb::Message& message, const Field& field) {
    if (!value.is_object()) {
      return Fail(std::string("expected an object (map), got ").append(TypeName(value)));
    }
    const pb::Reflection* reflection = message.GetReflection();
    const Field* key_field = field.message_type()->map_key();
    const Field* value_field = field.message_type()->map_value();
    for (const auto& [key, member] : value.items()) {
      pb::Message* entry = reflection->AddMessage(&message, &field);
      Result error = member.is_null() ? Fail("null map value") : MapKey(key, *entry, *key_field);
      if (!error) error = Scalar(member, *entry, *value_field, /*add=*/false);
      if (error) {
        // Map keys can be user data (labels, resource names): not repeated back.
        error->path = "[*]" + (error->path.empty() ? "" : "." + error->path);
        return error;
      }
    }
    return std::nullopt;
  }

  Result MapKey(const std::string& key, pb::Message& entry, const Field& field) {
    const pb::Reflection* r = entry.GetReflection();
    switch (field.cpp_type()) {
      case Field::CPPTYPE_STRING:
        r->SetString(&entry, &field, key);
        return std::nullopt;
      case Field::CPPTYPE_BOOL:
        if (key != "true" && key != "false") return Fail("map key is not a boolean");
        r->SetBool(&entry, &field, key == "true");
        return std::nullopt;
      case Field::CPPTYPE_INT32:
        if (auto v = IntegerFromString<int32_t>(key)) {
          r->SetInt32(&entry, &field, *v);
          return std::nullopt;
        }
        break;
      case Field::CPPTYPE_INT64:
        if (auto v = IntegerFromString<int64_t>(key)) {
          r->SetInt64(&entry, &field, *v);
          return std::nullopt;
        }
        break;
      case Field::CPPTYPE_UINT32:
        if (auto v = IntegerFromString<uint32_t>(key)) {
          r->SetUInt32(&entry, &field, *v);
          return std::nullopt;
        }
        break;
      case Field::CPPTYPE_UINT64:
        if (auto v = IntegerFromString<uint64_t>(key)) {
          r->SetUInt64(&entry, &field, *v);
          return std::nullopt;
        }
        break;
      default:
        break;
    }
    return Fail("map key is not an integer of the key type");
  }

  // One value of `field`: set when !add, appended to the repeated field when add.
  Result Scalar(const Json& value, pb::Message& message, const Field& field, bool add) {
    const pb::Reflection* r = message.GetReflection();
    switch (field.cpp_type()) {
      case Field::CPPTYPE_INT32: {
        auto v = ToInteger<int32_t>(value);
        if (!v) return WrongType(value, "a 32-bit integer");
        add ? r->AddInt32(&message, &field, *v) : r->SetInt32(&message, &field, *v);
        return std::nullopt;
      }
      case Field::CPPTYPE_INT64: {
        auto v = ToInteger<int64_t>(value);
        if (!v) return WrongType(value, "a 64-bit integer");
        add ? r->AddInt64(&message, &field, *v) : r->SetInt64(&message, &field, *v);
        return std::nullopt;
      }
      case Field::CPPTYPE_UINT32: {
        auto v = ToInteger<uint32_t>(value);
        if (!v) return WrongType(value, "an unsigned 32-bit integer");
        add ? r->AddUInt32(&message, &field, *v) : r->SetUInt32(&message, &field, *v);
        return std::nullopt;
      }
      case Field::CPPTYPE_UINT64: {
        auto v = ToInteger<uint64_t>(value);
        if (!v) return WrongType(value, "an unsigned 64-bit integer");
        add ? r->AddUInt64(&message, &field, *v) : r->SetUInt64(&message, &field, *v);
        return std::nullopt;
      }
      case Field::CPPTYPE_DOUBLE: {
        auto v = ToDouble(value);
        if (!v) return WrongType(value, "a number");
        add ? r->AddDouble(&message, &field, *v) : r->SetDouble(&message, &field, *v);
        return std::nullopt;
      }
      case Field::CPPTYPE_FLOAT: {
        auto v = ToDouble(value);
        if (!v || (std::isfinite(*v) && std::fabs(*v) > std::numeric_limits<float>::max())) {
          return WrongType(value, "a 32-bit float");
        }
        const auto f = static_cast<float>(*v);
        add ? r->AddFloat(&message, &field, f) : r->SetFloat(&message, &field, f);
        return std::nullopt;
      }
      case Field::CPPTYPE_BOOL: {
        if (!value.is_boolean()) return WrongType(value, "true or false");
        const bool b = value.get<bool>();
        add ? r->AddBool(&message, &field, b) : r->SetBool(&message, &field, b);
        return std::nullopt;
      }
      case Field::CPPTYPE_STRING: {
        if (!value.is_string()) return WrongType(value, "a string");
        const std::string& text = value.get_ref<const std::string&>();
        if (field.type() == Field::TYPE_BYTES) {
          auto bytes = FromBase64(text);
          if (!bytes) return Fail("invalid base64");
          add ? r->AddString(&message, &field, std::move(*bytes))
              : r->SetString(&message, &field, std::move(*bytes));
        } else {
          add ? r->AddString(&message, &field, text) : r->SetString(&message, &field, text);
        }
        return std::nullopt;
      }
      case Field::CPPTYPE_ENUM: {
        int number = 0;
        if (value.is_string()) {
          const std::string& name = value.get_ref<const std::string&>();
          const pb::EnumValueDescriptor* known = field.enum_type()->FindValueByName(name);
          if (known == nullptr) {
            // Enum names are schema, not payload: safe to report.
            return Fail("unknown " + field.enum_type()->name() + " value \"" + name.substr(0, 64) +
                        "\"");
          }
          number = known->number();
        } else if (auto v = ToInteger<int32_t>(value); v && value.is_number()) {
          number = *v;  // a number unknown to this build is kept (open enum)
        } else {
          return WrongType(value, "an enum name or number");
        }
        add ? r->AddEnumValue(&message, &field, number) : r->SetEnumValue(&message, &field, number);
        return std::nullopt;
      }
      case Field::CPPTYPE_MESSAGE: {
        pb::Message* child =
            add ? r->AddMessage(&message, &field) : r->MutableMessage(&message, &field);
        return Message(value, *child);
      }
    }
    return Fail("unsupported field type");
  }

  Result WellKnown(const Json& value, pb::Message& message) {
    const pb::Descriptor* descriptor = message.GetDescriptor();
    if (descriptor->well_known_type() == pb::Descriptor::WELLKNOWNTYPE_TIMESTAMP) {
      if (!value.is_string()) return WrongType(value, "an RFC 3339 timestamp string");
      pb::Timestamp timestamp;
      if (!pb::util::TimeUtil::FromString(value.get_ref<const std::string&>(), &timestamp)) {
        return Fail("invalid RFC 3339 timestamp");
      }
      // Through reflection: `message` may be a dynamic message.
      const pb::Reflection* r = message.GetReflection();
      r->SetInt64(&message, descriptor->FindFieldByNumber(1), timestamp.seconds());
      r->SetInt32(&message, descriptor->FindFieldByNumber(2), timestamp.nanos());
      return std::nullopt;
    }
    // Not used by Ray's events today; protobuf's parser knows all the others.
    pb::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    const auto status = pb::util::JsonStringToMessage(value.dump(), &message, options);
    if (!status.ok()) return Fail("invalid " + descriptor->full_name());
    return std::nullopt;
  }

  static Result WrongType(const Json& value, std::string_view expected) {
    return Fail(std::string("expected ").append(expected).append(", got ").append(TypeName(value)));
  }
};

// Turns a JSON array of RayEvents into messages in one pass over the text,
// without building a DOM: nlohmann_json's SAX events drive a stack of
// frames (the message being filled, a repeated field, a map). Scalars are
// handed to Converter one at a time, so both parsers accept and refuse
// exactly the same values. After an error inside an element, the rest of
// that element is skipped and the next one starts fresh.
class EventArraySax {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  EventArraySax(ray::rpc::events::RayEvent& event, const EventArrayCallbacks& callbacks)
      : event_(event), callbacks_(callbacks) {}

  bool null() { return Value(Json()); }
  bool boolean(bool value) { return Value(Json(value)); }
  bool number_integer(number_integer_t value) { return Value(Json(value)); }
  bool number_unsigned(number_unsigned_t value) { return Value(Json(value)); }
  bool number_float(number_float_t value, const string_t&) { return Value(Json(value)); }
  bool string(string_t& value) { return Value(Json(std::move(value))); }
  bool binary(binary_t&) { return Value(Json::binary({})); }  // never produced by JSON text

  bool start_object(size_t) { return StartContainer(/*object=*/true); }
  bool start_array(size_t) { return StartContainer(/*object=*/false); }
  bool end_object() { return EndContainer(); }
  bool end_array() { return EndContainer(); }

  bool key(string_t& key) {
    if (depth_ == 2) top_key_ = key;  // the element's own keys (for its claimed type)
    if (Skipping()) return true;
    Frame& frame = frames_.back();
    if (frame.kind == Frame::kMap) {
      frame.key = std::move(key);
      return true;
    }
    const pb::Descriptor* descriptor = frame.message->GetDescriptor();
    frame.field = descriptor->FindFieldByCamelcaseName(key);
    if (frame.field == nullptr) frame.field = descriptor->FindFieldByName(key);
    frame.key = std::move(key);
    return true;
  }

  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) {
    syntax_error_ = true;
    return false;
  }

  bool syntax_error() const { return syntax_error_; }
  bool not_an_array() const { return not_an_array_; }

 private:
  struct Frame {
    enum Kind { kMessage, kRepeated, kMap } kind = kMessage;
    pb::Message* message = nullptr;
    // kMessage: the field named by the last key (nullptr: unknown, ignored);
    // kRepeated and kMap: the field being filled.
    const Field* field = nullptr;
    std::string key{};  // kMessage: the last key (for error paths); kMap: the entry's key
    size_t index = 0;   // kRepeated: the next element's index
  };

  bool Skipping() const { return skip_until_depth_ >= 0; }

  // depth_: 0 outside everything, 1 inside the top-level array, 2 inside an
  // element object, ...
  bool StartContainer(bool object) {
    if (depth_ == 0) {
      if (object) {
        not_an_array_ = true;
        return false;
      }
      depth_ = 1;
      return true;
    }
    const int outer_depth = depth_++;
    if (Skipping()) return true;
    if (outer_depth == 1) {  // a new element
      if (!object) return ElementError(Fail("expected an object, got an array"), 0);
      event_.Clear();
      claimed_type_.reset();
      frames_.push_back(Frame{Frame::kMessage, &event_});
      return true;
    }
    Frame& frame = frames_.back();
    const Json placeholder = object ? Json::object() : Json::array();
    if (frame.kind == Frame::kMessage) {
      const Field* field = frame.field;
      if (field == nullptr) {  // an unknown field's value: skipped whole
        skip_until_depth_ = outer_depth;
        return true;
      }
      if (field->is_map()) {
        if (!object) return ElementError(Fail("expected an object (map), got an array"), 0);
        frames_.push_back(Frame{Frame::kMap, frame.message, field});
        return true;
      }
      if (field->is_repeated()) {
        if (object) return ElementError(Fail("expected an array, got an object"), 0);
        frames_.push_back(Frame{Frame::kRepeated, frame.message, field});
        return true;
      }
      if (field_is_scalar(*field)) {
        return ElementError(converter_.Scalar(placeholder, *frame.message, *field, false), 0);
      }
      return Nested(object, frame.message->GetReflection()->MutableMessage(frame.message, field),
                    placeholder);
    }
    if (frame.kind == Frame::kRepeated) {
      if (!object || field_is_scalar(*frame.field)) {
        return ElementError(converter_.Scalar(placeholder, *frame.message, *frame.field, true), 0);
      }
      return Nested(true, frame.message->GetReflection()->AddMessage(frame.message, frame.field),
                    placeholder);
    }
    // kMap: a map value that is an object (a message-valued map) or an array (an error).
    pb::Message* entry = frame.message->GetReflection()->AddMessage(frame.message, frame.field);
    if (Result error =
            converter_.MapKey(frame.key, *entry, *frame.field->message_type()->map_key())) {
      return ElementError(std::move(error), 0);
    }
    const Field* value_field = frame.field->message_type()->map_value();
    if (!object || field_is_scalar(*value_field)) {
      return ElementError(converter_.Scalar(placeholder, *entry, *value_field, false), 0);
    }
    return Nested(true, entry->GetReflection()->MutableMessage(entry, value_field), placeholder);
  }

  static bool field_is_scalar(const Field& field) {
    return field.cpp_type() != Field::CPPTYPE_MESSAGE;
  }

  // An object or array as the value of a message field (singular, or an
  // element of a repeated or map field): descend into `child`.
  bool Nested(bool object, pb::Message* child, const Json& placeholder) {
    const auto well_known = child->GetDescriptor()->well_known_type();
    if (well_known == pb::Descriptor::WELLKNOWNTYPE_TIMESTAMP || !object) {
      // Converter words the error ("expected an RFC 3339 timestamp string, ...").
      return ElementError(converter_.Message(placeholder, *child), 0);
    }
    if (well_known != pb::Descriptor::WELLKNOWNTYPE_UNSPECIFIED) {
      // None in Ray's events; JsonToMessage hands them to protobuf's parser.
      return ElementError(
          Fail("unsupported well-known type " + child->GetDescriptor()->full_name()), 0);
    }
    frames_.push_back(Frame{Frame::kMessage, child});
    return true;
  }

  bool EndContainer() {
    const int depth = --depth_;
    if (depth == 0) return true;  // the top-level array ended
    if (Skipping()) {
      if (depth > skip_until_depth_) return true;
      skip_until_depth_ = -1;
      if (depth == 1) return FinishElement();  // the failed element ended
      return true;                             // an ignored field's value ended
    }
    frames_.pop_back();
    if (depth == 1) return FinishElement();
    if (!frames_.empty() && frames_.back().kind == Frame::kRepeated) ++frames_.back().index;
    return true;
  }

  bool Value(Json value) {
    if (depth_ == 0) {
      not_an_array_ = true;
      return false;
    }
    if (depth_ == 2 && (top_key_ == "eventType" || top_key_ == "event_type")) {
      ClaimType(value);
    }
    if (Skipping()) return true;
    if (depth_ == 1) {  // an element that is not an object
      ElementError(Fail(std::string("expected an object, got ").append(TypeName(value))), 1);
      return FinishElement();
    }
    Frame& frame = frames_.back();
    switch (frame.kind) {
      case Frame::kMessage:
        if (frame.field == nullptr || value.is_null()) return true;  // unknown, or default
        return ElementError(converter_.FieldValue(value, *frame.message, *frame.field), 0);
      case Frame::kRepeated: {
        Result error = value.is_null()
                           ? Fail("null in a repeated field")
                           : converter_.Scalar(value, *frame.message, *frame.field, true);
        if (error) return ElementError(std::move(error), 0);  // the path names this index
        ++frame.index;
        return true;
      }
      case Frame::kMap: {
        if (value.is_null()) return ElementError(Fail("null map value"), 0);
        pb::Message* entry = frame.message->GetReflection()->AddMessage(frame.message, frame.field);
        Result error =
            converter_.MapKey(frame.key, *entry, *frame.field->message_type()->map_key());
        if (!error) {
          error =
              converter_.Scalar(value, *entry, *frame.field->message_type()->map_value(), false);
        }
        return ElementError(std::move(error), 0);
      }
    }
    return true;
  }

  void ClaimType(const Json& value) {
    if (value.is_string()) {
      claimed_type_ = EventTypeFromName(value.get_ref<const std::string&>()).value_or(0);
    } else if (value.is_number_integer()) {
      const int64_t number = value.get<int64_t>();
      claimed_type_ =
          number > 0 && number <= MaxKnownEventType() ? static_cast<int32_t>(number) : 0;
    }
  }

  // Records the element's first error with the path of the frames and skips
  // the rest of the element (until depth_ is back to 1), unless `skip_from`
  // is 1: the element itself was the bad scalar, nothing left to skip.
  // Always returns true (parsing goes on with the next element).
  bool ElementError(Result error, int skip_from) {
    if (!error) return true;
    std::string path;
    for (size_t i = 0; i < frames_.size(); ++i) {
      const Frame& frame = frames_[i];
      if (frame.kind == Frame::kMessage) {
        // A message frame's key names the field holding the next frame (or the bad value).
        const bool last = i + 1 == frames_.size();
        if (!last || frame.field != nullptr || !frame.key.empty()) {
          if (!path.empty()) path += '.';
          path += frame.key;
        }
      } else if (frame.kind == Frame::kRepeated) {
        path += "[" + std::to_string(frame.index) + "]";
      } else {
        path += "[*]";
      }
    }
    if (!error->path.empty()) path += (error->path.front() == '[' ? "" : ".") + error->path;
    error_ = path.empty() ? error->message : path + ": " + error->message;
    frames_.clear();
    skip_until_depth_ = skip_from == 1 ? -1 : 1;
    return true;
  }

  bool FinishElement() {
    frames_.clear();
    if (error_.empty()) {
      callbacks_.on_event(index_, event_);
    } else {
      callbacks_.on_error(index_, claimed_type_.value_or(0), std::move(error_));
      error_.clear();
    }
    ++index_;
    top_key_.clear();
    claimed_type_.reset();
    return true;
  }

  ray::rpc::events::RayEvent& event_;
  const EventArrayCallbacks& callbacks_;
  Converter converter_;
  std::vector<Frame> frames_;
  int depth_ = 0;
  int skip_until_depth_ = -1;  // >= 0: ignore events until depth_ returns to it
  size_t index_ = 0;
  std::string top_key_;
  std::optional<int32_t> claimed_type_;
  std::string error_;
  bool syntax_error_ = false;
  bool not_an_array_ = false;
};

}  // namespace

absl::Status ParseEventArray(std::string_view body, const EventArrayCallbacks& callbacks) {
  ray::rpc::events::RayEvent event;
  EventArraySax sax(event, callbacks);
  const bool ok = Json::sax_parse(body.data(), body.data() + body.size(), &sax);
  if (sax.not_an_array()) return absl::InvalidArgumentError("body is not a JSON array of events");
  if (!ok || sax.syntax_error()) return absl::InvalidArgumentError("body is not valid JSON");
  return absl::OkStatus();
}

absl::Status JsonToMessage(const nlohmann::json& value, google::protobuf::Message& message) {
  Converter converter;
  Result error = converter.Message(value, message);
  if (!error) return absl::OkStatus();
  return absl::InvalidArgumentError(error->path.empty() ? error->message
                                                        : error->path + ": " + error->message);
}

}  // namespace rayagg::legacy
