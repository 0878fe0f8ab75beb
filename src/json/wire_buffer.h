// Appends protobuf wire format to a growing byte buffer: varints, fixed
// values, precomputed tags, and length prefixes written after the content
// (one byte is reserved, and the content is moved in the rare case that the
// length needs more). Only the used prefix of the storage is meaningful; the
// storage keeps its size between parses so that it is not zero-filled again.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "json/wire_schema.h"

namespace rayagg {

static_assert(std::endian::native == std::endian::little,
              "fixed32/fixed64 are written in host order, which must be protobuf's little-endian");

class WireBuffer {
 public:
  // Appends after `used` bytes of `storage`.
  WireBuffer(std::string& storage, size_t used)
      : storage_(storage), data_(storage.data()), capacity_(storage.size()), size_(used) {}

  size_t size() const { return size_; }
  void Truncate(size_t size) { size_ = size; }

  // Room for `n` bytes, to be written by the caller.
  char* Append(size_t n) {
    Reserve(n);
    char* at = data_ + size_;
    size_ += n;
    return at;
  }

  void Byte(uint8_t byte) {
    Reserve(1);
    data_[size_++] = static_cast<char>(byte);
  }

  void Varint(uint64_t value) {
    Reserve(10);
    while (value >= 0x80) {
      data_[size_++] = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    data_[size_++] = static_cast<char>(value);
  }

  void Tag(const WireField& field) {
    Reserve(sizeof(field.tag));
    std::memcpy(data_ + size_, field.tag, sizeof(field.tag));
    size_ += field.tag_size;
  }

  void Fixed32(uint32_t value) { std::memcpy(Append(4), &value, 4); }
  void Fixed64(uint64_t value) { std::memcpy(Append(8), &value, 8); }

  void LengthDelimited(const char* bytes, size_t n) {
    Reserve(n + 10);
    Varint(n);
    std::memcpy(data_ + size_, bytes, n);
    size_ += n;
  }

  // Reserves the length prefix of content about to be written; returns where.
  size_t BeginLength() {
    Reserve(1);
    return size_++;
  }

  // Writes the length of everything after `at` into the reserved prefix.
  void EndLength(size_t at) {
    const size_t length = size_ - at - 1;
    if (length < 0x80) {
      data_[at] = static_cast<char>(length);
      return;
    }
    size_t extra = 0;
    for (size_t rest = length >> 7; rest != 0; rest >>= 7) ++extra;
    Reserve(extra);
    std::memmove(data_ + at + 1 + extra, data_ + at + 1, length);
    size_ += extra;
    uint64_t value = length;
    char* p = data_ + at;
    while (value >= 0x80) {
      *p++ = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    *p = static_cast<char>(value);
  }

 private:
  void Reserve(size_t n) {
    if (size_ + n > capacity_) Grow(size_ + n);
  }
  void Grow(size_t needed) {
    storage_.resize(std::max({needed, 2 * capacity_, size_t{4096}}));
    data_ = storage_.data();
    capacity_ = storage_.size();
  }

  std::string& storage_;
  char* data_;
  size_t capacity_;
  size_t size_;
};

}  // namespace rayagg
