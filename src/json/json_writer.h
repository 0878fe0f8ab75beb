// Low-level JSON writers used by the fast encoder: each appends straight to
// the caller's buffer, without temporaries. Exposed for unit tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rayagg::json {

// Appends `text` as a JSON string literal (with the quotes). Escapes '"', '\\'
// and control characters (short escapes \b \f \n \r \t, otherwise \u00XX);
// everything else, including non-ASCII UTF-8, is passed through unchanged.
void AppendQuoted(std::string_view text, std::string& out);

// Appends standard base64 (RFC 4648 alphabet, '=' padding) of `bytes`, quoted.
void AppendBase64Quoted(std::string_view bytes, std::string& out);

// Shortest representation that parses back to exactly `value`
// (std::to_chars); NaN and infinities as the strings "NaN", "Infinity",
// "-Infinity" like protobuf's printer.
void AppendDouble(double value, std::string& out);
void AppendFloat(float value, std::string& out);

void AppendInt64(int64_t value, std::string& out);
void AppendUInt64(uint64_t value, std::string& out);

// RFC 3339 in UTC with 'Z' and 0, 3, 6 or 9 fraction digits, quoted. Returns
// false (and appends nothing) outside protobuf's Timestamp range
// (0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z, nanos in [0, 1e9)).
bool AppendTimestampQuoted(int64_t seconds, int32_t nanos, std::string& out);

}  // namespace rayagg::json
