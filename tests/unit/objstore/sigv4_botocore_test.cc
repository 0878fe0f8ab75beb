// Differential test: our SigV4 signer against Debian's python3-botocore
// (S3SigV4Auth) on random keys, queries, headers, bodies and credentials at a
// fixed clock. Any difference is a signature S3 would reject. The oracle is
// installed by scripts/test; without it this test fails, it does not skip.
#include <gtest/gtest.h>
#include <stdio.h>
#include <time.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "objstore/sigv4.h"
#include "support/temp_dir.h"

namespace rayagg::sigv4 {
namespace {

constexpr int kCases = 1500;

class CaseMaker {
 public:
  explicit CaseMaker(uint64_t seed) : random_(seed) {}

  // Random text of code points from a mix that exercises every encoding
  // path: unreserved, reserved, space, '+', '%', '/', multibyte UTF-8.
  std::string Text(size_t max_length, bool allow_slash) {
    static const std::vector<std::string> kPieces = {"a",
                                                     "Z",
                                                     "0",
                                                     "9",
                                                     "-",
                                                     "_",
                                                     ".",
                                                     "~",
                                                     " ",
                                                     "+",
                                                     "%",
                                                     "=",
                                                     "&",
                                                     "?",
                                                     "#",
                                                     "@",
                                                     "!",
                                                     "'",
                                                     "(",
                                                     ")",
                                                     "*",
                                                     ":",
                                                     ",",
                                                     ";",
                                                     "$",
                                                     "[",
                                                     "]",
                                                     "{",
                                                     "}",
                                                     "\"",
                                                     "<",
                                                     ">",
                                                     "\\",
                                                     "^",
                                                     "`",
                                                     "|",
                                                     "\xc3\xa9",
                                                     "\xe4\xb8\xad",
                                                     "\xf0\x9f\x98\x80",
                                                     "%2F",
                                                     "%41"};
    std::string out;
    const size_t length = Uniform(0, max_length);
    for (size_t i = 0; i < length; ++i) {
      if (allow_slash && Uniform(0, 9) == 0) {
        out.push_back('/');
      } else {
        out.append(kPieces[Uniform(0, kPieces.size() - 1)]);
      }
    }
    return out;
  }

  std::string Word(size_t min_length, size_t max_length, std::string_view alphabet) {
    std::string out;
    const size_t length = Uniform(min_length, max_length);
    for (size_t i = 0; i < length; ++i) out.push_back(alphabet[Uniform(0, alphabet.size() - 1)]);
    return out;
  }

  // A header value: printable ASCII with runs of spaces and tabs anywhere.
  std::string HeaderValue() {
    std::string out;
    const size_t length = Uniform(0, 30);
    for (size_t i = 0; i < length; ++i) {
      const size_t pick = Uniform(0, 9);
      if (pick == 0) {
        out.append(Uniform(0, 1) ? "   " : " \t ");
      } else {
        out.push_back(static_cast<char>(Uniform(0x21, 0x7e)));
      }
    }
    return out;
  }

  nlohmann::json Case(int index) {
    nlohmann::json c;
    c["access_key"] = Word(16, 20, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
    c["secret_key"] =
        Word(30, 40, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/");
    c["token"] = Uniform(0, 3) == 0 ? Word(20, 60, "abcdefABCDEF0123456789+/=") : "";
    static const std::vector<std::string> kRegions = {"us-east-1", "eu-west-1", "cn-hangzhou",
                                                      "ap-southeast-1"};
    c["region"] = kRegions[Uniform(0, kRegions.size() - 1)];
    // Any second between 2001 and 2037.
    const time_t seconds = static_cast<time_t>(Uniform(1'000'000'000, 2'100'000'000));
    c["time"] = AmzDate(std::chrono::system_clock::from_time_t(seconds));
    static const std::vector<std::string> kMethods = {"GET", "PUT", "POST", "DELETE", "HEAD"};
    c["method"] = kMethods[Uniform(0, kMethods.size() - 1)];
    const bool virtual_hosted = Uniform(0, 1) == 1;
    const std::string bucket = Word(3, 12, "abcdefghijklmnopqrstuvwxyz0123456789-");
    c["host"] = virtual_hosted ? bucket + ".s3.example.com"
                               : "127.0.0.1:" + std::to_string(index % 60000 + 1);
    const std::string key = Text(40, true);
    c["raw_path"] = virtual_hosted ? "/" + key : "/" + bucket + "/" + key;
    nlohmann::json query = nlohmann::json::array();
    static const std::vector<std::string> kS3Params = {
        "uploads",     "uploadId",           "partNumber", "list-type", "prefix",
        "start-after", "continuation-token", "max-keys",   "delimiter", "encoding-type"};
    const size_t params = Uniform(0, 4);
    for (size_t i = 0; i < params; ++i) {
      // Names from S3's own, or random unreserved ones; values anything.
      const std::string name = Uniform(0, 1)
                                   ? kS3Params[Uniform(0, kS3Params.size() - 1)]
                                   : Word(1, 8, "abcdefghijklmnopqrstuvwxyz0123456789-_.~");
      query.push_back({name, Text(20, true)});
    }
    c["query"] = query;
    nlohmann::json headers = nlohmann::json::array();
    headers.push_back({Uniform(0, 1) ? "Host" : "host", c["host"]});
    std::set<std::string> names = {"host"};
    const size_t extra = Uniform(0, 5);
    for (size_t i = 0; i < extra; ++i) {
      std::string name;
      switch (Uniform(0, 3)) {
        case 0:
          name = "Content-Type";
          break;
        case 1:
          name = "Content-Encoding";
          break;
        default:
          name = "X-Amz-Meta-" +
                 Word(1, 10, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
      }
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
      if (!names.insert(lower).second) continue;
      headers.push_back({name, HeaderValue()});
    }
    c["headers"] = headers;
    std::string body(Uniform(0, 3) == 0 ? 0 : Uniform(1, 2000), '\0');
    for (char& b : body) b = static_cast<char>(Uniform(0, 255));
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (char b : body) {
      hex.push_back(kHex[static_cast<unsigned char>(b) >> 4]);
      hex.push_back(kHex[static_cast<unsigned char>(b) & 0xf]);
    }
    c["body_hex"] = hex;
    bodies_.push_back(std::move(body));
    return c;
  }

  const std::string& Body(size_t index) const { return bodies_[index]; }

 private:
  size_t Uniform(size_t low, size_t high) {
    return std::uniform_int_distribution<size_t>(low, high)(random_);
  }

  std::mt19937_64 random_;
  std::vector<std::string> bodies_;
};

std::string Ours(const nlohmann::json& c, const std::string& body, std::string* encoded_path) {
  const std::string raw_path = c["raw_path"];
  *encoded_path = UriEncodePath(raw_path);
  Request request;
  request.method = c["method"];
  request.encoded_path = *encoded_path;
  for (const auto& pair : c["query"]) request.query.emplace_back(pair[0], pair[1]);
  for (const auto& pair : c["headers"]) request.headers.emplace_back(pair[0], pair[1]);
  request.payload_sha256_hex = Sha256Hex(body);
  struct tm parts {};
  const std::string time = c["time"];
  strptime(time.c_str(), "%Y%m%dT%H%M%SZ", &parts);
  const auto when = std::chrono::system_clock::from_time_t(timegm(&parts));
  const Signed result = Sign(request, Credentials{c["access_key"], c["secret_key"], c["token"]},
                             std::string(c["region"]), "s3", when);
  return result.headers.back().second;
}

TEST(SigV4BotocoreTest, AgreesWithBotocoreOnRandomRequests) {
  test::TempDir dir;
  CaseMaker maker(20261203);
  std::vector<nlohmann::json> cases;
  {
    std::ofstream input(dir.Path("cases.jsonl"));
    for (int i = 0; i < kCases; ++i) {
      cases.push_back(maker.Case(i));
      input << cases.back().dump() << "\n";
    }
  }
  const std::string command = std::string("/usr/bin/python3 ") + RAYAGG_SOURCE_DIR +
                              "/tests/unit/objstore/sigv4_botocore_oracle.py < " +
                              dir.Path("cases.jsonl") + " > " + dir.Path("answers.jsonl");
  ASSERT_EQ(std::system(command.c_str()), 0)
      << "the botocore oracle failed; is python3-botocore installed (scripts/test does it)?";
  std::ifstream answers(dir.Path("answers.jsonl"));
  std::string line;
  int compared = 0;
  int mismatches = 0;
  for (int i = 0; i < kCases && std::getline(answers, line); ++i) {
    const nlohmann::json answer = nlohmann::json::parse(line);
    std::string encoded_path;
    const std::string ours = Ours(cases[i], maker.Body(i), &encoded_path);
    ++compared;
    EXPECT_EQ(encoded_path, answer["encoded_path"]) << cases[i].dump();
    EXPECT_EQ(Sha256Hex(maker.Body(i)), answer["content_sha256"]);
    if (ours != answer["authorization"]) {
      ADD_FAILURE() << "case " << i << ": " << cases[i].dump() << "\nours:     " << ours
                    << "\nbotocore: " << answer["authorization"];
      if (++mismatches > 5) break;
    }
  }
  EXPECT_EQ(compared, kCases);
}

}  // namespace
}  // namespace rayagg::sigv4
