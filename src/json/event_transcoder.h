// The JSON -> protobuf wire transcoder behind EventJsonParser (internal to
// src/json): reads one element with simdjson's On Demand iterator and writes
// its RayEvent wire bytes as it goes. Scalars are read from their raw tokens
// by json/json_scalars.h (so that every acceptance rule is ours to keep);
// simdjson checks the structure and the UTF-8. After an element's first
// error the rest of the element is still read whole, only to check that it
// is valid JSON and to find the type it claims.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "json/event_json_parser.h"
#include "json/json_scalars.h"
#include "json/wire_buffer.h"
#include "json/wire_schema.h"

namespace rayagg::json_internal {

namespace od = simdjson::ondemand;

// What a parse step tells its caller.
enum class Step {
  kOk,
  kRejected,  // the element does not map to the message; its JSON was read whole and is valid
  kInvalid,   // the text is not valid JSON (or an iterator error): the body is refused
  kTooDeep,   // nested deeper than kMaxJsonDepth: the body is refused
};

// One scalar token, checked as JSON.
struct Scalar {
  enum class Type { kString, kNumber, kTrue, kFalse, kNull };
  Type type = Type::kNull;
  std::string_view text;  // kString: the unescaped content
  JsonNumber number;      // kNumber
};

// The claim an element makes about its event type, as the parser before this
// one read it: from the element's last "eventType"/"event_type" value that is
// a string or an integer (other values leave the claim as it was).
class TypeClaim {
 public:
  void Reset() { token_ = {}; }
  // A top-level "eventType"/"event_type" value's raw token.
  void Note(std::string_view token);
  // The claimed type when the element is rejected (0: none known).
  int32_t Resolve(const WireEnum& event_types) const;
  void SetMaxKnown(int32_t max_known) { max_known_ = max_known; }

 private:
  std::string_view token_;  // into the input, which outlives the element
  int32_t max_known_ = 0;
};

class EventTranscoder {
 public:
  explicit EventTranscoder(const WireSchema& schema);

  // Where the next elements are written, and the text they are read from
  // (in order: see Escaped).
  void Bind(WireBuffer& out, std::string_view input);

  // Transcodes one element of an array (or one JSON Lines value).
  Step Element(od::value element, size_t index, EventJsonBatch::Event& event,
               EventJsonBatch::Rejection& rejection);

 private:
  // --- structure -----------------------------------------------------------

  // `force_defaults`: the message merges into an earlier occurrence of the
  // same field (a repeated key), so a value equal to the default must still
  // be written to override what came before.
  Step Message(od::object& object, const WireMessage& message, bool force_defaults, bool top);

  Step FieldValue(od::value& value, std::string_view token, const WireField& field, bool force);

  Step Singular(od::value& value, std::string_view token, const WireField& field, bool force,
                bool with_tag);

  Step Repeated(od::value& value, std::string_view token, const WireField& field);

  Step Map(od::value& value, std::string_view token, const WireField& field);

  // Writes the key field of a map entry; the error when the key does not fit its type.
  const char* MapKey(std::string_view key, const WireField& field);

  // --- values --------------------------------------------------------------

  Step WriteScalar(const Scalar& value, char first, const WireField& field, bool force,
                   bool with_tag);

  template <typename T>
  Step WriteInt(const WireField& field, T value, bool force, bool with_tag);

  Step Enum(const Scalar& value, char first, const WireField& field, bool force, bool with_tag);

  Step Bytes(std::string_view text, const WireField& field, bool force, bool with_tag);

  Step Timestamp(od::value& value, std::string_view token, const WireField& field, bool force);

  // --- JSON checks ---------------------------------------------------------

  // Reads a scalar's raw token (string, number, literal, up to the next
  // structural character); false if it is not valid JSON.
  bool ReadScalar(std::string_view token, Scalar& out);

  // Reads a value whole only to check that it is valid JSON.
  Step Validate(od::value& value, std::string_view token);

  Step ValidateObject(od::value& value);

  Step ValidateArray(od::value& value);

  // The key of `field`, unescaped: a view of the input unless it has escapes
  // (then of `storage`). The key's closing quote is found from the value's
  // first character, which On Demand located: back over blanks, the ':' and
  // blanks. False on an invalid escape.
  bool KeyOf(od::field& field, std::string_view value_token, std::string_view& key,
             std::string& storage);

  // Whether [begin, end) holds a backslash. Strings are asked about in the
  // order of the text, so one memchr serves every string up to the next
  // backslash instead of one call per string.
  bool Escaped(const char* begin, const char* end) {
    if (begin < last_query_) {  // out of order (never, today): ask memchr
      return std::memchr(begin, '\\', static_cast<size_t>(end - begin)) != nullptr;
    }
    last_query_ = begin;
    if (next_escape_ < begin) {
      const void* found = std::memchr(begin, '\\', static_cast<size_t>(input_end_ - begin));
      next_escape_ = found != nullptr ? static_cast<const char*>(found) : input_end_;
    }
    return next_escape_ < end;
  }

  // --- errors --------------------------------------------------------------

  static std::string WrongType(const WireField& field, char first);

  Step Rejected(std::string message);

  // A value of the wrong kind: still read whole (it must be valid JSON).
  Step Reject(od::value& value, std::string_view token, std::string message);

  // Called while unwinding from the failed value to the element: "key",
  // "[index]" or "[*]" joined as a.b[2].c.
  void PrependPath(std::string_view segment);

  const WireSchema& schema_;
  WireBuffer* out_ = nullptr;
  const char* next_escape_ = nullptr;  // the first backslash at or after last_query_
  const char* last_query_ = nullptr;
  const char* input_end_ = nullptr;
  int32_t event_types_ = -1;
  size_t depth_ = 0;
  TypeClaim claim_;
  std::string unescaped_;      // strings with escapes
  std::string bytes_scratch_;  // base64 that absl decodes
  std::string path_;           // of the element's first error, built while unwinding
  std::string message_;
};

}  // namespace rayagg::json_internal
