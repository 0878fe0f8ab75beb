#include "ingest/json_event_parser.h"

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

#include "absl/strings/escaping.h"

namespace rayagg {
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
  const bool ok = web_safe ? absl::WebSafeBase64Unescape(text, &out)
                           : absl::Base64Unescape(text, &out);
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
      if (member.is_null()) continue;   // proto3 JSON: null means the default
      Result error = FieldValue(member, message, *field);
      if (error) {
        error->path = error->path.empty() || error->path.front() == '['
                          ? key + error->path
                          : key + "." + error->path;
        return error;
      }
    }
    return std::nullopt;
  }

 private:
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
          error->path = "[" + std::to_string(i) + "]" +
                        (error->path.empty() ? "" : "." + error->path);
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
      case Field::CPPTYPE_STRING: r->SetString(&entry, &field, key); return std::nullopt;
      case Field::CPPTYPE_BOOL:
        if (key != "true" && key != "false") return Fail("map key is not a boolean");
        r->SetBool(&entry, &field, key == "true");
        return std::nullopt;
      case Field::CPPTYPE_INT32:
        if (auto v = IntegerFromString<int32_t>(key)) { r->SetInt32(&entry, &field, *v); return std::nullopt; }
        break;
      case Field::CPPTYPE_INT64:
        if (auto v = IntegerFromString<int64_t>(key)) { r->SetInt64(&entry, &field, *v); return std::nullopt; }
        break;
      case Field::CPPTYPE_UINT32:
        if (auto v = IntegerFromString<uint32_t>(key)) { r->SetUInt32(&entry, &field, *v); return std::nullopt; }
        break;
      case Field::CPPTYPE_UINT64:
        if (auto v = IntegerFromString<uint64_t>(key)) { r->SetUInt64(&entry, &field, *v); return std::nullopt; }
        break;
      default: break;
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
        add ? r->AddEnumValue(&message, &field, number)
            : r->SetEnumValue(&message, &field, number);
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

}  // namespace

absl::Status JsonToMessage(const nlohmann::json& value, google::protobuf::Message& message) {
  Converter converter;
  Result error = converter.Message(value, message);
  if (!error) return absl::OkStatus();
  return absl::InvalidArgumentError(error->path.empty() ? error->message
                                                        : error->path + ": " + error->message);
}

}  // namespace rayagg
