// What the JSON -> protobuf wire transcoder (json/event_json_parser.h) needs
// to know about a message type and every type reachable from it, resolved
// once from the descriptors into flat tables: field numbers, precomputed
// tags, how each value is written, and key tables that find a field by its
// lowerCamelCase or proto name (and an enum value by its name) with one hash
// probe and one compare. Nothing here is looked up in a descriptor while
// parsing. Immutable once built, so one schema may serve any number of
// parsers on any threads.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace google::protobuf {
class Descriptor;
}

namespace rayagg {

// How one JSON value of a field is checked and written.
enum class WireKind : uint8_t {
  kInt32,
  kInt64,
  kUInt32,
  kUInt64,
  kSInt32,
  kSInt64,
  kFixed32,
  kFixed64,
  kSFixed32,
  kSFixed64,
  kBool,
  kFloat,
  kDouble,
  kEnum,
  kString,
  kBytes,
  kMessage,
  kTimestamp,    // google.protobuf.Timestamp: an RFC 3339 string in JSON
  kUnsupported,  // the other well-known types (none in Ray's events): refused
};

// Maps a short string to a small integer with one probe: the hash seed is
// chosen when the table is built so that no two keys share a slot, and the
// slot's key is compared to confirm a hit.
class KeyTable {
 public:
  void Build(const std::vector<std::pair<std::string, int>>& entries);
  // -1 when `key` is not in the table.
  int Find(std::string_view key) const {
    const Slot& slot = slots_[Hash(key, seed_) & mask_];
    if (slot.size != key.size() || slot.value < 0) return -1;
    return SameBytes(key.data(), keys_.data() + slot.offset, key.size()) ? slot.value : -1;
  }

  static uint64_t Hash(std::string_view key, uint64_t seed);

 private:
  // memcmp == 0 for the short keys of field and enum names, without the call:
  // two overlapping loads from each side, never past `n` bytes.
  static bool SameBytes(const char* a, const char* b, size_t n) {
    if (n >= 8 && n <= 16) {
      return Load64(a) == Load64(b) && Load64(a + n - 8) == Load64(b + n - 8);
    }
    if (n >= 4 && n < 8) {
      return Load32(a) == Load32(b) && Load32(a + n - 4) == Load32(b + n - 4);
    }
    return std::memcmp(a, b, n) == 0;
  }
  static uint64_t Load64(const char* p) {
    uint64_t value;
    std::memcpy(&value, p, sizeof(value));
    return value;
  }
  static uint32_t Load32(const char* p) {
    uint32_t value;
    std::memcpy(&value, p, sizeof(value));
    return value;
  }

  struct Slot {
    uint32_t offset = 0;
    uint32_t size = 0;
    int32_t value = -1;
  };
  std::string keys_;
  std::vector<Slot> slots_{Slot{}};
  uint64_t seed_ = 0;
  uint64_t mask_ = 0;
};

struct WireField {
  uint32_t number = 0;
  WireKind kind = WireKind::kInt32;
  bool repeated = false;
  bool map = false;
  bool packed = false;
  // Written even at its default value (optional, oneof member, message).
  bool explicit_presence = false;
  uint8_t tag_size = 0;
  uint8_t tag[5] = {};       // for one value; length-delimited for packed and maps
  int32_t message = -1;      // kMessage, kTimestamp, kUnsupported, map: WireSchema::message()
  int32_t enumeration = -1;  // kEnum: WireSchema::enumeration()
};

struct WireMessage {
  std::string full_name;
  std::vector<WireField> fields;
  KeyTable keys;  // JSON (lowerCamelCase) and proto names -> index in `fields`
};

struct WireEnum {
  std::string name;  // short name, as errors quote it ("TaskStatus")
  KeyTable values;   // value name -> index in `numbers`
  std::vector<int32_t> numbers;
};

class WireSchema {
 public:
  // Tables for `root` and every message and enum type reachable from it.
  explicit WireSchema(const google::protobuf::Descriptor& root);

  const WireMessage& root() const { return messages_.front(); }
  const WireMessage& message(int32_t index) const { return messages_[index]; }
  const WireEnum& enumeration(int32_t index) const { return enums_[index]; }

 private:
  std::vector<WireMessage> messages_;
  std::vector<WireEnum> enums_;
};

}  // namespace rayagg
