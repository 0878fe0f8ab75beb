#include "json/event_transcoder.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace rayagg::json_internal {
namespace {

bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string_view TrimRight(std::string_view text) {
  while (!text.empty() && IsJsonSpace(text.back())) text.remove_suffix(1);
  return text;
}

// How error messages name the JSON type of a value, from its first character.
std::string_view TypeName(char first) {
  switch (first) {
    case '{':
      return "an object";
    case '[':
      return "an array";
    case '"':
      return "a string";
    case 't':
    case 'f':
      return "a boolean";
    case 'n':
      return "null";
    default:
      return "a number";
  }
}

template <typename T>
std::optional<T> IntegerFromText(std::string_view text) {
  T out{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return out;
}

// A JSON number or a decimal string, in range for T (1.0 and 1e3 are integers
// too, as for protobuf's parser).
template <typename T>
std::optional<T> IntegerOf(const Scalar& value) {
  using Limits = std::numeric_limits<T>;
  if (value.type == Scalar::Type::kString) return IntegerFromText<T>(value.text);
  if (value.type != Scalar::Type::kNumber) return std::nullopt;
  const JsonNumber& n = value.number;
  switch (n.kind) {
    case JsonNumber::Kind::kUnsigned:
      if (n.unsigned_value > static_cast<uint64_t>(Limits::max())) return std::nullopt;
      return static_cast<T>(n.unsigned_value);
    case JsonNumber::Kind::kSigned:
      if constexpr (Limits::is_signed) {
        if (n.signed_value < static_cast<int64_t>(Limits::min())) return std::nullopt;
        return static_cast<T>(n.signed_value);
      } else {
        if (n.signed_value < 0) return std::nullopt;
        return static_cast<T>(n.signed_value);
      }
    case JsonNumber::Kind::kFloat: {
      const double v = n.float_value;
      if (v != std::trunc(v) || v < static_cast<double>(Limits::min()) ||
          v >= std::ldexp(1.0, Limits::digits)) {
        return std::nullopt;
      }
      return static_cast<T>(v);
    }
  }
  return std::nullopt;
}

std::optional<double> DoubleOf(const Scalar& value) {
  if (value.type == Scalar::Type::kNumber) {
    switch (value.number.kind) {
      case JsonNumber::Kind::kUnsigned:
        return static_cast<double>(value.number.unsigned_value);
      case JsonNumber::Kind::kSigned:
        return static_cast<double>(value.number.signed_value);
      case JsonNumber::Kind::kFloat:
        return value.number.float_value;
    }
  }
  if (value.type != Scalar::Type::kString) return std::nullopt;
  const std::string_view text = value.text;
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  double out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return out;
}

uint64_t DoubleBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

bool Failed(Step step) { return step == Step::kInvalid || step == Step::kTooDeep; }

// Counts the containers entered (the body's array is level 1); the recursion
// of the transcoder is bounded by it.
class DepthGuard {
 public:
  explicit DepthGuard(size_t& depth) : depth_(depth) { ++depth_; }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  bool too_deep() const { return depth_ > kMaxJsonDepth; }

 private:
  size_t& depth_;
};

}  // namespace

void TypeClaim::Note(std::string_view token) {
  token = TrimRight(token);
  if (token.empty()) return;
  if (token.front() == '"') {
    token_ = token;
    return;
  }
  if (token.front() != '-' && (token.front() < '0' || token.front() > '9')) return;
  if (JsonNumberPrefix(token) != token.size()) return;
  const auto number = ParseJsonNumber(token);
  if (number && number->kind != JsonNumber::Kind::kFloat) token_ = token;
}

int32_t TypeClaim::Resolve(const WireEnum& event_types) const {
  if (token_.empty()) return 0;
  if (token_.front() == '"') {
    std::string name;
    if (!AppendUnescapedJson(token_.substr(1, token_.size() - 2), name)) return 0;
    const int index = event_types.values.Find(name);
    return index < 0 ? 0 : event_types.numbers[index];
  }
  const auto number = ParseJsonNumber(token_);
  // A number above INT64_MAX reads as negative, as it did before: no claim.
  const int64_t value = number->kind == JsonNumber::Kind::kSigned
                            ? number->signed_value
                            : static_cast<int64_t>(number->unsigned_value);
  return value > 0 && value <= max_known_ ? static_cast<int32_t>(value) : 0;
}

EventTranscoder::EventTranscoder(const WireSchema& schema) : schema_(schema) {
  const WireMessage& root = schema.root();
  const int type_field = root.keys.Find("eventType");
  event_types_ = type_field >= 0 ? root.fields[type_field].enumeration : -1;
  int32_t max_known = 0;
  if (event_types_ >= 0) {
    for (int32_t number : schema.enumeration(event_types_).numbers) {
      max_known = std::max(max_known, number);
    }
  }
  claim_.SetMaxKnown(max_known);
}

void EventTranscoder::Bind(WireBuffer& out, std::string_view input) {
  out_ = &out;
  next_escape_ = nullptr;
  last_query_ = nullptr;
  input_end_ = input.data() + input.size();
}

Step EventTranscoder::Element(od::value element, size_t index, EventJsonBatch::Event& event,
                              EventJsonBatch::Rejection& rejection) {
  const std::string_view token = element.raw_json_token();
  if (token.empty()) return Step::kInvalid;
  depth_ = 1;  // inside the body's array
  claim_.Reset();
  path_.clear();
  message_.clear();
  if (token.front() != '{') {
    if (const Step step = Validate(element, token); step != Step::kOk) return step;
    rejection = {index, 0, std::string("expected an object, got ").append(TypeName(token[0]))};
    return Step::kRejected;
  }
  od::object object;
  if (element.get_object().get(object) != simdjson::SUCCESS) return Step::kInvalid;
  const size_t start = out_->size();
  const Step step = Message(object, schema_.root(), /*force_defaults=*/false, /*top=*/true);
  if (Failed(step)) return step;
  if (step == Step::kRejected) {
    out_->Truncate(start);
    const int32_t claimed =
        event_types_ >= 0 ? claim_.Resolve(schema_.enumeration(event_types_)) : 0;
    rejection = {index, claimed, path_.empty() ? message_ : path_ + ": " + message_};
    return step;
  }
  event = {index, start, out_->size() - start};
  return Step::kOk;
}

Step EventTranscoder::Message(od::object& object, const WireMessage& message, bool force_defaults,
                              bool top) {
  const DepthGuard depth(depth_);
  if (depth.too_deep()) return Step::kTooDeep;
  uint64_t seen = 0;  // bit i: field i was set (bits wrap above 64 fields: then written always)
  bool rejected = false;
  for (auto member : object) {
    if (member.error() != simdjson::SUCCESS) return Step::kInvalid;
    od::field&& field = std::move(member).value_unsafe();  // no copy of the field
    od::value& value = field.value();
    const std::string_view token = value.raw_json_token();
    std::string escaped_key;
    std::string_view key;
    if (!KeyOf(field, token, key, escaped_key)) return Step::kInvalid;
    if (top && (key == "eventType" || key == "event_type")) claim_.Note(token);
    const int index = rejected ? -1 : message.keys.Find(key);
    if (index < 0) {  // unknown, or the element already failed: only checked
      if (const Step step = Validate(value, token); step != Step::kOk) return step;
      continue;
    }
    if (token.front() == 'n') {  // null: the default, nothing written
      if (TrimRight(token) != "null") return Step::kInvalid;
      continue;
    }
    const WireField& wire_field = message.fields[index];
    const uint64_t bit = uint64_t{1} << (index & 63);
    const bool repeated_key = force_defaults || (seen & bit) != 0 || index >= 64;
    seen |= bit;
    const Step step = FieldValue(value, token, wire_field, repeated_key);
    if (Failed(step)) return step;
    if (step == Step::kRejected) {
      PrependPath(key);
      rejected = true;
    }
  }
  return rejected ? Step::kRejected : Step::kOk;
}

Step EventTranscoder::FieldValue(od::value& value, std::string_view token, const WireField& field,
                                 bool force) {
  if (field.map) return Map(value, token, field);
  if (field.repeated) return Repeated(value, token, field);
  return Singular(value, token, field, force, /*with_tag=*/true);
}

Step EventTranscoder::Singular(od::value& value, std::string_view token, const WireField& field,
                               bool force, bool with_tag) {
  switch (field.kind) {
    case WireKind::kMessage: {
      if (token.front() != '{') {
        return Reject(value, token,
                      std::string("expected an object, got ").append(TypeName(token[0])));
      }
      od::object object;
      if (value.get_object().get(object) != simdjson::SUCCESS) return Step::kInvalid;
      out_->Tag(field);
      const size_t length_at = out_->BeginLength();
      const Step step = Message(object, schema_.message(field.message), force, false);
      out_->EndLength(length_at);
      return step;
    }
    case WireKind::kTimestamp:
      return Timestamp(value, token, field, force);
    case WireKind::kUnsupported:
      return Reject(value, token,
                    "unsupported well-known type " + schema_.message(field.message).full_name);
    default:
      break;
  }
  if (token.front() == '{' || token.front() == '[') {
    return Reject(value, token, WrongType(field, token.front()));
  }
  Scalar scalar;
  if (!ReadScalar(token, scalar)) return Step::kInvalid;
  return WriteScalar(scalar, token.front(), field, force || field.explicit_presence, with_tag);
}

Step EventTranscoder::Repeated(od::value& value, std::string_view token, const WireField& field) {
  if (token.front() != '[') {
    return Reject(value, token, std::string("expected an array, got ").append(TypeName(token[0])));
  }
  const DepthGuard depth(depth_);
  if (depth.too_deep()) return Step::kTooDeep;
  od::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) return Step::kInvalid;
  const size_t field_start = out_->size();
  size_t length_at = 0;
  if (field.packed) {
    out_->Tag(field);
    length_at = out_->BeginLength();
  }
  size_t index = 0;
  bool rejected = false;
  for (auto item : array) {
    if (item.error() != simdjson::SUCCESS) return Step::kInvalid;
    od::value&& element = std::move(item).value_unsafe();
    const std::string_view element_token = element.raw_json_token();
    if (element_token.empty()) return Step::kInvalid;
    if (rejected) {
      if (const Step step = Validate(element, element_token); step != Step::kOk) return step;
      continue;
    }
    Step step;
    if (element_token.front() == 'n') {
      if (TrimRight(element_token) != "null") return Step::kInvalid;
      message_ = "null in a repeated field";
      path_.clear();
      step = Step::kRejected;
    } else if (field.packed) {
      step = Singular(element, element_token, field, /*force=*/true, /*with_tag=*/false);
    } else {
      step = Singular(element, element_token, field, /*force=*/true, /*with_tag=*/true);
    }
    if (Failed(step)) return step;
    if (step == Step::kRejected) {
      PrependPath("[" + std::to_string(index) + "]");
      rejected = true;
    }
    ++index;
  }
  if (field.packed) {
    if (out_->size() == length_at + 1) {
      out_->Truncate(field_start);  // protobuf writes nothing for an empty packed field
    } else {
      out_->EndLength(length_at);
    }
  }
  return rejected ? Step::kRejected : Step::kOk;
}

Step EventTranscoder::Map(od::value& value, std::string_view token, const WireField& field) {
  if (token.front() != '{') {
    return Reject(value, token,
                  std::string("expected an object (map), got ").append(TypeName(token[0])));
  }
  const DepthGuard depth(depth_);
  if (depth.too_deep()) return Step::kTooDeep;
  od::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) return Step::kInvalid;
  const WireMessage& entry = schema_.message(field.message);
  const WireField& key_field = entry.fields[0];
  const WireField& value_field = entry.fields[1];
  bool rejected = false;
  for (auto member : object) {
    if (member.error() != simdjson::SUCCESS) return Step::kInvalid;
    od::field&& item = std::move(member).value_unsafe();
    od::value& item_value = item.value();
    const std::string_view item_token = item_value.raw_json_token();
    std::string escaped_key;
    std::string_view key;
    if (!KeyOf(item, item_token, key, escaped_key)) return Step::kInvalid;
    if (rejected) {
      if (const Step step = Validate(item_value, item_token); step != Step::kOk) return step;
      continue;
    }
    Step step = Step::kOk;
    if (item_token.front() == 'n') {
      if (TrimRight(item_token) != "null") return Step::kInvalid;
      message_ = "null map value";
      path_.clear();
      step = Step::kRejected;
    } else {
      out_->Tag(field);
      const size_t length_at = out_->BeginLength();
      if (const char* error = MapKey(key, key_field)) {
        if (const Step checked = Validate(item_value, item_token); checked != Step::kOk) {
          return checked;
        }
        message_ = error;
        path_.clear();
        step = Step::kRejected;
      } else {
        // Both key and value are written, even at their defaults, as protobuf does.
        step = Singular(item_value, item_token, value_field, /*force=*/true, /*with_tag=*/true);
      }
      out_->EndLength(length_at);
    }
    if (Failed(step)) return step;
    if (step == Step::kRejected) {
      // Map keys can be user data (labels, resource names): not repeated back.
      PrependPath("[*]");
      rejected = true;
    }
  }
  return rejected ? Step::kRejected : Step::kOk;
}

const char* EventTranscoder::MapKey(std::string_view key, const WireField& field) {
  switch (field.kind) {
    case WireKind::kString:
      out_->Tag(field);
      out_->LengthDelimited(key.data(), key.size());
      return nullptr;
    case WireKind::kBool:
      if (key != "true" && key != "false") return "map key is not a boolean";
      out_->Tag(field);
      out_->Varint(key == "true" ? 1 : 0);
      return nullptr;
    case WireKind::kInt32:
    case WireKind::kSInt32:
    case WireKind::kSFixed32:
      if (auto v = IntegerFromText<int32_t>(key)) {
        WriteInt(field, *v, /*force=*/true, /*with_tag=*/true);
        return nullptr;
      }
      break;
    case WireKind::kInt64:
    case WireKind::kSInt64:
    case WireKind::kSFixed64:
      if (auto v = IntegerFromText<int64_t>(key)) {
        WriteInt(field, *v, true, true);
        return nullptr;
      }
      break;
    case WireKind::kUInt32:
    case WireKind::kFixed32:
      if (auto v = IntegerFromText<uint32_t>(key)) {
        WriteInt(field, *v, true, true);
        return nullptr;
      }
      break;
    case WireKind::kUInt64:
    case WireKind::kFixed64:
      if (auto v = IntegerFromText<uint64_t>(key)) {
        WriteInt(field, *v, true, true);
        return nullptr;
      }
      break;
    default:
      break;
  }
  return "map key is not an integer of the key type";
}

Step EventTranscoder::WriteScalar(const Scalar& value, char first, const WireField& field,
                                  bool force, bool with_tag) {
  switch (field.kind) {
    case WireKind::kInt32:
    case WireKind::kSInt32:
    case WireKind::kSFixed32:
      if (auto v = IntegerOf<int32_t>(value)) return WriteInt(field, *v, force, with_tag);
      return Rejected(WrongType(field, first));
    case WireKind::kInt64:
    case WireKind::kSInt64:
    case WireKind::kSFixed64:
      if (auto v = IntegerOf<int64_t>(value)) return WriteInt(field, *v, force, with_tag);
      return Rejected(WrongType(field, first));
    case WireKind::kUInt32:
    case WireKind::kFixed32:
      if (auto v = IntegerOf<uint32_t>(value)) return WriteInt(field, *v, force, with_tag);
      return Rejected(WrongType(field, first));
    case WireKind::kUInt64:
    case WireKind::kFixed64:
      if (auto v = IntegerOf<uint64_t>(value)) return WriteInt(field, *v, force, with_tag);
      return Rejected(WrongType(field, first));
    case WireKind::kDouble: {
      const auto v = DoubleOf(value);
      if (!v) return Rejected(WrongType(field, first));
      if (DoubleBits(*v) == 0 && !force) return Step::kOk;
      if (with_tag) out_->Tag(field);
      out_->Fixed64(DoubleBits(*v));
      return Step::kOk;
    }
    case WireKind::kFloat: {
      const auto v = DoubleOf(value);
      if (!v || (std::isfinite(*v) && std::fabs(*v) > std::numeric_limits<float>::max())) {
        return Rejected(WrongType(field, first));
      }
      const uint32_t bits = FloatBits(static_cast<float>(*v));
      if (bits == 0 && !force) return Step::kOk;
      if (with_tag) out_->Tag(field);
      out_->Fixed32(bits);
      return Step::kOk;
    }
    case WireKind::kBool: {
      if (value.type != Scalar::Type::kTrue && value.type != Scalar::Type::kFalse) {
        return Rejected(WrongType(field, first));
      }
      const bool b = value.type == Scalar::Type::kTrue;
      if (!b && !force) return Step::kOk;
      if (with_tag) out_->Tag(field);
      out_->Varint(b ? 1 : 0);
      return Step::kOk;
    }
    case WireKind::kEnum:
      return Enum(value, first, field, force, with_tag);
    case WireKind::kString:
      if (value.type != Scalar::Type::kString) return Rejected(WrongType(field, first));
      if (value.text.empty() && !force) return Step::kOk;
      if (with_tag) out_->Tag(field);
      out_->LengthDelimited(value.text.data(), value.text.size());
      return Step::kOk;
    case WireKind::kBytes:
      if (value.type != Scalar::Type::kString) return Rejected(WrongType(field, first));
      return Bytes(value.text, field, force, with_tag);
    default:
      break;
  }
  return Rejected("unsupported field type");
}

template <typename T>
Step EventTranscoder::WriteInt(const WireField& field, T value, bool force, bool with_tag) {
  if (value == 0 && !force) return Step::kOk;
  if (with_tag) out_->Tag(field);
  switch (field.kind) {
    case WireKind::kSInt32: {
      const auto v = static_cast<int32_t>(value);
      out_->Varint((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
      break;
    }
    case WireKind::kSInt64: {
      const auto v = static_cast<int64_t>(value);
      out_->Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
      break;
    }
    case WireKind::kFixed32:
    case WireKind::kSFixed32:
      out_->Fixed32(static_cast<uint32_t>(value));
      break;
    case WireKind::kFixed64:
    case WireKind::kSFixed64:
      out_->Fixed64(static_cast<uint64_t>(value));
      break;
    default:
      // int32 is sign-extended to 64 bits on the wire, like protobuf does.
      out_->Varint(static_cast<uint64_t>(static_cast<int64_t>(value)));
      break;
  }
  return Step::kOk;
}

Step EventTranscoder::Enum(const Scalar& value, char first, const WireField& field, bool force,
                           bool with_tag) {
  int32_t number = 0;
  if (value.type == Scalar::Type::kString) {
    const WireEnum& table = schema_.enumeration(field.enumeration);
    const int index = table.values.Find(value.text);
    if (index < 0) {
      // Enum names are schema, not payload: safe to report.
      return Rejected("unknown " + table.name + " value \"" +
                      std::string(value.text.substr(0, 64)) + "\"");
    }
    number = table.numbers[index];
  } else if (auto v = IntegerOf<int32_t>(value); v && value.type == Scalar::Type::kNumber) {
    number = *v;  // a number unknown to this build is kept (open enum)
  } else {
    return Rejected(std::string("expected an enum name or number, got ").append(TypeName(first)));
  }
  return WriteInt(field, number, force, with_tag);
}

Step EventTranscoder::Bytes(std::string_view text, const WireField& field, bool force,
                            bool with_tag) {
  // Decoded straight into place behind its length; undone if the text is
  // not plain base64.
  const size_t start = out_->size();
  const size_t size = PlainBase64DecodedSize(text);
  if (size != 0 || force) {
    if (with_tag) out_->Tag(field);
    out_->Varint(size);
  }
  switch (DecodePlainBase64(text, out_->Append(size))) {
    case Base64Result::kDecoded:
      if (size == 0 && !force) out_->Truncate(start);
      return Step::kOk;
    case Base64Result::kInvalid:
      return Rejected("invalid base64");
    case Base64Result::kNotPlain:
      break;
  }
  out_->Truncate(start);
  if (!DecodeBase64Slow(text, bytes_scratch_)) return Rejected("invalid base64");
  if (bytes_scratch_.empty() && !force) return Step::kOk;
  if (with_tag) out_->Tag(field);
  out_->LengthDelimited(bytes_scratch_.data(), bytes_scratch_.size());
  return Step::kOk;
}

Step EventTranscoder::Timestamp(od::value& value, std::string_view token, const WireField& field,
                                bool force) {
  if (token.front() != '"') {
    return Reject(
        value, token,
        std::string("expected an RFC 3339 timestamp string, got ").append(TypeName(token.front())));
  }
  Scalar scalar;
  if (!ReadScalar(token, scalar)) return Step::kInvalid;
  int64_t seconds = 0;
  int32_t nanos = 0;
  if (!ParseRfc3339(scalar.text, seconds, nanos)) return Rejected("invalid RFC 3339 timestamp");
  out_->Tag(field);
  const size_t length_at = out_->BeginLength();
  if (seconds != 0 || force) {
    out_->Byte(0x08);
    out_->Varint(static_cast<uint64_t>(seconds));
  }
  if (nanos != 0 || force) {
    out_->Byte(0x10);
    out_->Varint(static_cast<uint64_t>(static_cast<int64_t>(nanos)));
  }
  out_->EndLength(length_at);
  return Step::kOk;
}

bool EventTranscoder::ReadScalar(std::string_view token, Scalar& out) {
  // The raw token runs up to the next structural character. A scalar is
  // left for On Demand to skip, which takes a string followed by ':' for a
  // key and skips the colon and the value after it too: only keys may be
  // followed by ':', so that is invalid JSON here ("[\"a\": 1]").
  if (token.front() == '"' && token.data()[token.size()] == ':') return false;
  token = TrimRight(token);
  switch (token.front()) {
    case '"': {
      if (token.size() < 2 || token.back() != '"') return false;
      const std::string_view content = token.substr(1, token.size() - 2);
      out.type = Scalar::Type::kString;
      if (!Escaped(content.data(), content.data() + content.size())) {
        out.text = content;
        return true;
      }
      unescaped_.clear();
      if (!AppendUnescapedJson(content, unescaped_)) return false;
      out.text = unescaped_;
      return true;
    }
    case 't':
      out.type = Scalar::Type::kTrue;
      return token == "true";
    case 'f':
      out.type = Scalar::Type::kFalse;
      return token == "false";
    case 'n':
      out.type = Scalar::Type::kNull;
      return token == "null";
    default: {
      const auto number = ParseJsonNumber(token);
      if (!number) return false;
      out.type = Scalar::Type::kNumber;
      out.number = *number;
      return true;
    }
  }
}

Step EventTranscoder::Validate(od::value& value, std::string_view token) {
  if (token.empty()) return Step::kInvalid;
  if (token.front() == '{' || token.front() == '[') {
    const DepthGuard depth(depth_);
    if (depth.too_deep()) return Step::kTooDeep;
    return token.front() == '{' ? ValidateObject(value) : ValidateArray(value);
  }
  Scalar scalar;
  return ReadScalar(token, scalar) ? Step::kOk : Step::kInvalid;
}

Step EventTranscoder::ValidateObject(od::value& value) {
  od::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) return Step::kInvalid;
  for (auto member : object) {
    if (member.error() != simdjson::SUCCESS) return Step::kInvalid;
    od::field&& field = std::move(member).value_unsafe();  // no copy of the field
    od::value& inner = field.value();
    const std::string_view inner_token = inner.raw_json_token();
    std::string escaped_key;
    std::string_view key;
    if (!KeyOf(field, inner_token, key, escaped_key)) return Step::kInvalid;
    if (const Step step = Validate(inner, inner_token); step != Step::kOk) return step;
  }
  return Step::kOk;
}

Step EventTranscoder::ValidateArray(od::value& value) {
  od::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) return Step::kInvalid;
  for (auto item : array) {
    if (item.error() != simdjson::SUCCESS) return Step::kInvalid;
    od::value&& element = std::move(item).value_unsafe();
    if (const Step step = Validate(element, element.raw_json_token()); step != Step::kOk) {
      return step;
    }
  }
  return Step::kOk;
}

bool EventTranscoder::KeyOf(od::field& field, std::string_view value_token, std::string_view& key,
                            std::string& storage) {
  const char* begin = field.key().raw();
  const char* p = value_token.data() - 1;
  while (IsJsonSpace(*p)) --p;
  --p;  // the ':'
  while (IsJsonSpace(*p)) --p;
  key = std::string_view(begin, static_cast<size_t>(p - begin));  // p: the closing quote
  if (!Escaped(key.data(), key.data() + key.size())) return true;
  storage.clear();
  if (!AppendUnescapedJson(key, storage)) return false;
  key = storage;
  return true;
}

std::string EventTranscoder::WrongType(const WireField& field, char first) {
  std::string_view expected;
  switch (field.kind) {
    case WireKind::kInt32:
    case WireKind::kSInt32:
    case WireKind::kSFixed32:
      expected = "a 32-bit integer";
      break;
    case WireKind::kInt64:
    case WireKind::kSInt64:
    case WireKind::kSFixed64:
      expected = "a 64-bit integer";
      break;
    case WireKind::kUInt32:
    case WireKind::kFixed32:
      expected = "an unsigned 32-bit integer";
      break;
    case WireKind::kUInt64:
    case WireKind::kFixed64:
      expected = "an unsigned 64-bit integer";
      break;
    case WireKind::kDouble:
      expected = "a number";
      break;
    case WireKind::kFloat:
      expected = "a 32-bit float";
      break;
    case WireKind::kBool:
      expected = "true or false";
      break;
    case WireKind::kEnum:
      expected = "an enum name or number";
      break;
    default:
      expected = "a string";
      break;
  }
  return std::string("expected ").append(expected).append(", got ").append(TypeName(first));
}

Step EventTranscoder::Rejected(std::string message) {
  message_ = std::move(message);
  path_.clear();
  return Step::kRejected;
}

Step EventTranscoder::Reject(od::value& value, std::string_view token, std::string message) {
  if (const Step step = Validate(value, token); step != Step::kOk) return step;
  return Rejected(std::move(message));
}

void EventTranscoder::PrependPath(std::string_view segment) {
  if (path_.empty()) {
    path_ = segment;
  } else if (path_.front() == '[') {
    path_.insert(0, segment);
  } else {
    path_.insert(path_.begin(), '.');
    path_.insert(0, segment);
  }
}

}  // namespace rayagg::json_internal
