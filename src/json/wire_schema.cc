#include "json/wire_schema.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

namespace rayagg {
namespace {

namespace pb = google::protobuf;
using Field = pb::FieldDescriptor;

// 64x64 -> 128 bit multiply, folded (wyhash's mixer).
uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

constexpr uint64_t kMul1 = 0xa0761d6478bd642full;
constexpr uint64_t kMul2 = 0xe7037ed1a0b428dbull;

WireKind KindOf(const Field& field) {
  switch (field.type()) {
    case Field::TYPE_INT32:
      return WireKind::kInt32;
    case Field::TYPE_INT64:
      return WireKind::kInt64;
    case Field::TYPE_UINT32:
      return WireKind::kUInt32;
    case Field::TYPE_UINT64:
      return WireKind::kUInt64;
    case Field::TYPE_SINT32:
      return WireKind::kSInt32;
    case Field::TYPE_SINT64:
      return WireKind::kSInt64;
    case Field::TYPE_FIXED32:
      return WireKind::kFixed32;
    case Field::TYPE_FIXED64:
      return WireKind::kFixed64;
    case Field::TYPE_SFIXED32:
      return WireKind::kSFixed32;
    case Field::TYPE_SFIXED64:
      return WireKind::kSFixed64;
    case Field::TYPE_BOOL:
      return WireKind::kBool;
    case Field::TYPE_FLOAT:
      return WireKind::kFloat;
    case Field::TYPE_DOUBLE:
      return WireKind::kDouble;
    case Field::TYPE_ENUM:
      return WireKind::kEnum;
    case Field::TYPE_STRING:
      return WireKind::kString;
    case Field::TYPE_BYTES:
      return WireKind::kBytes;
    case Field::TYPE_MESSAGE: {
      const auto well_known = field.message_type()->well_known_type();
      if (well_known == pb::Descriptor::WELLKNOWNTYPE_TIMESTAMP) return WireKind::kTimestamp;
      if (well_known != pb::Descriptor::WELLKNOWNTYPE_UNSPECIFIED) return WireKind::kUnsupported;
      return WireKind::kMessage;
    }
    case Field::TYPE_GROUP:
      return WireKind::kUnsupported;
  }
  return WireKind::kUnsupported;
}

// Wire type of one value of `kind` written with its own tag.
int WireTypeOf(WireKind kind) {
  switch (kind) {
    case WireKind::kFixed64:
    case WireKind::kSFixed64:
    case WireKind::kDouble:
      return 1;
    case WireKind::kFixed32:
    case WireKind::kSFixed32:
    case WireKind::kFloat:
      return 5;
    case WireKind::kString:
    case WireKind::kBytes:
    case WireKind::kMessage:
    case WireKind::kTimestamp:
    case WireKind::kUnsupported:
      return 2;
    default:
      return 0;
  }
}

void SetTag(WireField& field, int wire_type) {
  uint64_t tag = static_cast<uint64_t>(field.number) << 3 | static_cast<uint64_t>(wire_type);
  field.tag_size = 0;
  while (tag >= 0x80) {
    field.tag[field.tag_size++] = static_cast<uint8_t>(tag | 0x80);
    tag >>= 7;
  }
  field.tag[field.tag_size++] = static_cast<uint8_t>(tag);
}

class Builder {
 public:
  Builder(std::vector<WireMessage>& messages, std::vector<WireEnum>& enums)
      : messages_(messages), enums_(enums) {}

  void Build(const pb::Descriptor& root) {
    MessageIndex(root);
    // messages_ grows while we go: index, not iterator.
    for (size_t i = 0; i < pending_.size(); ++i) Fill(*pending_[i], i);
  }

 private:
  int32_t MessageIndex(const pb::Descriptor& descriptor) {
    auto [it, added] =
        message_indexes_.try_emplace(&descriptor, static_cast<int32_t>(messages_.size()));
    if (added) {
      messages_.emplace_back();
      pending_.push_back(&descriptor);
    }
    return it->second;
  }

  int32_t EnumIndex(const pb::EnumDescriptor& descriptor) {
    auto [it, added] = enum_indexes_.try_emplace(&descriptor, static_cast<int32_t>(enums_.size()));
    if (added) {
      WireEnum& table = enums_.emplace_back();
      table.name = descriptor.name();
      std::vector<std::pair<std::string, int>> names;
      for (int i = 0; i < descriptor.value_count(); ++i) {
        names.emplace_back(descriptor.value(i)->name(), i);
        table.numbers.push_back(descriptor.value(i)->number());
      }
      table.values.Build(names);
    }
    return it->second;
  }

  void Fill(const pb::Descriptor& descriptor, size_t position) {
    // Fill a local copy: MessageIndex() may grow messages_ (and move it).
    WireMessage message;
    message.full_name = descriptor.full_name();
    // As protobuf's lookups: a lowerCamelCase name first, then a proto name.
    std::vector<std::pair<std::string, int>> camel_keys;
    std::vector<std::pair<std::string, int>> proto_keys;
    for (int i = 0; i < descriptor.field_count(); ++i) {
      const Field& source = *descriptor.field(i);
      WireField field;
      field.number = static_cast<uint32_t>(source.number());
      field.kind = KindOf(source);
      field.repeated = source.is_repeated();
      field.map = source.is_map();
      field.packed = source.is_packed();
      field.explicit_presence = !source.is_repeated() && source.has_presence();
      if (source.message_type() != nullptr) field.message = MessageIndex(*source.message_type());
      if (source.enum_type() != nullptr) field.enumeration = EnumIndex(*source.enum_type());
      SetTag(field, field.map || field.packed ? 2 : WireTypeOf(field.kind));
      const int index = static_cast<int>(message.fields.size());
      message.fields.push_back(field);
      camel_keys.emplace_back(source.camelcase_name(), index);
      proto_keys.emplace_back(source.name(), index);
    }
    std::vector<std::pair<std::string, int>> keys;
    for (auto& key : camel_keys) keys.push_back(std::move(key));
    for (auto& key : proto_keys) {
      const bool taken = std::any_of(keys.begin(), keys.end(),
                                     [&](const auto& other) { return other.first == key.first; });
      if (!taken) keys.push_back(std::move(key));
    }
    message.keys.Build(keys);
    messages_[position] = std::move(message);
  }

  std::vector<WireMessage>& messages_;
  std::vector<WireEnum>& enums_;
  std::vector<const pb::Descriptor*> pending_;
  std::unordered_map<const pb::Descriptor*, int32_t> message_indexes_;
  std::unordered_map<const pb::EnumDescriptor*, int32_t> enum_indexes_;
};

}  // namespace

uint64_t KeyTable::Hash(std::string_view key, uint64_t seed) {
  const char* p = key.data();
  const size_t n = key.size();
  uint64_t a = 0;
  uint64_t b = 0;
  if (n >= 8) {
    // First and last 8 bytes (overlapping below 16), and every 8 between.
    a = Load64(p);
    b = Load64(p + n - 8);
    for (size_t i = 8; i + 8 < n; i += 8) a = Mix(a ^ kMul1, Load64(p + i) ^ seed);
  } else if (n >= 4) {
    a = Load32(p);
    b = Load32(p + n - 4);
  } else if (n > 0) {
    a = static_cast<uint64_t>(static_cast<unsigned char>(p[0])) << 16 |
        static_cast<uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8 |
        static_cast<unsigned char>(p[n - 1]);
  }
  return Mix(a ^ seed ^ n, b ^ kMul2);
}

void KeyTable::Build(const std::vector<std::pair<std::string, int>>& entries) {
  keys_.clear();
  std::vector<Slot> keyed;
  for (const auto& [key, value] : entries) {
    keyed.push_back(Slot{static_cast<uint32_t>(keys_.size()), static_cast<uint32_t>(key.size()),
                         static_cast<int32_t>(value)});
    keys_ += key;
  }
  size_t size = 2;
  while (size < 2 * entries.size()) size *= 2;
  // Random seeds until no two keys collide; a bigger table when that takes long.
  for (uint64_t attempt = 0;; ++attempt) {
    if (attempt > 0 && attempt % 4096 == 0) size *= 2;
    if (size > (1u << 20)) throw std::logic_error("KeyTable: no collision-free seed");
    const uint64_t seed = Mix(attempt + 1, kMul1);
    std::vector<Slot> slots(size);
    bool collided = false;
    for (const Slot& entry : keyed) {
      const std::string_view key(keys_.data() + entry.offset, entry.size);
      Slot& slot = slots[Hash(key, seed) & (size - 1)];
      if (slot.value >= 0) {
        collided = true;
        break;
      }
      slot = entry;
    }
    if (collided) continue;
    slots_ = std::move(slots);
    seed_ = seed;
    mask_ = size - 1;
    return;
  }
}

WireSchema::WireSchema(const google::protobuf::Descriptor& root) {
  Builder(messages_, enums_).Build(root);
}

}  // namespace rayagg
