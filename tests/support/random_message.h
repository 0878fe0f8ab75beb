// Fills any message with random values through reflection, so every field
// reachable from RayEvent is covered without listing it: edge integers, NaN
// and infinities, control characters and multi-byte UTF-8, unknown enum
// numbers, set and unset optional fields, empty and non-empty repeated fields
// and maps, Timestamps of every fraction width (and, rarely, out of range).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>

namespace rayagg::testing {

// Compiled once in rayagg_json_test_support at the preset's optimisation
// level, not in each test file at -O0 (cmake/TestCode.cmake): the
// differential tests fill thousands of messages per run.
class RandomMessageFiller {
 public:
  explicit RandomMessageFiller(uint64_t seed) : rng_(seed) {}

  // Probability (per mille) that a Timestamp is out of protobuf's range.
  int bad_timestamp_per_mille = 2;
  int max_depth = 5;

  void Fill(google::protobuf::Message& message, int depth = 0);

  std::mt19937_64& rng() { return rng_; }

  // Fields given a value at least once, for the coverage check.
  std::set<const google::protobuf::FieldDescriptor*> covered;

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Percent(int p) { return Uniform(0, 99) < p; }
  int RepeatedCount();

  int64_t RandomInt64();
  uint64_t RandomUInt64();
  int32_t RandomInt32();
  uint32_t RandomUInt32();
  double RandomDouble();
  static void AppendUtf8(uint32_t cp, std::string& out);
  uint32_t RandomCodePoint();
  std::string RandomString();
  std::string RandomBytes();
  int RandomEnum(const google::protobuf::EnumDescriptor* e);
  void FillTimestamp(google::protobuf::Message& ts);
  void SetRandom(google::protobuf::Message& m, const google::protobuf::FieldDescriptor* f,
                 int depth);
  void AddRandom(google::protobuf::Message& m, const google::protobuf::FieldDescriptor* f,
                 int depth);

  std::mt19937_64 rng_;
};

}  // namespace rayagg::testing
