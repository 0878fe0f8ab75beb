// The scalar rules of the JSON parser against the code they must agree with:
// absl's base64 decoders, protobuf's TimeUtil::FromString, and the number and
// escape rules of nlohmann_json's lexer.
#include "json/json_scalars.h"

#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/time_util.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "absl/strings/escaping.h"

namespace rayagg {
namespace {

// ours: the plain path when it applies, absl otherwise.
std::optional<std::string> OurBase64(std::string_view text, bool* plain = nullptr) {
  std::string out(PlainBase64DecodedSize(text), '\0');
  const Base64Result result = DecodePlainBase64(text, out.data());
  if (plain != nullptr) *plain = result != Base64Result::kNotPlain;
  switch (result) {
    case Base64Result::kDecoded:
      return out;
    case Base64Result::kInvalid:
      return std::nullopt;
    case Base64Result::kNotPlain:
      break;
  }
  if (!DecodeBase64Slow(text, out)) return std::nullopt;
  return out;
}

std::optional<std::string> AbslBase64(std::string_view text) {
  std::string out;
  const bool web_safe = text.find_first_of("-_") != std::string_view::npos;
  const absl::string_view view(text.data(), text.size());
  if (!(web_safe ? absl::WebSafeBase64Unescape(view, &out) : absl::Base64Unescape(view, &out))) {
    return std::nullopt;
  }
  return out;
}

TEST(JsonScalarsTest, Base64AgreesWithAbslOnEveryShortString) {
  const std::string alphabet("AQw9+/-_=. \n\0", 13);
  size_t plain = 0;
  std::string text;
  for (size_t length = 0; length <= 6; ++length) {
    std::vector<size_t> digits(length, 0);
    while (true) {
      text.clear();
      for (size_t d : digits) text += alphabet[d];
      bool was_plain = false;
      ASSERT_EQ(OurBase64(text, &was_plain), AbslBase64(text)) << "\"" << text << "\"";
      plain += was_plain ? 1 : 0;
      size_t i = 0;
      while (i < length && ++digits[i] == alphabet.size()) digits[i++] = 0;
      if (i == length) break;
    }
  }
  EXPECT_GT(plain, 1000u);  // the fast path was exercised, not only absl
}

TEST(JsonScalarsTest, Base64DecodesRandomBytesLikeAbsl) {
  std::mt19937_64 rng(17);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    std::string encoded = i % 2 ? absl::WebSafeBase64Escape(bytes) : absl::Base64Escape(bytes);
    if (i % 3 == 0) {
      while (!encoded.empty() && encoded.back() == '=') encoded.pop_back();
    }
    bool was_plain = false;
    ASSERT_EQ(OurBase64(encoded, &was_plain), AbslBase64(encoded)) << encoded;
    ASSERT_TRUE(was_plain) << encoded;
    ASSERT_EQ(OurBase64(encoded), bytes);
  }
}

struct Parsed {
  bool ok = false;
  int64_t seconds = 0;
  int32_t nanos = 0;
  bool operator==(const Parsed&) const = default;
};

Parsed Ours(std::string_view text) {
  Parsed parsed;
  parsed.ok = ParseRfc3339(text, parsed.seconds, parsed.nanos);
  if (!parsed.ok) parsed = {};
  return parsed;
}

Parsed Protobufs(const std::string& text) {
  google::protobuf::Timestamp timestamp;
  if (!google::protobuf::util::TimeUtil::FromString(text, &timestamp)) return {};
  return {true, timestamp.seconds(), timestamp.nanos()};
}

TEST(JsonScalarsTest, TimestampsAgreeWithProtobufOnValidAndMutatedTexts) {
  std::vector<std::string> seeds = {
      "2025-06-30T18:50:30.5+02:00",    "1970-01-01T00:00:00Z",      "0001-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999999999Z", "2024-02-29T12:00:00-11:59", "2000-02-29T00:00:00.000001Z",
      "1900-02-28T23:59:59Z",           "2025-1-2T3:4:5Z",           "2025-06-30T18:50:30.123Z"};
  std::mt19937_64 rng(3339);
  for (int year : {1, 4, 100, 400, 1600, 1900, 1969, 1970, 2000, 2023, 2024, 9999}) {
    for (int month = 1; month <= 12; ++month) {
      for (int day : {1, 28, 29, 30, 31}) {
        char text[40];
        std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day,
                      static_cast<int>(rng() % 24), static_cast<int>(rng() % 60),
                      static_cast<int>(rng() % 60));
        seeds.push_back(text);
      }
    }
  }
  const std::string pieces("0123456789-T:.Z+z \0", 19);
  size_t accepted = 0;
  size_t checked = 0;
  for (const std::string& seed : seeds) {
    ASSERT_EQ(Ours(seed), Protobufs(seed)) << seed;
    for (int i = 0; i < 300; ++i) {
      std::string text = seed;
      for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
        const size_t at = text.empty() ? 0 : rng() % text.size();
        const char piece = pieces[rng() % pieces.size()];
        switch (rng() % 3) {
          case 0:
            if (!text.empty()) text.erase(at, 1);
            break;
          case 1:
            text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), piece);
            break;
          default:
            if (!text.empty()) text[at] = piece;
            break;
        }
      }
      const Parsed ours = Ours(text);
      ASSERT_EQ(ours, Protobufs(text)) << "\"" << text << "\"";
      accepted += ours.ok ? 1 : 0;
      ++checked;
    }
  }
  EXPECT_GT(accepted, checked / 20);  // mutations kept enough texts valid to compare values
}

TEST(JsonScalarsTest, NumbersAreClassifiedLikeNlohmannJson) {
  for (const char* token : {"0", "-0", "7", "-7", "18446744073709551615", "18446744073709551616",
                            "-9223372036854775808", "-9223372036854775809", "1.5", "-0.0", "1e3",
                            "1E+3", "2e-3", "1e-400", "-1e-400", "4.9e-324",
                            "123456789012345678901234567890", "0.1", "1.7976931348623157e308"}) {
    SCOPED_TRACE(token);
    ASSERT_EQ(JsonNumberPrefix(token), std::strlen(token));
    const auto ours = ParseJsonNumber(token);
    ASSERT_TRUE(ours.has_value());
    const nlohmann::json theirs = nlohmann::json::parse(token);
    switch (ours->kind) {
      case JsonNumber::Kind::kUnsigned:
        ASSERT_TRUE(theirs.is_number_unsigned());
        EXPECT_EQ(ours->unsigned_value, theirs.get<uint64_t>());
        break;
      case JsonNumber::Kind::kSigned:
        ASSERT_TRUE(theirs.is_number_integer() && !theirs.is_number_unsigned());
        EXPECT_EQ(ours->signed_value, theirs.get<int64_t>());
        break;
      case JsonNumber::Kind::kFloat:
        ASSERT_TRUE(theirs.is_number_float());
        EXPECT_EQ(std::signbit(ours->float_value), std::signbit(theirs.get<double>()));
        EXPECT_EQ(ours->float_value, theirs.get<double>());
        break;
    }
  }
  for (const char* token : {"1e400", "-1e400", "1e99999"}) {
    EXPECT_FALSE(ParseJsonNumber(token).has_value()) << token;
    EXPECT_FALSE(nlohmann::json::accept(token)) << token;
  }
  struct Prefix {
    const char* text;
    size_t length;
  };
  for (const Prefix& p : {Prefix{"01", 1}, Prefix{"-", 0}, Prefix{"1.", 0}, Prefix{"1.e3", 0},
                          Prefix{"1e", 0}, Prefix{"1e+", 0}, Prefix{"-01", 2}, Prefix{"12x", 2},
                          Prefix{"1.5.3", 3}, Prefix{".5", 0}, Prefix{"+1", 0}, Prefix{"", 0}}) {
    EXPECT_EQ(JsonNumberPrefix(p.text), p.length) << p.text;
  }
}

// Random number-like tokens: accepted exactly when nlohmann_json accepts the
// text as a whole document, with the same class and value.
TEST(JsonScalarsTest, NumberTokensAgreeWithNlohmannJson) {
  std::mt19937_64 rng(1e6);
  const std::string alphabet = "0123456789-+.eE";
  size_t accepted = 0;
  for (int i = 0; i < 200'000; ++i) {
    std::string token(1 + rng() % 24, ' ');
    for (char& c : token) c = alphabet[rng() % (i % 3 == 0 ? alphabet.size() : 10)];
    if (i % 5 == 0) token[0] = '-';
    const auto ours = ParseJsonNumber(token);
    const nlohmann::json theirs = nlohmann::json::parse(token, nullptr, /*allow_exceptions=*/false);
    ASSERT_EQ(ours.has_value(), !theirs.is_discarded()) << token;
    if (!ours) continue;
    ++accepted;
    switch (ours->kind) {
      case JsonNumber::Kind::kUnsigned:
        ASSERT_TRUE(theirs.is_number_unsigned()) << token;
        ASSERT_EQ(ours->unsigned_value, theirs.get<uint64_t>()) << token;
        break;
      case JsonNumber::Kind::kSigned:
        ASSERT_TRUE(theirs.is_number_integer() && !theirs.is_number_unsigned()) << token;
        ASSERT_EQ(ours->signed_value, theirs.get<int64_t>()) << token;
        break;
      case JsonNumber::Kind::kFloat:
        ASSERT_TRUE(theirs.is_number_float()) << token;
        ASSERT_EQ(ours->float_value, theirs.get<double>()) << token;
        ASSERT_EQ(std::signbit(ours->float_value), std::signbit(theirs.get<double>())) << token;
        break;
    }
  }
  EXPECT_GT(accepted, 50'000u);
}

TEST(JsonScalarsTest, EscapesFollowRfc8259) {
  std::string out;
  ASSERT_TRUE(
      AppendUnescapedJson(R"(a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00\u0000)", out));
  EXPECT_EQ(out, std::string("a\"b\\c/d\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\0", 23));
  for (const char* bad : {R"(\)", R"(\x)", R"(\u12)", R"(\u12g4)", R"(\ud800)", R"(\ud800x)",
                          R"(\ud800\u0041)", R"(\udc00)", R"(\ud800\ud800)", R"(\U0041)"}) {
    out.clear();
    EXPECT_FALSE(AppendUnescapedJson(bad, out)) << bad;
    EXPECT_FALSE(nlohmann::json::accept("\"" + std::string(bad) + "\"")) << bad;
  }
}

}  // namespace
}  // namespace rayagg
