// The scalar rules of proto3 JSON parsing (json/event_json_parser.h), each
// with the exact acceptance of what the parser used before it, so that
// replacing the parser changed no answer:
//   - JSON numbers are classified like nlohmann_json's lexer: an integer token
//     is a signed (negative) or unsigned 64-bit integer, else a double; an
//     integer too large for 64 bits becomes a double; a double that overflows
//     makes the text invalid JSON;
//   - string escapes as RFC 8259 (surrogate pairs combined, a lone surrogate
//     is invalid);
//   - base64 as absl::Base64Unescape / WebSafeBase64Unescape (the web-safe
//     alphabet when the text contains '-' or '_'), decoded by us when the text
//     is plain (characters of one alphabet, then at most two '='), by absl
//     otherwise (whitespace, '.' padding, stray '=': absl's own rules);
//   - timestamps as protobuf 3.21's TimeUtil::FromString.
// None of these allocate, except the rare base64 fallback to absl.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rayagg {

// A JSON number as nlohmann_json classifies it.
struct JsonNumber {
  enum class Kind { kSigned, kUnsigned, kFloat };
  Kind kind = Kind::kSigned;
  int64_t signed_value = 0;     // kSigned: negative integer tokens (and "-0")
  uint64_t unsigned_value = 0;  // kUnsigned: non-negative integer tokens
  double float_value = 0;       // kFloat: the rest
};

// Length of the JSON number at the start of `text` as nlohmann_json's lexer
// scans it: the longest prefix matching RFC 8259's number grammar, or 0 when
// the text does not start with a complete number (a lexer error).
size_t JsonNumberPrefix(std::string_view text);

// The value of `token`. nullopt when it is not exactly one JSON number, or
// is a double too large to be finite (which nlohmann_json reports as a parse
// error).
std::optional<JsonNumber> ParseJsonNumber(std::string_view token);

// Appends the unescaped content of a JSON string (without its quotes) to
// `out`. False on an invalid escape or an unpaired surrogate.
bool AppendUnescapedJson(std::string_view content, std::string& out);

// Base64 the way absl decodes it (see the file comment), in one pass.
enum class Base64Result {
  kDecoded,   // plain text, decoded
  kInvalid,   // plain text that absl refuses
  kNotPlain,  // anything else: ask DecodeBase64Slow
};

// The size DecodePlainBase64 writes for `text` if it is plain.
size_t PlainBase64DecodedSize(std::string_view text);

// Decodes plain text into `out`, which has room for
// PlainBase64DecodedSize(text) bytes (written even when the result is not
// kDecoded).
Base64Result DecodePlainBase64(std::string_view text, char* out);

// absl's verdict and bytes for any text (replacing `out`).
bool DecodeBase64Slow(std::string_view text, std::string& out);

// protobuf's RFC 3339 parser (TimeUtil::FromString): "YYYY-MM-DDTHH:MM:SS",
// an optional fraction of any length (9 digits kept), then "Z" or "+HH:MM" /
// "-HH:MM"; the number fields may be shorter than their width. Like protobuf
// (which reads a C string) the text ends at its first NUL.
bool ParseRfc3339(std::string_view text, int64_t& seconds, int32_t& nanos);

}  // namespace rayagg
